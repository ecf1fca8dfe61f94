package schema

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/internal/value"
)

// Correlated pairs a new value with the old value it replaces, through the schema (object fields
// by name, list-map items by key), and caches whether the two are deeply equal. It is the
// apiserver's common.CorrelatedObject: validation ratcheting (an unchanged invalid value passes)
// and CEL transition rules (oldSelf) both walk it, so both correlate exactly alike.
//
// A Correlated memoizes its children and its equality; it is not safe for concurrent use, and it
// never modifies the values it pairs.
type Correlated struct {
	old, new any
	s        *Structural
	children map[any]*Correlated
	listMap  *ListMap // old list-map items by key, built on the first Index of a list-map
	eq       *bool
}

// NewCorrelated pairs newV with oldV under schema s.
func NewCorrelated(newV, oldV any, s *Structural) *Correlated {
	return &Correlated{old: oldV, new: newV, s: s}
}

// Key correlates field (or additionalProperties key) k of two objects; nil when either side lacks
// it or the schema does not describe it.
func (c *Correlated) Key(k string) *Correlated {
	if c == nil || c.s == nil {
		return nil
	}
	if ch, ok := c.children[k]; ok {
		return ch
	}
	om, ok1 := c.old.(map[string]any)
	nm, ok2 := c.new.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	ov, ok1 := om[k]
	nv, ok2 := nm[k]
	if !ok1 || !ok2 {
		return nil
	}
	var ps *Structural
	if p, ok := c.s.Properties[k]; ok {
		ps = p
	} else if ap := c.s.AdditionalPropertiesSchema(); ap != nil {
		ps = ap
	} else {
		return nil
	}
	if c.children == nil {
		c.children = map[any]*Correlated{}
	}
	ch := &Correlated{old: ov, new: nv, s: ps}
	c.children[k] = ch
	return ch
}

// Index correlates item i of a new list-map with the old item of the same key; nil for other
// lists (their items do not correlate) and for items without an old counterpart.
func (c *Correlated) Index(i int) *Correlated {
	if c == nil || c.s == nil {
		return nil
	}
	if ch, ok := c.children[i]; ok {
		return ch
	}
	nl, ok := c.new.([]any)
	if !ok || len(nl) <= i {
		return nil
	}
	ov := c.oldItem(i)
	if ov == nil || c.s.Items == nil {
		return nil
	}
	if c.children == nil {
		c.children = map[any]*Correlated{}
	}
	ch := &Correlated{old: ov, new: nl[i], s: c.s.Items}
	c.children[i] = ch
	return ch
}

func (c *Correlated) oldItem(i int) any {
	ol, ok := c.old.([]any)
	if !ok {
		return nil
	}
	nl, ok := c.new.([]any)
	if !ok || len(nl) <= i {
		return nil
	}
	if c.s.XListType != "map" {
		return nil
	}
	if c.listMap == nil {
		c.listMap = NewListMap(c.s, ol)
	}
	return c.listMap.Get(nl[i])
}

// DeepEqual reports whether the new value equals the old one (memoized; list-map items compared
// through their correlated old items, so a reordered list-map is equal).
func (c *Correlated) DeepEqual() (res bool) {
	if c == nil {
		return false
	}
	if c.eq != nil {
		return *c.eq
	}
	defer func() { c.eq = &res }()
	if c.new == nil && c.old == nil {
		return true
	}
	if c.new == nil || c.old == nil {
		return false
	}
	oa, oIsA := c.old.([]any)
	na, nIsA := c.new.([]any)
	om, oIsM := c.old.(map[string]any)
	nm, nIsM := c.new.(map[string]any)
	if oIsA != nIsA || oIsM != nIsM {
		return false
	}
	switch {
	case oIsA:
		if len(oa) != len(na) {
			return false
		}
		for i := range na {
			ch := c.Index(i)
			if ch == nil {
				if c.listMap == nil {
					return value.EqualNilDistinct(oa, na)
				}
				return false
			}
			if !ch.DeepEqual() {
				return false
			}
		}
		return true
	case oIsM:
		if len(om) != len(nm) {
			return false
		}
		for k := range nm {
			ch := c.Key(k)
			if ch == nil || !ch.DeepEqual() {
				return false
			}
		}
		return true
	}
	return value.EqualNilDistinct(c.old, c.new)
}

// ListMap finds, among the old items of a list-map, the one with the same key as a new item (the
// apiserver's MakeMapList: indexed lazily, the first item of a key wins).
type ListMap struct {
	keys     []string
	keyed    map[any]any
	unkeyed  []any
	disabled bool
}

// NewListMap indexes old items of list-map schema s; for any other schema Get always answers nil.
func NewListMap(s *Structural, old []any) *ListMap {
	if s == nil || s.Type != "array" || s.XListType != "map" || len(s.XListMapKeys) == 0 || len(old) == 0 {
		return &ListMap{disabled: true}
	}
	return &ListMap{keys: s.XListMapKeys, keyed: map[any]any{}, unkeyed: old}
}

// Get returns the old item with item's key, or nil.
func (m *ListMap) Get(item any) any {
	if m == nil || m.disabled {
		return nil
	}
	obj, ok := item.(map[string]any)
	if !ok {
		return nil
	}
	key, ok := listMapKey(m.keys, obj)
	if !ok {
		return nil
	}
	if match, ok := m.keyed[key]; ok {
		return match
	}
	for len(m.unkeyed) > 0 {
		it := m.unkeyed[0]
		m.unkeyed = m.unkeyed[1:]
		mi, ok := it.(map[string]any)
		if !ok {
			continue
		}
		ik, ok := listMapKey(m.keys, mi)
		if !ok {
			continue
		}
		if _, exists := m.keyed[ik]; !exists {
			m.keyed[ik] = mi
		}
		if ik == key {
			return mi
		}
	}
	return nil
}

// listMapKey is the correlation key of a list-map item (cel/common's key strategies).
func listMapKey(keys []string, obj map[string]any) (any, bool) {
	if len(keys) == 1 {
		v, ok := obj[keys[0]]
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
	for _, k := range keys {
		v, ok := obj[k]
		if !ok {
			return nil, false
		}
		switch t := v.(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", t)
		case float64:
			fmt.Fprintf(&b, "\x00%f", t)
		case int64:
			fmt.Fprintf(&b, "\x00%d", t)
		case string:
			fmt.Fprintf(&b, "\x00%q", t)
		default:
			return nil, false
		}
	}
	return b.String(), true
}
