package admission

import (
	"sort"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// sortedAdapter converts object-model values for CEL as cel-go's DefaultTypeAdapter does, except
// that maps iterate in sorted key order. The apiserver iterates a Go map in random order, so an
// expression such as object.data.map(k, k).join(',') has several possible answers there;
// writepath gives the one in sorted order, every time.
type sortedAdapter struct{}

func (sortedAdapter) NativeToValue(v any) ref.Val {
	switch x := v.(type) {
	case nil:
		return types.NullValue
	case map[string]any:
		return sortedMap{Mapper: types.NewStringInterfaceMap(sortedAdapter{}, x).(traits.Mapper), keys: x}
	case []any:
		return types.NewDynamicList(sortedAdapter{}, x)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// sortedMap is cel-go's map over a map[string]any with a sorted Iterator.
type sortedMap struct {
	traits.Mapper
	keys map[string]any
}

func (m sortedMap) Iterator() traits.Iterator {
	keys := make([]string, 0, len(m.keys))
	for k := range m.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return types.NewStringList(types.DefaultTypeAdapter, keys).(traits.Lister).Iterator()
}
