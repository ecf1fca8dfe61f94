package cel

import (
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/assert"
)

// A map reaches CEL without an allocation, and iterates in sorted key order.
func TestSortedMap(t *testing.T) {
	m := map[string]any{"b": int64(2), "a": int64(1), "c": map[string]any{"z": "1", "y": "2"}}
	allocs := testing.AllocsPerRun(100, func() { _ = UnstructuredValue(m) })
	assert.Zero(t, allocs, "allocations of NativeToValue(map)")

	v := UnstructuredValue(m).(traits.Mapper)
	var keys []string
	for it := v.Iterator(); it.HasNext() == types.True; {
		keys = append(keys, string(it.Next().(types.String)))
	}
	assert.Equal(t, []string{"a", "b", "c"}, keys)
	assert.Equal(t, types.Int(2), v.Get(types.String("b")))
	assert.Equal(t, types.True, v.Contains(types.String("a")))
	assert.Equal(t, types.False, v.Contains(types.Int(1)), "only string keys")
	assert.True(t, types.IsError(v.Get(types.String("nope"))))
	assert.Equal(t, types.Int(3), v.Size())
	assert.Equal(t, types.MapType, v.Type())
	assert.Equal(t, m, v.Value())
	nested := v.Get(types.String("c")).(traits.Mapper)
	first := nested.Iterator().Next()
	assert.Equal(t, types.String("y"), first, "nested maps are sorted too")
	assert.Equal(t, types.True, v.Equal(types.NewStringInterfaceMap(types.DefaultTypeAdapter, m)))
	assert.Equal(t, types.True, types.NewStringInterfaceMap(types.DefaultTypeAdapter, m).Equal(v))
}
