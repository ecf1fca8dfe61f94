package versions

import (
	"slices"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
)

// maxChanged bounds how many changed paths an explanation lists.
const maxChanged = 5

// differ walks two values of the object model and records the paths where they
// differ, under the equality of the strategy (typed or unstructured). The
// current path is a stack of segments, rendered only when a difference is
// recorded.
type differ struct {
	unstructured bool
	// first stops the walk at the first change found (the caller needs whether, not where).
	first   bool
	ignore  []string
	changed []string
	more    bool
	stack   []field.Segment
}

// at sets the current path to a dotted path of field names.
func (d *differ) at(dotted string) {
	d.stack = d.stack[:0]
	for _, part := range strings.Split(dotted, ".") {
		d.stack = append(d.stack, field.Segment{Kind: field.SegmentChild, Name: part})
	}
}

// path renders the current path.
func (d *differ) path() field.Path {
	var p field.Path
	for _, s := range d.stack {
		switch s.Kind {
		case field.SegmentChild:
			p = p.Child(s.Name)
		case field.SegmentIndex:
			p = p.Index(s.Index)
		default:
			p = p.Key(s.Name)
		}
	}
	return p
}

func (d *differ) add() {
	if len(d.changed) == maxChanged {
		d.more = true
		return
	}
	if len(d.stack) == 0 {
		d.changed = append(d.changed, "<root>")
		return
	}
	d.changed = append(d.changed, d.path().String())
}

// ignored reports whether the current path is one of the ignored paths.
func (d *differ) ignored() bool {
	return len(d.ignore) > 0 && slices.Contains(d.ignore, d.path().String())
}

// last returns the last segment of the current path.
func (d *differ) last() (field.Segment, bool) {
	if len(d.stack) == 0 {
		return field.Segment{}, false
	}
	return d.stack[len(d.stack)-1], true
}

// childSegment is the segment of map key k under the current path: a subscript
// (metadata.annotations[example.com/x]) under a map field or for a key that is
// not an identifier, as apimachinery renders them; a field name otherwise.
func (d *differ) childSegment(k string) field.Segment {
	if last, ok := d.last(); ok && ((last.Kind == field.SegmentChild && mapFields[last.Name]) || strings.ContainsAny(k, "./[] ") || k == "") {
		return field.Segment{Kind: field.SegmentKey, Name: k}
	}
	return field.Segment{Kind: field.SegmentChild, Name: k}
}

// inMapField reports whether the current path ends in a field that holds a
// string-keyed map.
func (d *differ) inMapField() bool {
	last, ok := d.last()
	return ok && last.Kind == field.SegmentChild && mapFields[last.Name]
}

// atQuantity reports whether the current path names a Quantity in a built-in
// type.
func (d *differ) atQuantity() bool {
	n := len(d.stack)
	if n == 0 {
		return false
	}
	last := d.stack[n-1]
	if last.Kind == field.SegmentChild {
		return quantityFields[last.Name]
	}
	return last.Kind == field.SegmentKey && n >= 2 && d.stack[n-2].Kind == field.SegmentChild && quantityMaps[d.stack[n-2].Name]
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

// diff compares a and b at the current path. present* say whether the values
// exist at all (a map key can be absent, which unstructured equality tells
// from null).
func (d *differ) diff(a, b any, presentA, presentB bool) {
	if (d.first && len(d.changed) > 0) || d.ignored() {
		return
	}
	if !d.unstructured {
		if emptyTyped(a) && emptyTyped(b) {
			return
		}
	} else if presentA != presentB {
		d.add()
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok && !d.unstructured && b == nil {
			// A typed struct or map decoded from nothing: compare field by field with an
			// empty one ({requests: {}} equals absent resources).
			y, ok = map[string]any{}, true
		}
		if !ok {
			if !d.unstructured && emptyTyped(x) && emptyTyped(b) {
				return
			}
			d.add()
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
		goMap := !d.unstructured && d.inMapField()
		for _, k := range keys {
			va, oka := x[k]
			vb, okb := y[k]
			d.stack = append(d.stack, d.childSegment(k))
			if goMap && oka != okb {
				d.add()
			} else {
				d.diff(va, vb, oka, okb)
			}
			d.stack = d.stack[:len(d.stack)-1]
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			d.add()
			return
		}
		for i := range x {
			d.stack = append(d.stack, field.Segment{Kind: field.SegmentIndex, Index: i})
			d.diff(x[i], y[i], true, true)
			d.stack = d.stack[:len(d.stack)-1]
		}
	default:
		if !d.unstructured && d.atQuantity() {
			if eq, ok := quantityEqual(a, b); ok {
				if !eq {
					d.add()
				}
				return
			}
		}
		if !scalarEqual(a, b, d.unstructured) {
			d.add()
		}
	}
}

// mapFields are field names that hold string-keyed maps in the built-in types;
// their keys render as subscripts (metadata.labels[app]) as apimachinery does.
var mapFields = map[string]bool{
	"labels": true, "annotations": true, "matchLabels": true, "nodeSelector": true,
	"data": true, "stringData": true, "binaryData": true, "limits": true, "requests": true,
	"capacity": true, "allocatable": true, "hard": true, "used": true, "parameters": true,
}

func scalarEqual(a, b any, unstructured bool) bool {
	// A typed object holds numbers in Go fields of one type: an int64 1 and a
	// float64 1 decode alike. Unstructured equality compares dynamic types.
	if !unstructured {
		if fa, ok := number(a); ok {
			fb, ok := number(b)
			return ok && fa == fb
		}
	}
	return value.Equal(a, b)
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

// SemanticEqual reports whether a and b are equal as apimachinery's
// equality.Semantic.DeepEqual finds the built-in Go objects they decode into:
// absent, null, "", {} and [] are equal (nil and empty slices and maps, zero
// struct fields), numbers compare by value, and quantities under the fields
// that hold them (resources limits and requests, capacity, allocatable, hard,
// used, overhead, sizeLimit) compare by value, so "0.5" equals "500m". Keys of
// string-keyed maps (labels, limits, ...) must match: a key with an empty value
// differs from a missing key. Pass values rooted where the field names are
// known (a container, a pod spec), so that quantities are recognised. Neither
// input is modified.
func SemanticEqual(a, b any) bool {
	d := differ{}
	d.diff(a, b, true, true)
	return len(d.changed) == 0
}
