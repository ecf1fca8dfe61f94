package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	kjson "sigs.k8s.io/json"
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
		return copyValue(n.val)
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

// copyValue deep-copies an object-model value the way a JSON round trip
// through encoding/json would read it back: a float64 that encodes as an
// integer becomes int64.
func copyValue(v any) (any, error) {
	switch t := v.(type) {
	case nil, bool, int64, string:
		return t, nil
	case float64:
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("unsupported value: %w", err)
		}
		if !bytes.ContainsAny(b, ".eE") {
			if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
				return i, nil
			}
		}
		return t, nil
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			c, err := copyValue(e)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			c, err := copyValue(e)
			if err != nil {
				return nil, err
			}
			s[i] = c
		}
		return s, nil
	default:
		return nil, fmt.Errorf("unsupported value of type %T", v)
	}
}
