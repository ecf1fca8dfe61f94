package admission

import (
	"math"

	"github.com/writepath/writepath/internal/value"
)

// maxDepth bounds the nesting the fast paths walk; deeper values take
// value's checked (and deterministic) path.
const maxDepth = 10000

// copyObject deep-copies an object-model map. The fast path walks without
// sorting keys; any value outside the model (or too deep) falls back to
// value.DeepCopyMap for its deterministic error.
func copyObject(m map[string]any) (map[string]any, error) {
	if out, ok := fastCopyMap(m, 0); ok {
		return out, nil
	}
	return value.DeepCopyMap(m)
}

func fastCopyMap(m map[string]any, depth int) (map[string]any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		c, ok := fastCopy(v, depth+1)
		if !ok {
			return nil, false
		}
		out[k] = c
	}
	return out, true
}

func fastCopy(v any, depth int) (any, bool) {
	switch t := v.(type) {
	case nil, bool, int64, string:
		return t, true
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0)
	case map[string]any:
		if t == nil {
			return t, true
		}
		return fastCopyMap(t, depth)
	case []any:
		if t == nil {
			return t, true
		}
		if depth > maxDepth {
			return nil, false
		}
		out := make([]any, len(t))
		for i, x := range t {
			c, ok := fastCopy(x, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}

// validObject checks m holds only object-model values, as value.Validate
// does (which it calls for the error when the fast walk finds a problem).
func validObject(m map[string]any) error {
	if fastValid(m, 0) {
		return nil
	}
	return value.Validate(m)
}

func fastValid(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t := v.(type) {
	case nil, bool, int64, string:
		return true
	case float64:
		return !math.IsNaN(t) && !math.IsInf(t, 0)
	case map[string]any:
		for _, x := range t {
			if !fastValid(x, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, x := range t {
			if !fastValid(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
