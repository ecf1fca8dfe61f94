package admission

import (
	"math"

	"github.com/writepath/writepath/internal/value"
)

// maxDepth bounds the nesting the fast walk follows; deeper values take
// value's checked (and deterministic) path.
const maxDepth = 10000

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
