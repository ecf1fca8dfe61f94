package cel

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/writepath/writepath/schema"
)

// correlated pairs a new value with the old value it replaces, through the schema (object
// fields by name, list-map items by key), and caches whether they are deeply equal: the
// ratcheting of apiserver's common.CorrelatedObject.
type correlated struct {
	oldValue, value any
	schema          *schema.Structural
	result          *bool
	mapList         *mapList
	children        map[any]*correlated
}

func newCorrelated(value, old any, s *schema.Structural) *correlated {
	return &correlated{oldValue: old, value: value, schema: s}
}

func (r *correlated) oldForIndex(i int) any {
	oldList, ok := r.oldValue.([]any)
	if !ok {
		return nil
	}
	list, ok := r.value.([]any)
	if !ok || len(list) <= i {
		return nil
	}
	if r.schema.XListType != "map" {
		return nil
	}
	if r.mapList == nil {
		r.mapList = makeMapList(r.schema, oldList)
	}
	return r.mapList.get(list[i])
}

func (r *correlated) deepEqual() (res bool) {
	if r == nil {
		return false
	}
	if r.result != nil {
		return *r.result
	}
	defer func() { r.result = &res }()
	if r.value == nil && r.oldValue == nil {
		return true
	}
	if r.value == nil || r.oldValue == nil {
		return false
	}
	oldArr, oldIsArr := r.oldValue.([]any)
	newArr, newIsArr := r.value.([]any)
	oldMap, oldIsMap := r.oldValue.(map[string]any)
	newMap, newIsMap := r.value.(map[string]any)
	if oldIsArr != newIsArr || oldIsMap != newIsMap {
		return false
	}
	switch {
	case oldIsArr:
		if len(oldArr) != len(newArr) {
			return false
		}
		for i := range newArr {
			child := r.index(i)
			if child == nil {
				if r.mapList == nil {
					return reflect.DeepEqual(oldArr, newArr)
				}
				return false
			}
			if !child.deepEqual() {
				return false
			}
		}
		return true
	case oldIsMap:
		if len(oldMap) != len(newMap) {
			return false
		}
		for k := range newMap {
			child := r.key(k)
			if child == nil || !child.deepEqual() {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(r.oldValue, r.value)
}

func (r *correlated) key(f string) *correlated {
	if r == nil || r.schema == nil {
		return nil
	}
	if c, ok := r.children[f]; ok {
		return c
	}
	oldMap, okOld := r.oldValue.(map[string]any)
	newMap, okNew := r.value.(map[string]any)
	if !okOld || !okNew {
		return nil
	}
	ov, okOld := oldMap[f]
	nv, okNew := newMap[f]
	if !okOld || !okNew {
		return nil
	}
	var ps *schema.Structural
	if p, ok := r.schema.Properties[f]; ok {
		ps = p
	} else if ap := r.schema.AdditionalPropertiesSchema(); ap != nil {
		ps = ap
	} else {
		return nil
	}
	if r.children == nil {
		r.children = make(map[any]*correlated, len(newMap))
	}
	c := &correlated{oldValue: ov, value: nv, schema: ps}
	r.children[f] = c
	return c
}

func (r *correlated) index(i int) *correlated {
	if r == nil || r.schema == nil {
		return nil
	}
	if c, ok := r.children[i]; ok {
		return c
	}
	list, ok := r.value.([]any)
	if !ok || len(list) <= i {
		return nil
	}
	ov := r.oldForIndex(i)
	if ov == nil || r.schema.Items == nil {
		return nil
	}
	if r.children == nil {
		r.children = make(map[any]*correlated, len(list))
	}
	c := &correlated{oldValue: ov, value: list[i], schema: r.schema.Items}
	r.children[i] = c
	return c
}

// mapList finds the old item of a list-map with the same key as a new item (apiserver's
// MakeMapList: lazily indexed, first item of a key wins).
type mapList struct {
	keys     []string
	keyed    map[any]any
	unkeyed  []any
	disabled bool
}

func makeMapList(s *schema.Structural, items []any) *mapList {
	if s == nil || s.Type != "array" || s.XListType != "map" || len(s.XListMapKeys) == 0 || len(items) == 0 {
		return &mapList{disabled: true}
	}
	return &mapList{keys: s.XListMapKeys, keyed: map[any]any{}, unkeyed: items}
}

func (m *mapList) compositeKey(obj map[string]any) (any, bool) {
	if len(m.keys) == 1 {
		v, ok := obj[m.keys[0]]
		if !ok {
			return nil, false
		}
		switch v.(type) {
		case bool, float64, int64, string:
			return v, true
		}
		return nil, false
	}
	var b strings.Builder
	for _, k := range m.keys {
		v, ok := obj[k]
		if !ok {
			return nil, false
		}
		switch x := v.(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", x)
		case float64:
			fmt.Fprintf(&b, "\x00%f", x)
		case int64:
			fmt.Fprintf(&b, "\x00%d", x)
		case string:
			fmt.Fprintf(&b, "\x00%q", x)
		default:
			return nil, false
		}
	}
	return b.String(), true
}

func (m *mapList) get(obj any) any {
	if m.disabled {
		return nil
	}
	mobj, ok := obj.(map[string]any)
	if !ok {
		return nil
	}
	key, ok := m.compositeKey(mobj)
	if !ok {
		return nil
	}
	if match, ok := m.keyed[key]; ok {
		return match
	}
	for len(m.unkeyed) > 0 {
		item := m.unkeyed[0]
		m.unkeyed = m.unkeyed[1:]
		mitem, ok := item.(map[string]any)
		if !ok {
			continue
		}
		ik, ok := m.compositeKey(mitem)
		if !ok {
			continue
		}
		if _, exists := m.keyed[ik]; !exists {
			m.keyed[ik] = mitem
		}
		if ik == key {
			return mitem
		}
	}
	return nil
}
