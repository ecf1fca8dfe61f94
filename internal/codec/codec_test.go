package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func kindOf(t *testing.T, err error) Kind {
	t.Helper()
	var ce *Error
	require.True(t, errors.As(err, &ce), "error %v is not a *codec.Error", err)
	return ce.Kind
}

func TestLimits(t *testing.T) {
	deepJSON := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	deepObject := func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
	}
	deepYAMLFlow := func(n int) []byte {
		return []byte("a: " + strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	tests := []struct {
		name     string
		opts     Options
		data     []byte
		wantKind Kind // "" = success
		status   int
	}{
		{"json at the depth bound", Options{}, deepJSON(DefaultMaxDepth), "", 0},
		{"json one past the depth bound", Options{}, deepJSON(DefaultMaxDepth + 1), KindTooDeep, 400},
		{"json objects 100k deep", Options{MaxBytes: -1}, deepObject(100000), KindTooDeep, 400},
		{"json a million brackets", Options{MaxBytes: -1}, deepJSON(1000000), KindTooDeep, 400},
		{"yaml flow at the bound", Options{}, deepYAMLFlow(DefaultMaxDepth - 1), "", 0},
		{"yaml flow past the bound", Options{}, deepYAMLFlow(DefaultMaxDepth + 1), KindTooDeep, 400},
		{"yaml flow 100k deep", Options{MaxBytes: -1}, deepYAMLFlow(100000), KindTooDeep, 400},
		{"custom depth ok", Options{MaxDepth: 3}, []byte(`{"a":{"b":[1]}}`), "", 0},
		{"custom depth exceeded", Options{MaxDepth: 3}, []byte(`{"a":{"b":[[1]]}}`), KindTooDeep, 400},
		{"custom depth exceeded yaml", Options{MaxDepth: 2}, []byte("a:\n  b:\n    c: 1\n"), KindTooDeep, 400},
		{"size at the limit", Options{MaxBytes: 9}, []byte(`{"a":"b"}`), "", 0},
		{"size over the limit", Options{MaxBytes: 8}, []byte(`{"a":"b"}`), KindTooLarge, 413},
		{"100 MB over the default limit", Options{}, bytes.Repeat([]byte(" "), 100<<20), KindTooLarge, 413},
		{"no limit", Options{MaxBytes: -1}, append(bytes.Repeat([]byte(" "), DefaultMaxBytes+1), "{}"...), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := tt.opts.DecodeValue(tt.data)
			_, serr := tt.opts.DecodeStream(tt.data)
			elapsed := time.Since(start)
			if tt.wantKind == "" {
				assert.NoError(t, err, "decode %s", tt.name)
				return
			}
			require.Error(t, err, "decode %s", tt.name)
			assert.Equal(t, tt.wantKind, kindOf(t, err), "decode %s: %v", tt.name, err)
			var ce *Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.status, ce.StatusCode())
			require.Error(t, serr, "stream decode %s", tt.name)
			assert.Equal(t, tt.wantKind, kindOf(t, serr), "stream decode %s: %v", tt.name, serr)
			t.Logf("%s: %v (%v)", tt.name, ce, elapsed)
		})
	}
}

func TestTooLargeMessage(t *testing.T) {
	_, err := Options{MaxBytes: 4}.DecodeObject([]byte(`{"a":1}`))
	var ce *Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "request entity too large: limit is 4", ce.Error())
	assert.Equal(t, "limit is 4", ce.Detail)
	assert.Equal(t, "RequestEntityTooLarge", ce.Reason())
	assert.Equal(t, int64(4), ce.Limit)
	_, err = DecodeObject(make([]byte, DefaultMaxBytes+1))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "request entity too large: limit is 3145728", ce.Error())
}

