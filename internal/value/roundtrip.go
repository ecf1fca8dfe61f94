package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// RoundTripJSON returns the value encoding/json reads back after encoding v, without the
// bytes: a fresh copy in which a float64 that encodes as an integer (no '.', 'e' or 'E') is an
// int64, and a nil map or list is nil (it encodes as null). It is what the apiserver's objects
// look like after a patch handler re-decodes them. A NaN or infinite float64 ("unsupported
// value: ...") and a value outside the object model ("unsupported value of type T") are
// errors.
func RoundTripJSON(v any) (any, error) {
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
		if t == nil {
			return nil, nil
		}
		m := make(map[string]any, len(t))
		for k, e := range t {
			switch e.(type) {
			case string, int64, bool, nil:
				m[k] = e // immutable leaves: no call needed (the common case)
				continue
			}
			c, err := RoundTripJSON(e)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		if t == nil {
			return nil, nil
		}
		s := make([]any, len(t))
		for i, e := range t {
			switch e.(type) {
			case string, int64, bool, nil:
				s[i] = e
				continue
			}
			c, err := RoundTripJSON(e)
			if err != nil {
				return nil, err
			}
			s[i] = c
		}
		return s, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}
