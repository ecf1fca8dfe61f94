package managedfields

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveWithKeys is a ConfigMap whose one Apply entry owns n data keys (a FieldsV1 object of n
// keys under f:data).
func liveWithKeys(n int) map[string]any {
	data := map[string]any{}
	fields := map[string]any{}
	for i := range n {
		k := fmt.Sprintf("key-%06d", i)
		data[k] = "v"
		fields["f:"+k] = map[string]any{}
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data,
		"metadata": map[string]any{"name": "big", "namespace": "default", "managedFields": []any{map[string]any{
			"manager": "m", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z",
			"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": fields}}}}}
}

// Decoding a FieldsV1 object with many keys sorts them and appends to SMD's sorted sets (it
// used to insert them in Go map order, moving half the set each time: quadratic).
func TestScalingDecodeManyKeys(t *testing.T) {
	work := func(n int) int {
		st := &decodeStats{}
		m, err := decodeObject(liveWithKeys(n), st)
		require.NoError(t, err)
		for _, vs := range m.Fields {
			require.Equal(t, n, vs.Set().Leaves().Size())
		}
		assert.Zero(t, st.moved, "inserts that were not appends")
		return st.compares + st.inserts*bits.Len(uint(n)) + st.moved
	}
	small, large := work(4000), work(32000)
	t.Logf("work units: n=4000 %d, n=32000 %d", small, large)
	// n log n: 8 times, and the logarithm's growth (15/12), with 10% to spare.
	assert.LessOrEqual(t, float64(large), 1.1*8*15/12*float64(small), "more than n log n")
}
