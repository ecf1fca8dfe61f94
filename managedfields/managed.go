package managedfields

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Managed is the decoded form of a managedFields list: structured-merge-diff's ManagedFields keyed
// by manager identifier (see Identifier), and the time of each manager (absent or nil: no time).
//
// A Managed is a plain value; the functions of this package that take one never change it.
type Managed struct {
	Fields fieldpath.ManagedFields
	Times  map[string]*time.Time

	// source remembers, for sets decoded by DecodeObject, the FieldsV1 map they came from, so
	// that EncodeList copies it instead of serializing an unchanged set again.
	source map[fieldpath.VersionedSet]map[string]any
	// decoded keeps, for a Managed read by DecodeObject, what EncodeList can reuse instead of
	// allocating again: the entry maps by identifier and the FieldsV1 keys by field name.
	decoded *decodedFrom
}

// decodedFrom is read-only once DecodeObject returns.
type decodedFrom struct {
	entries map[string]map[string]any // identifier → the managedFields item it was read from
	fields  map[string]string         // field name → its FieldsV1 key ("f:" + name)
}

// Copy returns a copy whose maps can be changed without affecting m (the sets themselves are
// immutable in structured-merge-diff and are shared).
func (m Managed) Copy() Managed {
	out := Managed{Fields: make(fieldpath.ManagedFields, len(m.Fields)), Times: make(map[string]*time.Time, len(m.Times))}
	for k, v := range m.Fields {
		out.Fields[k] = v
	}
	for k, v := range m.Times {
		out.Times[k] = v
	}
	out.source = m.source
	out.decoded = m.decoded
	return out
}

