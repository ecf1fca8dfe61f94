package cel

import (
	"reflect"
	"sort"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// UnstructuredValue converts an object-model value for CEL without a schema, as the admission
// plugins hand unstructured content (object, oldObject, params of custom kinds) to their
// expressions: cel-go's DefaultTypeAdapter, except that maps iterate in sorted key order
// (sortedAdapter). The value is read, never modified.
func UnstructuredValue(v any) ref.Val { return sortedAdapter{}.NativeToValue(v) }

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
		// A map is one word: as an interface value it costs no allocation (cel-go's map value
		// costs two, and a wrapper around it a third, for every map an expression reaches).
		return sortedMap(x)
	case []any:
		return types.NewDynamicList(sortedAdapter{}, x)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// sortedMap is CEL's map over a map[string]any, with a sorted Iterator. It has exactly the
// methods of traits.Mapper: lookups answer as cel-go's map over map[string]any answers
// (string keys only, values converted by sortedAdapter); equality and conversions are that
// map's own.
type sortedMap map[string]any

var _ traits.Mapper = sortedMap(nil)

// base is cel-go's map over m, for the operations that are rare enough to build it.
func (m sortedMap) base() traits.Mapper {
	return types.NewStringInterfaceMap(sortedAdapter{}, map[string]any(m))
}

// Find implements traits.Mapper.
func (m sortedMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	v, found := m[string(k)]
	if !found {
		return nil, false
	}
	return sortedAdapter{}.NativeToValue(v), true
}

// Get implements traits.Indexer.
func (m sortedMap) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		return types.ValOrErr(v, "no such key: %v", key)
	}
	return v
}

// Contains implements traits.Container.
func (m sortedMap) Contains(key ref.Val) ref.Val {
	_, found := m.Find(key)
	return types.Bool(found)
}

// Size implements traits.Sizer.
func (m sortedMap) Size() ref.Val { return types.Int(len(m)) }

// Iterator implements traits.Iterable: the keys in sorted order.
func (m sortedMap) Iterator() traits.Iterator {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return types.NewStringList(types.DefaultTypeAdapter, keys).(traits.Lister).Iterator()
}

// ConvertToNative implements ref.Val.
func (m sortedMap) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return m.base().ConvertToNative(typeDesc)
}

// ConvertToType implements ref.Val.
func (m sortedMap) ConvertToType(typeVal ref.Type) ref.Val { return m.base().ConvertToType(typeVal) }

// Equal implements ref.Val.
func (m sortedMap) Equal(other ref.Val) ref.Val { return m.base().Equal(other) }

// Type implements ref.Val.
func (m sortedMap) Type() ref.Type { return types.MapType }

// Value implements ref.Val: the map[string]any.
func (m sortedMap) Value() any { return map[string]any(m) }
