package value

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Element is one step of a Path: a map key or a list index. The zero value is the key "".
type Element struct {
	key     string
	index   int
	isIndex bool
}

// Key returns the Element that selects the map entry k.
func Key(k string) Element { return Element{key: k} }

// Index returns the Element that selects list item i.
func Index(i int) Element { return Element{index: i, isIndex: true} }

// IsIndex reports whether e selects a list item.
func (e Element) IsIndex() bool { return e.isIndex }

// KeyName returns the map key e selects ("" for an index).
func (e Element) KeyName() string { return e.key }

// IndexValue returns the list index e selects (0 for a key).
func (e Element) IndexValue() int { return e.index }

// Path locates a value inside an object: a sequence of map keys and list indices, outermost
// first. The empty Path is the root. Functions of this package copy a Path before keeping it.
type Path []Element

// NewPath returns a Path of map keys, e.g. NewPath("spec", "replicas").
func NewPath(keys ...string) Path {
	p := make(Path, len(keys))
	for i, k := range keys {
		p[i] = Key(k)
	}
	return p
}

// Key returns a new Path extended by the map key k; p is not modified.
func (p Path) Key(k string) Path { return append(p.clone(), Key(k)) }

// Index returns a new Path extended by the list index i; p is not modified.
func (p Path) Index(i int) Path { return append(p.clone(), Index(i)) }

func (p Path) clone() Path {
	if p == nil {
		return nil
	}
	return slices.Clip(slices.Clone(p))
}

// String renders p like apimachinery's field.Path: keys joined by dots, indices in brackets,
// e.g. "spec.containers[0].image". The root renders as "".
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if e.isIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.key)
	}
	return b.String()
}

// PathError reports a path step that does not fit the value it is applied to: a key applied to
// a non-map, an index applied to a non-list, or an index out of range for Set.
type PathError struct {
	// Path is the prefix of the requested path up to and including the step that failed.
	Path Path
	// Detail says what was found instead.
	Detail string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("value: %s: %s", e.Path, e.Detail)
}

// StatusCode reports 400: a path that does not fit the object is a bad request
// (for example a patch addressing a missing list item).
func (e *PathError) StatusCode() int { return 400 }

// Reason reports "BadRequest".
func (e *PathError) Reason() string { return "BadRequest" }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64:
		return "int64"
	case float64:
		return "float64"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Get returns the value at p inside v. found is false when a key is absent or an index is out
// of range; err is a *PathError when a step does not fit the value's type (a key on a list, an
// index on a string, ...). The result aliases v: copy it with DeepCopy before modifying it.
func Get(v any, p Path) (result any, found bool, err error) {
	cur := v
	for i, e := range p {
		if e.isIndex {
			l, ok := cur.([]any)
			if !ok {
				return nil, false, &PathError{Path: p[:i+1].clone(), Detail: "expected a list, found " + typeName(cur)}
			}
			if e.index < 0 || e.index >= len(l) {
				return nil, false, nil
			}
			cur = l[e.index]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, &PathError{Path: p[:i+1].clone(), Detail: "expected a map, found " + typeName(cur)}
		}
		next, ok := m[e.key]
		if !ok {
			return nil, false, nil
		}
		cur = next
	}
	return cur, true, nil
}

// Set returns a new value equal to v with x stored at p. Missing map keys along p are created
// as empty maps (like unstructured.SetNestedField); a missing or null intermediate followed by
// an index step, or an index out of range, is a *PathError. v is never modified: the maps and
// lists along p (the spine) are copied, everything else is shared with v, and x is stored as
// given (not copied). Treat the result as sharing structure with both v and x. An empty p
// returns x.
func Set(v any, p Path, x any) (any, error) {
	return set(v, p, 0, x)
}

