package schema

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
)

// Default returns a copy of obj with the `default` values of s filled in, like apiextensions'
// defaulting.Default: a missing field with a default gets it; a null field gets it too unless the
// field is nullable; list items and additionalProperties values that are null (and not nullable)
// get the items' / values' default; defaults are applied inside default values as well. obj is
// not modified.
func Default(obj any, s *Structural) any {
	out := value.Clone(obj)
	defaultInPlace(out, s)
	return out
}

func isNonNullableNull(x any, s *Structural) bool {
	return x == nil && s != nil && !s.Nullable
}

func defaultInPlace(x any, s *Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, found := x[k]; !found || isNonNullableNull(v, prop) {
				x[k] = value.Clone(prop.Default)
			}
		}
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				defaultInPlace(v, prop)
			} else if s.AdditionalProperties != nil {
				ap := s.AdditionalProperties.Structural
				if isNonNullableNull(v, ap) {
					x[k] = value.Clone(ap.Default)
					v = x[k]
				}
				defaultInPlace(v, ap)
			}
		}
	case []any:
		for i := range x {
			if isNonNullableNull(x[i], s.Items) {
				x[i] = value.Clone(s.Items.Default)
			}
			defaultInPlace(x[i], s.Items)
		}
	}
}

// hasDefaults reports whether any node of s has a default (Default is a no-op otherwise).
func hasDefaults(s *Structural, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(p, depth+1) {
			return true
		}
	}
	return hasDefaults(s.Items, depth+1) || hasDefaults(s.AdditionalPropertiesSchema(), depth+1)
}

// ---- pruning of default values (defaulting.PruneDefaults) ----

// pathStep is one step from the root of a resource to a schema node: a property name, "*" for
// additionalProperties, or an array index (isIndex).
type pathStep struct {
	key     string
	isIndex bool
}

// steps is a list of pathSteps kept as a node per level pointing at its parent, so that a walk
// extends it in O(1) (a slice copied at each level costs the square of the depth); slice renders
// it, root first, where a default needs it. nil is the empty list.
type steps struct {
	parent *steps
	step   pathStep
}

func (s *steps) then(st pathStep) *steps { return &steps{parent: s, step: st} }

func (s *steps) slice() []pathStep {
	var out []pathStep
	for n := s; n != nil; n = n.parent {
		out = append(out, n.step)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// copyStructural returns a deep copy of the node tree of s (leaf values such as defaults and
// enums are shared; they are never mutated).
func copyStructural(s *Structural) *Structural {
	if s == nil {
		return nil
	}
	c := *s
	c.Items = copyStructural(s.Items)
	if s.Properties != nil {
		c.Properties = make(map[string]*Structural, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = copyStructural(v)
		}
	}
	if s.AdditionalProperties != nil {
		ap := *s.AdditionalProperties
		ap.Structural = copyStructural(ap.Structural)
		c.AdditionalProperties = &ap
	}
	return &c
}

// PruneDefaults returns a copy of s whose default values are pruned (and their embedded metadata
// coerced) as if each default were placed in an object at its position, like the apiserver does
// when it serves a CRD version. It fails if a default at the root is not an object.
func PruneDefaults(s *Structural) (*Structural, error) {
	if !hasDefaults(s, 0) {
		return s, nil
	}
	c := copyStructural(s)
	if err := pruneDefaults(c, c, nil); err != nil {
		return nil, err
	}
	return c, nil
}

func pruneDefaults(root, s *Structural, at *steps) error {
	if s == nil {
		return nil
	}
	if s.Default != nil {
		path := at.slice()
		obj, err := surround(s.Default, path)
		if err != nil {
			return fmt.Errorf("failed to prune default value: %v", err)
		}
		c := &coercer{dropInvalid: true}
		rootS := root
		if !rootS.XEmbeddedResource {
			r := *rootS
			r.XEmbeddedResource = true
			rootS = &r
		}
		if ferr := c.coerce(field.Path{}, obj, rootS); ferr != nil {
			return fmt.Errorf("failed to prune default value: %v", ferr)
		}
		pruneInPlace(obj, root, true, false)
		v, _, err := extract(obj, path)
		if err != nil {
			return fmt.Errorf("failed to prune default value: %v", err)
		}
		if !reflect.DeepEqual(v, s.Default) {
			s.Default = v
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		if err := pruneDefaults(root, s.AdditionalProperties.Structural, at.then(pathStep{key: "*"})); err != nil {
			return err
		}
	}
	if s.Items != nil {
		if err := pruneDefaults(root, s.Items, at.then(pathStep{isIndex: true})); err != nil {
			return err
		}
	}
	for _, k := range s.PropertyNames() {
		if err := pruneDefaults(root, s.Properties[k], at.then(pathStep{key: k})); err != nil {
			return err
		}
	}
	return nil
}

// surround places a deep copy of v at path inside a fresh object.
func surround(v any, path []pathStep) (map[string]any, error) {
	x := value.Clone(v)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].isIndex {
			x = []any{x}
		} else {
			x = map[string]any{path[i].key: x}
		}
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, errors.New("object root default value must be of object type")
	}
	return m, nil
}

// extract reads back the value at path, with the apiserver's accessor errors.
func extract(obj map[string]any, path []pathStep) (any, bool, error) {
	var x any = obj
	prefix := ""
	for _, st := range path {
		if st.isIndex {
			l, ok := x.([]any)
			if !ok {
				return nil, false, fmt.Errorf("%s[] must be of array type", prefix)
			}
			if len(l) == 0 {
				return nil, false, nil
			}
			x = l[0]
			prefix += "[]"
		} else {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, false, fmt.Errorf("%s.%s must be of object type", prefix, st.key)
			}
			v, found := m[st.key]
			if !found {
				return nil, false, nil
			}
			x = v
			prefix += "." + st.key
		}
	}
	return x, true, nil
}
