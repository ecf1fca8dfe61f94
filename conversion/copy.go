package conversion

import (
	"fmt"

	"github.com/writepath/writepath/internal/value"
)

// copyObject deep-copies an object of the object model: the copy the apiserver's safe converter
// makes before converting. It is value.DeepCopyMap without the path bookkeeping (conversion
// copies every object it converts, so this is its hot path); errors name no path.
func copyObject(m map[string]any) (map[string]any, error) {
	return copyMap(m, 0)
}

func copyMap(m map[string]any, depth int) (map[string]any, error) {
	if depth >= value.MaxDepth {
		return nil, fmt.Errorf("value nested deeper than %d levels", value.MaxDepth)
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		switch t := e.(type) {
		case nil, bool, int64, float64, string:
			out[k] = t
		default:
			c, err := copyValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
	}
	return out, nil
}

func copyValue(v any, depth int) (any, error) {
	switch t := v.(type) {
	case nil, bool, int64, float64, string:
		return t, nil
	case map[string]any:
		if t == nil {
			return map[string]any(nil), nil
		}
		return copyMap(t, depth)
	case []any:
		if t == nil {
			return []any(nil), nil
		}
		if depth >= value.MaxDepth {
			return nil, fmt.Errorf("value nested deeper than %d levels", value.MaxDepth)
		}
		out := make([]any, len(t))
		for i, e := range t {
			c, err := copyValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("value of type %T is not in the object model", v)
}