func set(cur any, p Path, i int, x any) (any, error) {
	if i == len(p) {
		return x, nil
	}
	e := p[i]
	if e.isIndex {
		l, ok := cur.([]any)
		if !ok {
			return nil, &PathError{Path: p[:i+1].clone(), Detail: "expected a list, found " + typeName(cur)}
		}
		if e.index < 0 || e.index >= len(l) {
			return nil, &PathError{Path: p[:i+1].clone(), Detail: fmt.Sprintf("index out of range (list length %d)", len(l))}
		}
		child, err := set(l[e.index], p, i+1, x)
		if err != nil {
			return nil, err
		}
		out := slices.Clone(l)
		out[e.index] = child
		return out, nil
	}
	var m map[string]any
	switch t := cur.(type) {
	case map[string]any:
		m = t
	case nil:
		// A missing or null intermediate becomes an empty map, as SetNestedField does.
	default:
		return nil, &PathError{Path: p[:i+1].clone(), Detail: "expected a map, found " + typeName(cur)}
	}
	child, err := set(m[e.key], p, i+1, x)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m)+1)
	maps.Copy(out, m)
	out[e.key] = child
	return out, nil
}

// SetMap is Set for an object root: it returns the new object. An empty p is a *PathError
// because it would replace the object itself.
func SetMap(obj map[string]any, p Path, x any) (map[string]any, error) {
	if len(p) == 0 {
		return nil, &PathError{Path: Path{}, Detail: "cannot replace the root object"}
	}
	out, err := Set(obj, p, x)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// Remove returns a new value equal to v without the element at p: a map entry is deleted, a
// list item is cut out (later items shift down). removed is false, and v itself is returned,
// when nothing is at p. v is never modified; only the spine along p is copied. An empty p is a
// *PathError (the root cannot be removed), as is a step that does not fit the value's type.
func Remove(v any, p Path) (result any, removed bool, err error) {
	if len(p) == 0 {
		return nil, false, &PathError{Path: Path{}, Detail: "cannot remove the root"}
	}
	return remove(v, p, 0)
}

func remove(cur any, p Path, i int) (any, bool, error) {
	e := p[i]
	last := i == len(p)-1
	if e.isIndex {
		l, ok := cur.([]any)
		if !ok {
			return nil, false, &PathError{Path: p[:i+1].clone(), Detail: "expected a list, found " + typeName(cur)}
		}
		if e.index < 0 || e.index >= len(l) {
			return cur, false, nil
		}
		if last {
			out := make([]any, 0, len(l)-1)
			out = append(out, l[:e.index]...)
			out = append(out, l[e.index+1:]...)
			return out, true, nil
		}
		child, removed, err := remove(l[e.index], p, i+1)
		if err != nil {
			return nil, false, err
		}
		if !removed {
			return cur, false, nil
		}
		out := slices.Clone(l)
		out[e.index] = child
		return out, true, nil
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, false, &PathError{Path: p[:i+1].clone(), Detail: "expected a map, found " + typeName(cur)}
	}
	next, ok := m[e.key]
	if !ok {
		return cur, false, nil
	}
	if last {
		out := make(map[string]any, len(m))
		for k, v := range m {
			if k != e.key {
				out[k] = v
			}
		}
		return out, true, nil
	}
	child, removed, err := remove(next, p, i+1)
	if err != nil {
		return nil, false, err
	}
	if !removed {
		return cur, false, nil
	}
	out := maps.Clone(m)
	out[e.key] = child
	return out, true, nil
}

// Walk calls fn for v and every value inside it, depth first, parents before children, map keys
// in sorted order, list items in order. The Path passed to fn is only valid during the call
// (clone it to keep it). If fn returns SkipChildren for a map or list, its contents are not
// visited; any other non-nil error stops the walk and is returned.
func Walk(v any, fn func(p Path, v any) error) error {
	err := walk(v, make(Path, 0, 8), fn)
	if err == SkipChildren {
		return nil
	}
	return err
}

// SkipChildren is returned by a Walk callback to skip the contents of the current value.
var SkipChildren = skipChildren{}

type skipChildren struct{}

func (skipChildren) Error() string { return "value: skip children" }

func walk(v any, p Path, fn func(Path, any) error) error {
	if err := fn(p, v); err != nil {
		if err == SkipChildren {
			return nil
		}
		return err
	}
	switch t := v.(type) {
	case []any:
		if len(p) >= MaxDepth {
			return &DepthError{Path: p.clone()}
		}
		for i, e := range t {
			if err := walk(e, append(p, Index(i)), fn); err != nil {
				return err
			}
		}
	case map[string]any:
		if len(p) >= MaxDepth {
			return &DepthError{Path: p.clone()}
		}
		for _, k := range sortedKeys(t) {
			if err := walk(t[k], append(p, Key(k)), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
