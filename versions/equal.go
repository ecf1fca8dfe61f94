package versions

import (
	"slices"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
)

// maxChanged bounds how many changed paths an explanation lists.
const maxChanged = 5

// differ walks two values of the object model and records the paths where they
// differ, under the equality of the strategy (typed or unstructured).
type differ struct {
	unstructured bool
	ignore       []string
	changed      []string
	more         bool
}

func (d *differ) add(p field.Path) {
	if len(d.changed) == maxChanged {
		d.more = true
		return
	}
	s := p.String()
	if p.IsEmpty() {
		s = "<root>"
	}
	d.changed = append(d.changed, s)
}

// ignored reports whether the dotted form of p is one of the ignored paths.
func (d *differ) ignored(p field.Path) bool {
	return len(d.ignore) > 0 && slices.Contains(d.ignore, p.String())
}

// emptyTyped reports whether v decodes into a Go zero value of a typed object
// for the purpose of apimachinery's semantic equality: absent, null, "", an
// empty map or an empty list.
func emptyTyped(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// number returns v as a float64 when it is a number of the object model.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// diff compares a and b at path p. present* say whether the values exist at
// all (a map key can be absent, which unstructured equality tells from null).
func (d *differ) diff(p field.Path, a, b any, presentA, presentB bool) {
	if d.ignored(p) {
		return
	}
	if !d.unstructured {
		if emptyTyped(a) && emptyTyped(b) {
			return
		}
	} else if presentA != presentB {
		d.add(p)
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			if !d.unstructured && emptyTyped(x) && emptyTyped(b) {
				return
			}
			d.add(p)
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		// In a typed object a Go map (labels, annotations, ...) tells a key
		// with an empty value from a missing key; a struct field does not.
		goMap := !d.unstructured && isMapField(p)
		for _, k := range keys {
			va, oka := x[k]
			vb, okb := y[k]
			if goMap && oka != okb {
				d.add(childPath(p, k))
				continue
			}
			d.diff(childPath(p, k), va, vb, oka, okb)
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			d.add(p)
			return
		}
		for i := range x {
			d.diff(p.Index(i), x[i], y[i], true, true)
		}
	default:
		if !d.unstructured && isQuantityPath(p) {
			if eq, ok := quantityEqual(a, b); ok {
				if !eq {
					d.add(p)
				}
				return
			}
		}
		if !scalarEqual(a, b, d.unstructured) {
			d.add(p)
		}
	}
}

// childPath renders map keys that are not identifiers as subscripts, the way
// apimachinery renders label keys: metadata.annotations[example.com/x].
func childPath(p field.Path, k string) field.Path {
	if p.IsEmpty() {
		return field.NewPath(k)
	}
	segs := p.Segments()
	if last := segs[len(segs)-1].Name; mapFields[last] || strings.ContainsAny(k, "./[] ") || k == "" {
		return p.Key(k)
	}
	return p.Child(k)
}

// mapFields are field names that hold string-keyed maps in the built-in types;
// their keys render as subscripts (metadata.labels[app]) as apimachinery does.
var mapFields = map[string]bool{
	"labels": true, "annotations": true, "matchLabels": true, "nodeSelector": true,
	"data": true, "stringData": true, "binaryData": true, "limits": true, "requests": true,
	"capacity": true, "allocatable": true, "hard": true, "used": true, "parameters": true,
}

// isMapField reports whether p ends in a field that holds a string-keyed map.
func isMapField(p field.Path) bool {
	segs := p.Segments()
	return len(segs) > 0 && segs[len(segs)-1].Kind == field.SegmentChild && mapFields[segs[len(segs)-1].Name]
}

func scalarEqual(a, b any, unstructured bool) bool {
	if unstructured {
		// reflect-style equality of interface values: types must match.
		switch x := a.(type) {
		case nil:
			return b == nil
		case bool:
			y, ok := b.(bool)
			return ok && x == y
		case string:
			y, ok := b.(string)
			return ok && x == y
		case int64:
			y, ok := b.(int64)
			return ok && x == y
		case float64:
			y, ok := b.(float64)
			return ok && x == y
		}
		return false
	}
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	return false
}

// lookup returns the value at a dotted path and whether it is present.
func lookup(obj map[string]any, dotted string) (any, bool) {
	var cur any = obj
	for _, part := range strings.Split(dotted, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[part]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// pathOf turns a dotted path into a field.Path.
func pathOf(dotted string) field.Path {
	parts := strings.Split(dotted, ".")
	return field.NewPath(parts[0], parts[1:]...)
}