// identity is the JSON shape of a manager identifier: metav1.ManagedFieldsEntry without
// fieldsType, fieldsV1 and time, marshalled by encoding/json (so field order and escaping match).
type identity struct {
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// Identifier returns the key the apiserver uses for the entry's manager: the JSON of manager,
// operation, apiVersion (Update entries only: an applier keeps one entry across versions) and
// subresource, as in BuildManagerIdentifier.
func Identifier(e Entry) string {
	id := identity{Manager: e.Manager, Operation: string(e.Operation), Subresource: e.Subresource}
	if e.Operation != OperationApply {
		id.APIVersion = e.APIVersion
	}
	if s, ok := id.plain(); ok {
		return s
	}
	b, _ := json.Marshal(id) // strings only: cannot fail
	return string(b)
}

// identityKeys are the JSON keys of identity in encoding/json's order.
var identityKeys = [4]string{`"manager":`, `"operation":`, `"apiVersion":`, `"subresource":`}

// plain writes the identity as encoding/json does when no value needs escaping (the usual
// case), without reflection; ok is false otherwise.
func (id identity) plain() (string, bool) {
	vals := [4]string{id.Manager, id.Operation, id.APIVersion, id.Subresource}
	n := 2
	for i, v := range vals {
		if v == "" {
			continue
		}
		if !jsonPlain(v) {
			return "", false
		}
		n += len(identityKeys[i]) + len(v) + 3
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, v := range vals {
		if v == "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, identityKeys[i]...)
		b = append(b, '"')
		b = append(b, v...)
		b = append(b, '"')
	}
	b = append(b, '}')
	return string(b), true
}

// jsonPlain reports whether encoding/json writes s between quotes unchanged: printable ASCII
// other than the characters it escapes (", \, and <, >, & for HTML safety).
func jsonPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// ParseIdentifier reads an identifier back into an entry (manager, operation, apiVersion,
// subresource). It fails on text that is not a JSON object of those fields.
func ParseIdentifier(id string) (Entry, error) {
	if e, ok := parsePlainIdentifier(id); ok {
		return e, nil
	}
	var v struct {
		Manager     string `json:"manager"`
		Operation   string `json:"operation"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	}
	if err := json.Unmarshal([]byte(id), &v); err != nil {
		return Entry{}, err
	}
	return Entry{Manager: v.Manager, Operation: Operation(v.Operation), APIVersion: v.APIVersion, Subresource: v.Subresource}, nil
}

// parsePlainIdentifier reads exactly what plain writes (keys in order, each at most once,
// values of plain characters); anything else is left to encoding/json.
func parsePlainIdentifier(id string) (Entry, bool) {
	if len(id) < 2 || id[0] != '{' || id[len(id)-1] != '}' {
		return Entry{}, false
	}
	rest := id[1 : len(id)-1]
	var vals [4]string
	next := 0
	for first := true; rest != ""; first = false {
		if !first {
			if rest[0] != ',' {
				return Entry{}, false
			}
			rest = rest[1:]
		}
		k := next
		for k < len(identityKeys) && !strings.HasPrefix(rest, identityKeys[k]) {
			k++
		}
		if k == len(identityKeys) {
			return Entry{}, false
		}
		rest = rest[len(identityKeys[k]):]
		if rest == "" || rest[0] != '"' {
			return Entry{}, false
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return Entry{}, false
		}
		v := rest[1 : 1+end]
		if v == "" || !jsonPlain(v) {
			return Entry{}, false
		}
		vals[k] = v
		next = k + 1
		rest = rest[end+2:]
	}
	return Entry{Manager: vals[0], Operation: Operation(vals[1]), APIVersion: vals[2], Subresource: vals[3]}, true
}

// SetFromFieldsV1 decodes a FieldsV1 document into a field set. nil or empty input is the empty set.
func SetFromFieldsV1(raw []byte) (*fieldpath.Set, error) {
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	s := &fieldpath.Set{}
	if err := s.FromJSON(bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	return s, nil
}

// FieldsV1FromSet encodes a field set as FieldsV1, byte for byte as the apiserver writes it.
func FieldsV1FromSet(s *fieldpath.Set) ([]byte, error) {
	if s == nil {
		s = fieldpath.NewSet()
	}
	return s.ToJSON()
}

// checkEntry is DecodeManagedFields' check of entry i before its fields are read: an operation
// other than Apply or Update, an empty apiVersion, a missing or unknown fieldsType.
func checkEntry(e Entry, i int) error {
	switch e.Operation {
	case OperationApply, OperationUpdate:
	default:
		return errors.New("operation must be `Apply` or `Update`")
	}
	if e.APIVersion == "" {
		return errors.New("apiVersion must not be empty")
	}
	switch e.FieldsType {
	case FieldsTypeV1:
	case "":
		return fmt.Errorf("missing fieldsType in managed fields entry %d", i)
	default:
		return fmt.Errorf("invalid fieldsType %s in managed fields entry %d", quote(e.FieldsType), i)
	}
	return nil
}

// Decode turns managedFields entries into a Managed, with the apiserver's checks and error texts
// (DecodeManagedFields): an operation other than Apply or Update, an empty apiVersion, a missing
// or unknown fieldsType, or an undecodable FieldsV1 is an error. Entries with the same identifier
// collapse to the last one.
func Decode(entries []Entry) (Managed, error) {
	m := Managed{Fields: make(fieldpath.ManagedFields, len(entries)), Times: make(map[string]*time.Time, len(entries))}
	for i, e := range entries {
		if err := checkEntry(e, i); err != nil {
			return Managed{}, err
		}
		set, err := SetFromFieldsV1(e.FieldsV1)
		if err != nil {
			return Managed{}, fmt.Errorf("error decoding versioned set from %s: error decoding set: %v", e.goString(), err)
		}
		id := Identifier(e)
		m.Fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == OperationApply)
		m.Times[id] = e.Time
	}
	return m, nil
}

// Encode turns a Managed back into entries in the apiserver's order: by operation (Apply before
// Update), then time (seconds; no time counts as zero), manager, apiVersion and subresource.
// An empty Managed encodes to nil (metadata.managedFields is then removed).
func Encode(m Managed) ([]Entry, error) {
	if len(m.Fields) == 0 {
		return nil, nil
	}
	out := make([]Entry, 0, len(m.Fields))
	for id, vs := range m.Fields {
		e, err := ParseIdentifier(id)
		if err != nil {
			return nil, fmt.Errorf("error encoding versioned set for %v: error unmarshalling manager identifier %v: %v", id, id, err)
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = OperationApply
		}
		e.FieldsType = FieldsTypeV1
		raw, err := FieldsV1FromSet(vs.Set())
		if err != nil {
			return nil, fmt.Errorf("error encoding versioned set for %v: error encoding set: %v", id, err)
		}
		e.FieldsV1 = raw
		if t, ok := m.Times[id]; ok && t != nil {
			tt := *t
			e.Time = &tt
		}
		out = append(out, e)
	}
	Sort(out)
	return out, nil
}

// Sort orders entries as the apiserver does before writing them (sortEncodedManagedFields).
func Sort(entries []Entry) {
	sort.Slice(entries, func(i, j int) bool { return less(entries[i], entries[j]) })
}

func less(p, q Entry) bool {
	if p.Operation != q.Operation {
		return p.Operation < q.Operation
	}
	var ps, qs int64
	if p.Time != nil {
		ps = p.Time.Unix()
	}
	if q.Time != nil {
		qs = q.Time.Unix()
	}
	if ps != qs {
		return ps < qs
	}
	if p.Manager != q.Manager {
		return p.Manager < q.Manager
	}
	if p.APIVersion != q.APIVersion {
		return p.APIVersion < q.APIVersion
	}
	return p.Subresource < q.Subresource
}
