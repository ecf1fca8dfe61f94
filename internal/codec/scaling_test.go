package codec

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scaling tests run an operation at n and 8n and assert on counted work (bytes scanned,
// allocations), never on time: linear work grows 8 times, quadratic work 64 times.

func jsonStreamOf(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"a\": %d}\n", i)
	}
	return []byte(b.String())
}

func yamlStreamOf(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\na: %d\n", i)
	}
	return []byte(b.String())
}

// A JSON stream numbers its documents' lines in one pass (it used to recount from the start of
// the input for every document: 1000 documents scanned 5,389,605 bytes, 8000 scanned
// 375,577,605; now 10,879 and 94,878).
func TestScalingJSONStreamLines(t *testing.T) {
	work := func(n int) int {
		st := &decodeStats{}
		docs, err := Options{stats: st}.DecodeStream(jsonStreamOf(n))
		require.NoError(t, err)
		require.Len(t, docs, n)
		assert.Equal(t, n, docs[n-1].Line, "line of the last document")
		return st.lineBytes
	}
	small, large := work(1000), work(8000)
	t.Logf("bytes scanned for line numbers: n=1000 %d, n=8000 %d", small, large)
	assert.LessOrEqual(t, large, 9*small, "line counting grows faster than the input")
}

// A YAML stream of 8n documents allocates 8 times what n documents do.
func TestScalingYAMLStream(t *testing.T) {
	allocs := func(n int) float64 {
		data := yamlStreamOf(n)
		return testing.AllocsPerRun(2, func() {
			docs, err := DecodeDocuments(data)
			if err != nil || len(docs) != n {
				t.Fatalf("%d documents: %v", len(docs), err)
			}
		})
	}
	small, large := allocs(500), allocs(4000)
	t.Logf("allocations: n=500 %.0f, n=4000 %.0f", small, large)
	assert.LessOrEqual(t, large, 8.5*small)
}

func nested(depth int) any {
	var v any = map[string]any{}
	for i := range depth {
		v = map[string]any{fmt.Sprintf("f:k%d", i%10): v, ".": map[string]any{}}
	}
	return v
}

// countingWriter counts what it is given and keeps nothing.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// Indented JSON of a deeply nested value (fieldsV1 printed with -o json) is as long as the
// square of its depth; WriteJSONIndent hands it on as it goes, so memory grows with the depth
// only (EncodeJSONIndent, which returns it all, allocates the square: 8,454,680 bytes at
// depth 500, 493,066,104 at depth 4000).
func TestScalingWriteJSONIndentMemory(t *testing.T) {
	bytesAllocated := func(depth int) (uint64, int) {
		v := nested(depth)
		w := &countingWriter{}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		require.NoError(t, WriteJSONIndent(w, v))
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, w.n
	}
	small, outSmall := bytesAllocated(500)
	large, outLarge := bytesAllocated(4000)
	t.Logf("allocated: depth 500 %d bytes (%d written), depth 4000 %d bytes (%d written)", small, outSmall, large, outLarge)
	assert.Greater(t, outLarge, 60*outSmall, "the output itself is quadratic")
	// Linear with slack for the stacks' doubling (quadratic would be 64 times).
	assert.LessOrEqual(t, large, 12*small, "memory grows faster than the depth")
}

func TestWriteJSONIndentIsEncodeJSONIndent(t *testing.T) {
	for _, v := range []any{nil, int64(1), "x", []any{}, map[string]any{}, nested(3), nested(3000),
		map[string]any{"a": []any{int64(1), 2.5, map[string]any{"b": nil}}, "<": "&"}} {
		want, err := EncodeJSONIndent(v)
		require.NoError(t, err)
		var b strings.Builder
		require.NoError(t, WriteJSONIndent(&b, v))
		assert.Equal(t, string(want), b.String())
	}
	var b strings.Builder
	err := WriteJSONIndent(&b, map[string]any{"a": []any{int64(1), map[string]any{"nan": math.NaN()}}})
	var ce *Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, KindUnsupported, ce.Kind)
	assert.Empty(t, b.String(), "nothing written on error")
}
