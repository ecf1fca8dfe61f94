package codec

import (
	"fmt"
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