func TestFormat(t *testing.T) {
	// JSON-only decoding rejects YAML; YAML decoding reads JSON with YAML's rules.
	_, err := Options{Format: FormatJSON}.DecodeObject([]byte("a: 1"))
	assert.Equal(t, KindSyntax, kindOf(t, err))
	v, err := Options{Format: FormatYAML}.DecodeObject([]byte(`{"a": 1.0}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(1)}, v, "YAML reads 1.0 as a float that re-encodes as 1")
	v, err = Options{Format: FormatJSON}.DecodeObject([]byte(`{"a": 1.0}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": float64(1)}, v)
	docs, err := Options{Format: FormatYAML}.DecodeDocuments([]byte("{\"a\": 1}\n---\nb: 2\n"))
	require.NoError(t, err)
	assert.Len(t, docs, 2)
	_, err = Options{Format: FormatJSON}.DecodeDocuments([]byte("{\"a\": 1}\n---\nb: 2\n"))
	assert.Equal(t, KindSyntax, kindOf(t, err), "a JSON stream does not fall back to YAML under FormatJSON")
}

func TestDecodeObjectNotObject(t *testing.T) {
	for in, want := range map[string]string{
		`[1]`:     "json: cannot unmarshal array into Go value of type map[string]interface {}",
		`"s"`:     "json: cannot unmarshal string into Go value of type map[string]interface {}",
		`3`:       "json: cannot unmarshal number into Go value of type map[string]interface {}",
		`true`:    "json: cannot unmarshal bool into Go value of type map[string]interface {}",
		``:        "json: cannot unmarshal null into Go value of type map[string]interface {}",
		`null`:    "json: cannot unmarshal null into Go value of type map[string]interface {}",
		"- a\n":   "json: cannot unmarshal array into Go value of type map[string]interface {}",
		"# c\n\n": "json: cannot unmarshal null into Go value of type map[string]interface {}",
	} {
		_, err := DecodeObject([]byte(in))
		require.Error(t, err, "input %q", in)
		assert.Equal(t, want, err.Error(), "input %q", in)
		assert.Equal(t, KindNotObject, kindOf(t, err), "input %q", in)
	}
}

func TestReadDocuments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "objs.yaml")
	require.NoError(t, os.WriteFile(file, []byte("a: 1\n---\nb: 2\n"), 0o644))
	docs, err := ReadDocuments(file, nil)
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"a": int64(1)}, {"b": int64(2)}}, docs)

	docs, err = ReadDocuments("-", strings.NewReader(`{"c":3}`))
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"c": int64(3)}}, docs)

	_, err = ReadDocuments("-", strings.NewReader("a: [1\n"))
	require.Error(t, err)
	assert.Equal(t, "error parsing STDIN: document 1: yaml: line 1: did not find expected ',' or ']'", err.Error())

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("a: 1\na: 2\n"), 0o644))
	_, err = ReadDocuments(bad, nil)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "error parsing "+bad+": document 1: yaml: unmarshal errors:"), err.Error())

	_, err = ReadDocuments(filepath.Join(dir, "missing.yaml"), nil)
	assert.Equal(t, KindRead, kindOf(t, err))
	assert.Equal(t, `the path "`+filepath.Join(dir, "missing.yaml")+`" does not exist`, err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = ReadDocuments("-", nil)
	assert.Equal(t, KindRead, kindOf(t, err))

	// The size bound applies while reading: a 100 MB stream is cut at MaxBytes+1.
	_, err = Options{MaxBytes: 1 << 10}.ReadDocuments("-", io100MB{})
	assert.Equal(t, KindTooLarge, kindOf(t, err))
}

// io100MB is an endless reader of spaces; reading stops at the limit.
type io100MB struct{}

