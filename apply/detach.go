package apply

import (
	"fmt"
	"reflect"

	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// detachedObject is typedToObject for the result of a merge, copying only what needs copying.
// SMD builds a new map or list for every granular node it merges, but carries over the leaves
// (scalars, atomic maps and lists, empty ones) from its inputs as they are. The maps and lists
// of the inputs are collected by identity; the result's containers found among them are
// replaced by deep copies, the others (SMD's own) are kept and only their integers normalised
// as toModelMap does. The result then shares no container with the inputs, like a full copy
// (TestResultsShareNothingWithInputs), for a fraction of the allocations.
func detachedObject(tv *typed.TypedValue, inputs ...map[string]any) (map[string]any, error) {
	u := tv.AsValue().Unstructured()
	m, ok := u.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert value to unstructured for type %T", u)
	}
	seen := inputContainers{maps: make(map[uintptr]struct{}, 64), lists: make(map[*any]struct{}, 32)}
	for _, in := range inputs {
		seen.add(in)
	}
	if seen.hasMap(m) {
		return toModelMap(m), nil
	}
	seen.detachMap(m)
	return m, nil
}

// inputContainers holds the identities of the maps and non-empty lists of the inputs.
type inputContainers struct {
	maps  map[uintptr]struct{}
	lists map[*any]struct{}
}

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

func (s inputContainers) hasMap(m map[string]any) bool {
	_, ok := s.maps[mapID(m)]
	return ok
}

func (s inputContainers) add(v any) {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return
		}
		s.maps[mapID(t)] = struct{}{}
		for _, c := range t {
			s.add(c)
		}
	case []any:
		if len(t) == 0 {
			return
		}
		s.lists[&t[0]] = struct{}{}
		for _, c := range t {
			s.add(c)
		}
	}
}

// detach returns v made safe to own: a container of the inputs is deep-copied, an empty list
// replaced (it may share spare capacity), SMD's containers walked in place.
func (s inputContainers) detach(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		if s.hasMap(t) {
			return toModelMap(t)
		}
		s.detachMap(t)
		return t
	case []any:
		if t == nil {
			return t
		}
		if len(t) == 0 {
			return make([]any, 0)
		}
		if _, shared := s.lists[&t[0]]; shared {
			return toModel(t)
		}
		for i, c := range t {
			t[i] = s.detach(c)
		}
		return t
	}
	return toModel(v) // scalars: integers to int64, float32 to float64
}

func (s inputContainers) detachMap(m map[string]any) {
	for k, c := range m {
		switch c.(type) {
		case string, bool, int64, float64, nil:
			continue // nothing to own or normalise
		}
		m[k] = s.detach(c)
	}
}
