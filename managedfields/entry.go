package managedfields

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Operation is the kind of write that recorded an entry: Apply (server-side apply) or Update
// (every other write: create, PUT, any non-apply PATCH).
type Operation string

// The two operations the apiserver records.
const (
	OperationApply  Operation = "Apply"
	OperationUpdate Operation = "Update"
)

// FieldsTypeV1 is the only fieldsType the apiserver knows.
const FieldsTypeV1 = "FieldsV1"

// Entry is one item of metadata.managedFields, field for field what metav1.ManagedFieldsEntry
// holds. The zero Entry is the "reset" entry a client sends to clear managedFields.
type Entry struct {
	// Manager names the workflow that owns the fields (the request's fieldManager).
	Manager string
	// Operation is Apply or Update.
	Operation Operation
	// APIVersion is the version of the resource the fields were written through.
	APIVersion string
	// Time is when the manager last changed the object; nil when the entry carries no time.
	// The wire format has seconds precision in UTC.
	Time *time.Time
	// FieldsType is "FieldsV1" (or empty/invalid in bad input).
	FieldsType string
	// FieldsV1 is the raw JSON of the field set, in structured-merge-diff's serialization
	// (its key order is the wire format); nil when absent.
	FieldsV1 []byte
	// Subresource is the subresource written through ("status", "scale"), empty for the main resource.
	Subresource string
}

// timeLayout is metav1.Time's wire layout (RFC 3339, seconds, UTC).
const timeLayout = time.RFC3339

// MarshalJSON encodes the entry exactly as the apiserver does: fields in metav1.ManagedFieldsEntry
// order (manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource), empty ones
// omitted, the time in UTC with seconds precision.
func (e Entry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e.appendJSON(&b)
	return b.Bytes(), nil
}

func (e Entry) appendJSON(b *bytes.Buffer) {
	b.WriteByte('{')
	first := true
	str := func(key, v string) {
		if v == "" {
			return
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"` + key + `":`)
		writeJSONString(b, v)
	}
	str("manager", e.Manager)
	str("operation", string(e.Operation))
	str("apiVersion", e.APIVersion)
	if e.Time != nil {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"time":`)
		if e.Time.IsZero() {
			b.WriteString("null")
		} else {
			b.WriteString(`"` + e.Time.UTC().Format(timeLayout) + `"`)
		}
	}
	str("fieldsType", e.FieldsType)
	if e.FieldsV1 != nil {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"fieldsV1":`)
		if len(e.FieldsV1) == 0 {
			b.WriteString("null")
		} else {
			b.Write(e.FieldsV1)
		}
	}
	str("subresource", e.Subresource)
	b.WriteByte('}')
}

// writeJSONString writes s as encoding/json does (HTML-escaped, like the apiserver's encoder).
func writeJSONString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	b.Write(out)
}

// MarshalEntries encodes a managedFields list byte for byte as the apiserver writes it
// ("[]" is never produced: an empty list is "null", matching an absent field).
func MarshalEntries(entries []Entry) []byte {
	if len(entries) == 0 {
		return []byte("null")
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		e.appendJSON(&b)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// ToObject returns the entry in the object model (map[string]any), as it appears inside an
// unstructured object's metadata.managedFields.
func (e Entry) ToObject() (map[string]any, error) {
	m := make(map[string]any, 7)
	if e.Manager != "" {
		m["manager"] = e.Manager
	}
	if e.Operation != "" {
		m["operation"] = string(e.Operation)
	}
	if e.APIVersion != "" {
		m["apiVersion"] = e.APIVersion
	}
	if e.Time != nil {
		if e.Time.IsZero() {
			m["time"] = nil
		} else {
			m["time"] = e.Time.UTC().Format(timeLayout)
		}
	}
	if e.FieldsType != "" {
		m["fieldsType"] = e.FieldsType
	}
	if e.FieldsV1 != nil {
		if len(e.FieldsV1) == 0 {
			m["fieldsV1"] = nil
		} else {
			var v any
			if err := json.Unmarshal(e.FieldsV1, &v); err != nil {
				return nil, fmt.Errorf("fieldsV1 of manager %q: %w", e.Manager, err)
			}
			m["fieldsV1"] = v
		}
	}
	if e.Subresource != "" {
		m["subresource"] = e.Subresource
	}
	return m, nil
}

// EntryFromObject reads one managedFields item of the object model. It fails where the
// apiserver's decoder fails: a field of the wrong JSON type or a time that is not RFC 3339.
// Unknown keys are ignored, like the apiserver's decoder does.
func EntryFromObject(m map[string]any) (Entry, error) {
	return entryFromObject(m, true, nil)
}

// entryFromObject is EntryFromObject; without withFields it leaves fieldsV1 unread (the
// object-model decoder reads the map itself), and a non-nil timeSlot receives the parsed time
// (so that one allocation holds the times of a whole list).
func entryFromObject(m map[string]any, withFields bool, timeSlot *time.Time) (Entry, error) {
	var e Entry
	var err error
	str := func(key string) string {
		v, ok := m[key]
		if !ok || v == nil || err != nil {
			return ""
		}
		s, isStr := v.(string)
		if !isStr {
			err = fmt.Errorf("managedFields entry: %s: expected string, got %s", key, jsonKind(v))
		}
		return s
	}
	e.Manager = str("manager")
	e.Operation = Operation(str("operation"))
	e.APIVersion = str("apiVersion")
	e.FieldsType = str("fieldsType")
	e.Subresource = str("subresource")
	if err != nil {
		return Entry{}, err
	}
	if v, ok := m["time"]; ok {
		switch t := v.(type) {
		case nil:
			// JSON null decodes to a nil *metav1.Time.
		case string:
			parsed, perr := time.Parse(timeLayout, t)
			if perr != nil {
				return Entry{}, fmt.Errorf("managedFields entry: time: %w", perr)
			}
			parsed = parsed.UTC()
			if timeSlot != nil {
				*timeSlot = parsed
				e.Time = timeSlot
			} else {
				e.Time = &parsed
			}
		default:
			return Entry{}, fmt.Errorf("managedFields entry: time: expected string, got %s", jsonKind(v))
		}
	}
	if v, ok := m["fieldsV1"]; ok && v != nil && withFields {
		raw, merr := json.Marshal(v)
		if merr != nil {
			return Entry{}, fmt.Errorf("managedFields entry: fieldsV1: %w", merr)
		}
		e.FieldsV1 = raw
	}
	return e, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case int64, int, float64, int32, float32:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// goString prints the entry the way fmt's %v prints a metav1.ManagedFieldsEntry value, which is
// what the apiserver's decode errors embed ({manager operation apiVersion time fieldsType fieldsV1
// subresource}, nil pointers as <nil>).
func (e Entry) goString() string {
	t := "<nil>"
	if e.Time != nil {
		t = e.Time.UTC().String()
	}
	f := "<nil>"
	if e.FieldsV1 != nil {
		f = string(e.FieldsV1)
	}
	return "{" + e.Manager + " " + string(e.Operation) + " " + e.APIVersion + " " + t + " " + e.FieldsType + " " + f + " " + e.Subresource + "}"
}

// quote is strconv.Quote, named for readability in messages that use Go's %q.
func quote(s string) string { return strconv.Quote(s) }
