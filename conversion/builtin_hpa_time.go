package conversion

import (
	"encoding/json"
	"time"
)

// hpaTime is a metav1.Time in JSON: null is the zero time, a string is parsed
// as RFC 3339 (any other JSON value is an error), and it is written in UTC to
// the second (the zero time as null).
type hpaTime struct{ t time.Time }

func (t *hpaTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.t = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.t = p.Local()
	return nil
}

func (t hpaTime) MarshalJSON() ([]byte, error) {
	if t.t.IsZero() {
		return []byte("null"), nil
	}
	b := []byte{'"'}
	b = t.t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}