func (io100MB) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestAllowDuplicatesLastWins(t *testing.T) {
	d, err := Options{AllowDuplicates: true}.Decode([]byte(`{"a":1,"a":2}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(2)}, d.Value)
	assert.Equal(t, []string{`duplicate field "a"`}, d.Warnings)

	d, err = Options{AllowDuplicates: true}.Decode([]byte("a: 1\na: 2\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(2)}, d.Value)
	assert.Equal(t, []string{`line 2: key "a" already set in map`}, d.Warnings)
}

func TestFlattenLists(t *testing.T) {
	docs := []map[string]any{
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "plain"}},
		{"apiVersion": "v1", "kind": "PodList", "items": []any{
			map[string]any{"metadata": map[string]any{"name": "p1"}},
			map[string]any{"kind": "Pod", "metadata": map[string]any{"name": "p2"}},
			nil,
			map[string]any{"kind": "Thing", "items": "not a list, so not a nested list"},
		}},
		{"apiVersion": "v1", "kind": "List", "items": nil},
	}
	before, err := EncodeJSON(docs[1])
	require.NoError(t, err)
	flat, err := FlattenLists(docs)
	require.NoError(t, err)
	after, err := EncodeJSON(docs[1])
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "FlattenLists modified its input")
	assert.Equal(t, []map[string]any{
		docs[0],
		{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p1"}},
		{"kind": "Pod", "metadata": map[string]any{"name": "p2"}},
		{"apiVersion": "v1", "kind": "Pod"},
		{"kind": "Thing", "items": "not a list, so not a nested list"},
	}, flat)

	for _, tt := range []struct {
		doc  map[string]any
		want string
	}{
		{map[string]any{"kind": "List", "items": []any{"x"}}, "json: cannot unmarshal string into Go value of type map[string]interface {}"},
		{map[string]any{"kind": "List", "items": "x"}, "json: cannot unmarshal string into Go struct field decodeList.items of type []json.RawMessage"},
		{map[string]any{"kind": "List", "items": []any{map[string]any{"kind": "List", "items": []any{}}}},
			"*unstructured.Unstructured is not a list: no Items field in this object"},
	} {
		_, err = FlattenLists([]map[string]any{tt.doc})
		require.Error(t, err)
		assert.Equal(t, KindNotObject, kindOf(t, err))
		assert.Equal(t, "document 1: "+tt.want, err.Error())
	}
}

func TestEncodeErrors(t *testing.T) {
	cyclic := map[string]any{}
	inner := cyclic
	for range cycleCheckDepth + 5 {
		next := map[string]any{}
		inner["a"] = next
		inner = next
	}
	inner["loop"] = cyclic
	list := make([]any, 1)
	list[0] = list
	deep := any(int64(1))
	for range maxEncodeDepth + 1 {
		deep = []any{deep}
	}
	tests := []struct {
		name string
		v    any
		want string
		path string
	}{
		{"int", map[string]any{"a": []any{1}}, "json: unsupported type: int", "a[0]"},
		{"typed map", map[string]string{}, "json: unsupported type: map[string]string", ""},
		{"NaN", map[string]any{"x": math.NaN()}, "json: unsupported value: NaN", "x"},
		{"+Inf", []any{math.Inf(1)}, "json: unsupported value: +Inf", "[0]"},
		{"map cycle", cyclic, "json: unsupported value: encountered a cycle via map[string]interface {}", ""},
		{"slice cycle", list, "json: unsupported value: encountered a cycle via []interface {}", ""},
	}
	// Only the compact encoder for the deep value: indenting 100000 levels before failing would
	// write gigabytes of spaces (as encoding/json's MarshalIndent would).
	_, err := EncodeJSON(deep)
	require.Error(t, err)
	assert.Equal(t, "json: unsupported value: nested deeper than 100000 levels", err.Error())
	assert.Equal(t, KindUnsupported, kindOf(t, err))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, enc := range []func(any) ([]byte, error){EncodeJSON, EncodeJSONIndent, EncodeYAML} {
				_, err := enc(tt.v)
				require.Error(t, err)
				var ce *Error
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, tt.want, ce.Detail)
				assert.Equal(t, KindUnsupported, ce.Kind)
				assert.Equal(t, 500, ce.StatusCode())
				if tt.path != "" {
					assert.Equal(t, tt.path, ce.Path)
				}
			}
		})
	}
}

// TestEncodeMatchesEncodingJSON checks the hand-written encoder against encoding/json on the
// golden inputs and a few edge values (conformance/codec does this on random documents).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, int64(-1), float64(-0.0), math.Copysign(0, -1), 1e21, 1e-6, 1e-7, 123456.789,
		"\xff\xfe<script>\u2028", []any(nil), map[string]any(nil), []any{}, map[string]any{},
		map[string]any{"z": []any{map[string]any{"b": nil, "a": "\t"}}, "\u00e9": 1.5, "": int64(0)},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := EncodeJSON(v)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "value %#v", v)
		wantIndent, err := json.MarshalIndent(v, "", "    ")
		require.NoError(t, err)
		gotIndent, err := EncodeJSONIndent(v)
		require.NoError(t, err)
		assert.Equal(t, string(wantIndent)+"\n", string(gotIndent), "value %#v", v)
	}
}

func TestEncodeYAMLControlCharacter(t *testing.T) {
	// kubectl -o yaml fails the same way: go-yaml refuses DEL in the JSON it re-reads.
	_, err := EncodeYAML(map[string]any{"a": "\x7f"})
	require.Error(t, err)
	assert.Equal(t, "yaml: control characters are not allowed", err.Error())
}

func TestYAMLDuplicatePath(t *testing.T) {
	for in, want := range map[string]string{
		"a:\n  b: 1\n  b: 2\n":                    "a.b",
		"list:\n- x: 1\n- y: 1\n  y: 2\n":         "list[1].y",
		"m: {k: 1, j: 2, k: 3}\n":                 "m.k",
		"top: 1\ntop: 2\n":                        "top",
		"a:\n  yes: 1\n  true: 2\n":               "", // equal only as YAML 1.1 booleans
		"base: &b {k: 1}\nd:\n  <<: *b\n  k: 2\n": "", // the first k came from a merge
		"s:\n  - - {deep: 1, deep: 2}\n":          "s[0][0].deep",
		"k:\n  x:\n    a: 1\n  x:\n    b: 2\n":    "k.x",
	} {
		_, err := DecodeObject([]byte(in))
		var ce *Error
		require.ErrorAs(t, err, &ce, "input %q", in)
		assert.Equal(t, KindDuplicate, ce.Kind, "input %q", in)
		assert.Equal(t, want, ce.Path, "input %q: %v", in, err)
	}
}
