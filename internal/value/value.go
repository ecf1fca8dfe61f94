package value

import (
	"fmt"
	"math"
	"reflect"
)

// TypeError reports a Go value that is not part of the object model (see the package
// documentation), found at Path.
type TypeError struct {
	// Path locates the offending value; empty for the root.
	Path Path
	// Type is the Go type that was found, as fmt's %T prints it.
	Type string
}

func (e *TypeError) Error() string {
	if len(e.Path) == 0 {
		return fmt.Sprintf("value: unsupported type %s", e.Type)
	}
	return fmt.Sprintf("value: %s: unsupported type %s", e.Path, e.Type)
}

// StatusCode reports 500: an unsupported Go type in an object is a programming error of the
// caller, not bad input from a client.
func (e *TypeError) StatusCode() int { return 500 }

// Reason reports "InternalError", the apiserver's reason for a 500.
func (e *TypeError) Reason() string { return "InternalError" }

// MaxDepth bounds the nesting (maps and lists) that Validate, DeepCopy, Equal and Walk follow:
// ten times what the apiserver's decoders accept, so no decoded object comes near it, while a
// cyclic or absurdly deep value built in code yields an error instead of exhausting the stack.
const MaxDepth = 100000

// DepthError reports a value nested deeper than MaxDepth, or a cycle.
type DepthError struct {
	// Path is the first MaxDepth steps of the offending branch.
	Path Path
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("value: nested deeper than %d levels (or cyclic)", MaxDepth)
}

// StatusCode reports 500: such a value was built by a caller, not decoded from a client.
func (e *DepthError) StatusCode() int { return 500 }

// Reason reports "InternalError".
func (e *DepthError) Reason() string { return "InternalError" }

// Validate reports whether v holds only object-model values: nil, bool, int64, float64 (finite),
// string, []any and map[string]any, recursively. It returns a *TypeError naming the first
// offending value in a depth-first walk with sorted map keys, so the answer is deterministic.
func Validate(v any) error {
	return validate(v, nil)
}

func validate(v any, p Path) error {
	switch t := v.(type) {
	case nil, bool, int64, string:
		return nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return &TypeError{Path: p.clone(), Type: fmt.Sprintf("float64(%v)", t)}
		}
		return nil
	case []any:
		if len(p) >= MaxDepth {
			return &DepthError{Path: p.clone()}
		}
		for i, e := range t {
			if err := validate(e, append(p, Index(i))); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if len(p) >= MaxDepth {
			return &DepthError{Path: p.clone()}
		}
		for _, k := range sortedKeys(t) {
			if err := validate(t[k], append(p, Key(k))); err != nil {
				return err
			}
		}
		return nil
	default:
		return &TypeError{Path: p.clone(), Type: reflect.TypeOf(v).String()}
	}
}

// DeepCopy returns a fresh copy of v sharing no maps or slices with it. Strings are immutable
// in Go and are shared. A value outside the object model yields a *TypeError and a nil result;
// DeepCopy never panics.
func DeepCopy(v any) (any, error) {
	if c, ok := fastCopy(v, 0); ok {
		return c, nil
	}
	return deepCopy(v, nil)
}

// DeepCopyMap is DeepCopy for an object. A nil map copies to nil.
func DeepCopyMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	if c, ok := fastCopyMap(m, 0); ok {
		return c, nil
	}
	out, err := deepCopyMap(m, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Clone returns a copy of v whose maps and lists are fresh; every other value, including one
// outside the object model (a decoded quantity, say), is shared as it is, and nil maps and lists
// stay nil. It is DeepCopy for values known to be well formed or holding immutable foreign
// leaves; it follows any depth.
func Clone(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = Clone(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}

// FromGoMap deep-copies a map into the object model, turning every integer kind into int64 and
// float32 into float64 (callers may build objects with Go's other number types), so results
// never share memory with inputs and hold only the model's types. It does more than
// DeepCopyMap, which refuses such numbers.
func FromGoMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = FromGo(v)
	}
	return out
}

// FromGo is FromGoMap for any value.
func FromGo(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return FromGoMap(t)
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = FromGo(x)
		}
		return out
	case int:
		return int64(t)
	case int32:
		return int64(t)
	case int16:
		return int64(t)
	case int8:
		return int64(t)
	case uint8:
		return int64(t)
	case uint16:
		return int64(t)
	case uint32:
		return int64(t)
	case uint64:
		return int64(t)
	case uint:
		return int64(t)
	case float32:
		return float64(t)
	}
	return v
}

// fastCopy is deepCopy without the path bookkeeping (copying is on every write's hot path);
// ok is false where deepCopy fails, which then runs for the error and its path.
func fastCopy(v any, depth int) (any, bool) {
	switch t := v.(type) {
	case nil, bool, int64, float64, string:
		return t, true
	case []any:
		if t == nil {
			return []any(nil), true
		}
		if depth >= MaxDepth {
			return nil, false
		}
		out := make([]any, len(t))
		for i, e := range t {
			c, ok := fastCopy(e, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case map[string]any:
		if t == nil {
			return map[string]any(nil), true
		}
		return fastCopyMap(t, depth)
	}
	return nil, false
}

func fastCopyMap(m map[string]any, depth int) (map[string]any, bool) {
	if depth >= MaxDepth {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		switch t := e.(type) {
		case nil, bool, int64, float64, string:
			out[k] = t
			continue
		}
		c, ok := fastCopy(e, depth+1)
		if !ok {
			return nil, false
		}
		out[k] = c
	}
	return out, true
}

func deepCopy(v any, p Path) (any, error) {
	switch t := v.(type) {
	case nil, bool, int64, float64, string:
		return t, nil
	case []any:
		if t == nil {
			return []any(nil), nil
		}
		if len(p) >= MaxDepth {
			return nil, &DepthError{Path: p.clone()}
		}
		out := make([]any, len(t))
		for i, e := range t {
			c, err := deepCopy(e, append(p, Index(i)))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		if t == nil {
			return map[string]any(nil), nil
		}
		return deepCopyMap(t, p)
	default:
		return nil, &TypeError{Path: p.clone(), Type: reflect.TypeOf(v).String()}
	}
}

func deepCopyMap(m map[string]any, p Path) (map[string]any, error) {
	if len(p) >= MaxDepth {
		return nil, &DepthError{Path: p.clone()}
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		c, err := deepCopy(e, append(p, Key(k)))
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// Equal reports whether a and b are the same object-model value, with the semantics of
// apimachinery's equality.Semantic.DeepEqual over unstructured content:
//   - int64(1) and float64(1) are different (different dynamic types);
//   - a nil and an empty map[string]any are equal, and so are a nil and an empty []any;
//   - an untyped nil equals only an untyped nil;
//   - float64 values compare with ==, so NaN is unequal to itself and -0 equals 0.
//
// Values outside the object model are never equal to anything, including themselves, and
// neither are values nested deeper than MaxDepth.
func Equal(a, b any) bool {
	return equal(a, b, 0, false)
}

// EqualNilDistinct is Equal with a nil map or list different from an empty one: the store's
// DeepEqualWithNilDifferentFromEmpty for unstructured objects (whether an update changed
// anything).
func EqualNilDistinct(a, b any) bool {
	return equal(a, b, 0, true)
}

func equal(a, b any, depth int, nilDistinct bool) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || depth >= MaxDepth || nilDistinct && (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i], depth+1, nilDistinct) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || depth >= MaxDepth || nilDistinct && (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv, depth+1, nilDistinct) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
