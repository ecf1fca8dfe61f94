package validation

import (
	"time"

	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

// The custom-decoded types whose semantic equality is not their JSON's.
const (
	goQuantity    = "k8s.io/apimachinery/pkg/api/resource.Quantity"
	goIntOrString = "k8s.io/apimachinery/pkg/util/intstr.IntOrString"
	goTime        = "k8s.io/apimachinery/pkg/apis/meta/v1.Time"
	goMicroTime   = "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime"
)

// goSemanticEqual is apimachinery's equality.Semantic.DeepEqual on the Go values of type t that
// a and b decode to: a nil pointer (absent or null) differs from a pointer to a zero value ({}),
// while an absent field that is not a pointer is its zero value; nil and empty slices and maps
// are equal; quantities compare by value, times by instant. Where t does not know a value (the
// zero GoType) the object model's semantic equality decides.
func goSemanticEqual(t gotypes.Type, a, b any) bool {
	if !t.Valid() {
		return semanticEqualQ(a, b)
	}
	if t.Pointer() {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		t = t.Deref()
	}
	switch t.CustomName() {
	case "":
	case goQuantity:
		qa, okA := qtyOrZero(a)
		qb, okB := qtyOrZero(b)
		if okA && okB {
			return qa.Cmp(qb) == 0
		}
		return value.Equal(a, b)
	case goIntOrString:
		return intOrStringOf(a) == intOrStringOf(b)
	case goTime, goMicroTime:
		ta, okA := timeOrZero(a)
		tb, okB := timeOrZero(b)
		if okA && okB {
			return ta.Equal(tb)
		}
		return value.Equal(a, b)
	default:
		return value.Equal(a, b)
	}
	switch t.Kind() {
	case "struct":
		ma, mb := mapOf(a), mapOf(b)
		for k, v := range ma {
			if ft := t.Field(k); ft.Valid() && !goSemanticEqual(ft, v, mb[k]) {
				return false
			}
		}
		for k, v := range mb {
			if _, ok := ma[k]; ok {
				continue
			}
			if ft := t.Field(k); ft.Valid() && !goSemanticEqual(ft, nil, v) {
				return false
			}
		}
		return true
	case "slice":
		if sa, ok := a.(string); ok { // []byte, base64 in JSON
			sb, _ := b.(string)
			return sa == sb
		}
		if sb, ok := b.(string); ok {
			return sb == "" && len(listOf(a)) == 0
		}
		la, lb := listOf(a), listOf(b)
		if len(la) != len(lb) {
			return false
		}
		e := t.Elem()
		for i := range la {
			if !goSemanticEqual(e, la[i], lb[i]) {
				return false
			}
		}
		return true
	case "map":
		ma, mb := mapOf(a), mapOf(b)
		if len(ma) != len(mb) {
			return false
		}
		e := t.Elem()
		for k, v := range ma {
			w, ok := mb[k]
			if !ok || !goSemanticEqual(e, v, w) {
				return false
			}
		}
		return true
	case "string":
		sa, _ := a.(string)
		sb, _ := b.(string)
		return sa == sb
	case "bool":
		ba, _ := a.(bool)
		bb, _ := b.(bool)
		return ba == bb
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return numberOrZero(a) == numberOrZero(b)
	}
	return value.Equal(a, b)
}

func qtyOrZero(v any) (quantity.Quantity, bool) {
	if v == nil {
		return quantity.FromInt64(0, quantity.DecimalSI), true
	}
	return qty(v)
}

// intOrStringValue is an intstr.IntOrString as a comparable value.
type intOrStringValue struct {
	isString bool
	i        int64
	s        string
}

func intOrStringOf(v any) intOrStringValue {
	switch x := v.(type) {
	case string:
		return intOrStringValue{isString: true, s: x}
	case int64:
		return intOrStringValue{i: int64(int32(x))}
	case float64:
		return intOrStringValue{i: int64(int32(x))}
	}
	return intOrStringValue{}
}

func timeOrZero(v any) (time.Time, bool) {
	s, _ := v.(string)
	if v == nil || s == "" {
		return time.Time{}, v == nil || s == ""
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

func numberOrZero(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// SemanticEqual is apimachinery's equality.Semantic.DeepEqual on the Go values that a and b
// decode to as the field at path of kind gvk's Go type (the whole object with no path), as
// goSemanticEqual compares them; where the table does not know the type, the object model's
// semantic equality decides. The admission plugins that compare objects use it.
func SemanticEqual(gvk schema.GroupVersionKind, a, b any, path ...string) bool {
	t, _ := gotypes.Of(gvk)
	for _, f := range path {
		t = t.Field(f)
	}
	return goSemanticEqual(t, a, b)
}

// goTypeAt is the Go type of the field at path in apps/v1-style kind group/kind's v1 type (the
// zero GoType when the table does not hold it).
func goTypeAt(group, kind string, path ...string) gotypes.Type {
	t, _ := gotypes.Of(schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind})
	for _, f := range path {
		t = t.Field(f)
	}
	return t
}
