package quantity

import (
	"bytes"
	"strings"
)

// UnmarshalJSON is resource.Quantity.UnmarshalJSON. null zeroes the value but keeps the format
// and the cached string, as apimachinery does (a field decoded onto one that held "+1" and then
// given null is 0 but still writes "+1"). Otherwise the bytes between the quotes (not
// unescaped), or any other literal as written, trimmed of white space, are read by Parse; *q is
// replaced only when they parse, and the error is Parse's.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		q.dec, q.dscale, q.value, q.scale = nil, 0, 0, 0
		return nil
	}
	if l := len(b); l >= 2 && b[0] == '"' && b[l-1] == '"' {
		b = b[1 : l-1]
	}
	p, err := Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	*q = p
	return nil
}

// MarshalJSON is resource.Quantity.MarshalJSON: String in quotes (a quantity's string needs no
// escaping).
func (q Quantity) MarshalJSON() ([]byte, error) {
	s := q.String()
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"'), nil
}
