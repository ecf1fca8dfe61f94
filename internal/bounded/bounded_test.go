package bounded

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless is a stream that never ends (like /dev/zero or a pipe nobody closes); it counts the
// bytes handed out so that the test can check the reader stopped at the bound.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		limit   int64
		want    string
		tooBig  bool
		message string
	}{
		{name: "empty", in: "", limit: 10, want: ""},
		{name: "under the bound", in: "abc", limit: 10, want: "abc"},
		{name: "exactly the bound", in: "abcdefghij", limit: 10, want: "abcdefghij"},
		{name: "one byte over", in: "abcdefghijk", limit: 10, tooBig: true, message: "in: request entity too large: limit is 10"},
		{name: "zero bound", in: "a", limit: 0, tooBig: true, message: "in: request entity too large: limit is 0"},
		{name: "no bound", in: strings.Repeat("a", 100), limit: -1, want: strings.Repeat("a", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(tc.in), "in", tc.limit)
			if tc.tooBig {
				var tl *TooLargeError
				require.ErrorAs(t, err, &tl, "input %q", tc.in)
				assert.Equal(t, tc.message, err.Error())
				assert.Equal(t, 413, tl.StatusCode())
				assert.Equal(t, "RequestEntityTooLarge", tl.Reason())
				assert.Equal(t, tc.limit, tl.Limit)
				return
			}
			require.NoError(t, err, "input %q", tc.in)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// An endless stream is refused after limit+1 bytes (and the read buffer's slack), not read on.
func TestReadEndlessStream(t *testing.T) {
	src := &endless{}
	_, err := Read(src, Stdin, RequestBodyBytes)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, "STDIN: request entity too large: limit is 3145728", err.Error())
	assert.LessOrEqual(t, src.read, RequestBodyBytes+64<<10, "bytes taken from the stream")
}

func TestReadError(t *testing.T) {
	_, err := Read(failing{}, "ca.pem", 10)
	var re *ReadError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "ca.pem: disk on fire", err.Error())
	assert.Equal(t, "disk on fire", errors.Unwrap(err).Error())
}

func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	require.NoError(t, os.WriteFile(small, []byte("a: 1\n"), 0o600))
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("a"), 11), 0o600))

	got, err := ReadInput(small, nil, 10)
	require.NoError(t, err)
	assert.Equal(t, "a: 1\n", string(got))

	_, err = ReadInput(big, nil, 10)
	assert.EqualError(t, err, big+": request entity too large: limit is 10")

	_, err = ReadInput(filepath.Join(dir, "missing"), nil, 10)
	assert.ErrorIs(t, err, os.ErrNotExist)

	got, err = ReadInput("-", strings.NewReader("from stdin"), 10)
	require.NoError(t, err)
	assert.Equal(t, "from stdin", string(got))

	_, err = ReadInput("-", nil, 10)
	assert.EqualError(t, err, "STDIN: no standard input")

	// ReadFile takes "-" as a file name.
	_, err = ReadFile("-", 10)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The device that never ends is refused like any other endless stream.
func TestReadFileDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero", 1<<20)
	assert.EqualError(t, err, "/dev/zero: request entity too large: limit is 1048576")
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(""), int64(0))
	f.Add([]byte("abc"), int64(3))
	f.Add([]byte("abcd"), int64(3))
	f.Add([]byte("abcd"), int64(-1))
	f.Fuzz(func(t *testing.T, in []byte, limit int64) {
		orig := bytes.Clone(in)
		got, err := Read(io.MultiReader(bytes.NewReader(in)), "in", limit)
		assert.Equal(t, orig, in, "input modified")
		if limit >= 0 && int64(len(in)) > limit {
			var tl *TooLargeError
			require.ErrorAs(t, err, &tl)
			assert.Equal(t, limit, tl.Limit)
			return
		}
		require.NoError(t, err)
		assert.Equal(t, in, append([]byte{}, got...))
	})
}

func TestReadBody(t *testing.T) {
	got, err := ReadBody("-", strings.NewReader("abcdefghijk"), 10)
	require.NoError(t, err)
	assert.Equal(t, "abcdefghijk", string(got), "one byte past the bound, for the caller's 413")
	src := &endless{}
	got, err = ReadBody("-", src, 10)
	require.NoError(t, err)
	assert.Len(t, got, 11)
	_, err = ReadBody(filepath.Join(t.TempDir(), "missing"), nil, 10)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = ReadBody("-", nil, 10)
	assert.EqualError(t, err, "STDIN: no standard input")
}
