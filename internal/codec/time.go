package codec

import (
	"encoding/json"
	"time"
)

// Time is a metav1.Time field of a Go struct as encoding/json reads and writes it (metav1.Time's
// UnmarshalJSON and MarshalJSON): a JSON string in RFC 3339, or null for no time. The types
// shaped as the apiserver's so that their errors and bytes are the same (ObjectMeta's timestamps
// in schema, a Node's taints and preferAvoidPods annotations in schema/validation, the
// HorizontalPodAutoscaler versions in conversion) use it for their times; their messages name it
// v1.Time.
type Time struct {
	// Time is the decoded time, in the zone it was written in; zero when Set is false.
	Time time.Time
	// Set is false for null.
	Set bool
}

// UnmarshalJSON is metav1.Time's: null is no time, anything but an RFC 3339 string an error
// (encoding/json's for a value that is not a string, time.Parse's otherwise).
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	*t = Time{Time: pt, Set: true}
	return nil
}

// MarshalJSON is metav1.Time's: null for the zero time, else RFC 3339 in UTC to the second.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	b := []byte{'"'}
	b = t.Time.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}
