package patch

import (
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/internal/value"
)

// nodeValue converts a patched node into a fresh object-model value: what the
// apiserver's decoder reads back from the library's output (integers as int64,
// other numbers as float64).
func nodeValue(n *node) (any, error) {
	if n == nil {
		return nil, nil
	}
	switch n.form {
	case formObj:
		if n.obj == nil {
			return nil, nil
		}
		m := make(map[string]any, len(n.obj))
		for k, c := range n.obj {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case formArr:
		if n.arr == nil {
			return nil, nil
		}
		s := make([]any, len(n.arr))
		for i, c := range n.arr {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	}
	if n.fromVal {
		return value.RoundTripJSON(n.val)
	}
	if n.raw == nil {
		return nil, nil
	}
	return decodeJSON(n.raw)
}

// decodeJSON decodes one JSON value with integers preserved as int64.
func decodeJSON(data []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}
