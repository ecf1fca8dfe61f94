package apply

import (
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// fromUnstructured is pt.FromUnstructured(obj, opts...). When validNoErrors proves that SMD's
// validation finds nothing, the typed value is made without running it: AsTyped returns the
// TypedValue it builds (the value, the type reference, the schema) once Validate passes, and
// AsTypedUnvalidated builds the same one. Otherwise SMD validates, with its own errors.
func fromUnstructured(pt typed.ParseableType, obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	allowDuplicates, known := false, true
	for _, o := range opts {
		if o == typed.AllowDuplicates {
			allowDuplicates = true
		} else {
			known = false
		}
	}
	if known && pt.Schema != nil && validNoErrors(pt.Schema, pt.TypeRef, obj, allowDuplicates) {
		return typed.AsTypedUnvalidated(value.NewValueInterface(obj), pt.Schema, pt.TypeRef), nil
	}
	return pt.FromUnstructured(obj, opts...)
}

// validNoErrors reports whether TypedValue.Validate of v (an object-model value) typed by (sc,
// tr) returns no error: SMD v6.4.2's validatingObjectWalker, read-only (the same resolution,
// atom deduction and checks, no value wrappers, walkers or path elements built). It answers
// false whenever it is not sure: a value of a Go type other than the object model's (nil,
// bool, int64, float64, string, map[string]any, []any), any error SMD would report, and an
// associative list of two items or more when duplicates are not allowed (duplicate detection
// compares path elements; SMD decides those).
func validNoErrors(sc *schema.Schema, tr schema.TypeRef, v any, allowDuplicates bool) bool {
	a, ok := sc.Resolve(tr)
	if !ok {
		return false // schema error: no type found
	}
	// deduceAtom: the part of the atom that matches the value's kind, when it has one.
	switch v.(type) {
	case nil:
	case bool, int64, float64, string:
		if a.Scalar != nil {
			a = schema.Atom{Scalar: a.Scalar}
		}
	case []any:
		if a.List != nil {
			a = schema.Atom{List: a.List}
		}
	case map[string]any:
		if a.Map != nil {
			a = schema.Atom{Map: a.Map}
		}
	default:
		return false
	}
	// handleAtom: map first, then scalar, then list.
	switch {
	case a.Map != nil:
		return validMap(sc, a.Map, v, allowDuplicates)
	case a.Scalar != nil:
		return validScalar(*a.Scalar, v)
	case a.List != nil:
		return validList(sc, a.List, v, allowDuplicates)
	}
	return false // schema error: invalid atom
}

// validScalar is validateScalar: null is valid for every scalar type.
func validScalar(t schema.Scalar, v any) bool {
	if v == nil {
		return true
	}
	switch t {
	case schema.Numeric:
		switch v.(type) {
		case int64, float64:
			return true
		}
	case schema.String:
		_, ok := v.(string)
		return ok
	case schema.Boolean:
		_, ok := v.(bool)
		return ok
	case schema.Untyped:
		switch v.(type) {
		case int64, float64, string, bool:
			return true
		}
	}
	return false
}

// validMap is doMap and visitMapItems: null is valid; a field the map type does not declare is
// an error unless the type has an element type.
func validMap(sc *schema.Schema, t *schema.Map, v any, allowDuplicates bool) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false // expected map
	}
	for k, x := range m {
		tr := t.ElementType
		if sf, ok := t.FindField(k); ok {
			tr = sf.Type
		} else if (t.ElementType == schema.TypeRef{}) {
			return false // field not declared in schema
		}
		if !validNoErrors(sc, tr, x, allowDuplicates) {
			return false
		}
	}
	return true
}

// validList is doList and visitListItems: null is valid; an item of an associative list must
// give a path element (listItemToPathElement) before it is validated as the element type.
func validList(sc *schema.Schema, t *schema.List, v any, allowDuplicates bool) bool {
	if v == nil {
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false // expected list
	}
	associative := t.ElementRelationship == schema.Associative
	if associative && !allowDuplicates && len(l) > 1 {
		return false
	}
	for _, x := range l {
		if associative && !validListItem(sc, t, x) {
			return false
		}
		if !validNoErrors(sc, t.ElementType, x, allowDuplicates) {
			return false
		}
	}
	return true
}

// validListItem reports whether listItemToPathElement succeeds on an item of the associative
// list t: a map holding at least one of the keys (or with a default for one) when the list has
// keys (keyedAssociativeListItemToPathElement), a scalar otherwise (setItemToPathElement).
func validListItem(sc *schema.Schema, t *schema.List, x any) bool {
	if len(t.Keys) == 0 {
		switch x.(type) {
		case bool, int64, float64, string:
			return true
		}
		return false // a map, a list or null
	}
	m, ok := x.(map[string]any)
	if !ok {
		return false // null or not a map
	}
	found := false
	for _, k := range t.Keys {
		if _, ok := m[k]; ok {
			found = true
			continue
		}
		// getAssociativeKeyDefault: an error when the element type is not a map.
		a, ok := sc.Resolve(t.ElementType)
		if !ok || a.Map == nil {
			return false
		}
		if f, _ := a.Map.FindField(k); f.Default != nil {
			found = true
		}
	}
	return found // false: omits all key fields
}
