package managedfields

import (
	"fmt"

	"github.com/writepath/writepath/internal/value"
)

// FromObject reads metadata.managedFields of an object in the object model. found is false when
// the object has no managedFields (absent or null). A list that is not a list of objects, or an
// item with a field of the wrong type, is an error (the apiserver rejects such a body with 400
// for built-in types; for custom resources it reads no managedFields at all, see Lenient).
func FromObject(obj map[string]any) (entries []Entry, found bool, err error) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, false, nil
	}
	raw, ok := md["managedFields"]
	if !ok || raw == nil {
		return nil, false, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, true, fmt.Errorf("metadata.managedFields: expected array, got %s", jsonKind(raw))
	}
	entries = make([]Entry, 0, len(items))
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, true, fmt.Errorf("metadata.managedFields[%d]: expected object, got %s", i, jsonKind(item))
		}
		e, err := EntryFromObject(m)
		if err != nil {
			return nil, true, fmt.Errorf("metadata.managedFields[%d]: %w", i, err)
		}
		entries = append(entries, e)
	}
	return entries, true, nil
}

// Lenient reads metadata.managedFields as the apiserver's unstructured accessor does
// (Unstructured.GetManagedFields): anything malformed reads as no managedFields (nil), an empty
// list reads as an empty non-nil slice.
func Lenient(obj map[string]any) []Entry {
	entries, found, err := FromObject(obj)
	if err != nil || !found {
		return nil
	}
	return entries
}

// WithEntries returns a copy of obj whose metadata.managedFields holds entries (in the given
// order). With no entries the field is removed, as the apiserver does. obj is not changed; the
// copy shares nothing with it.
func WithEntries(obj map[string]any, entries []Entry) (map[string]any, error) {
	var list []any
	if len(entries) > 0 {
		list = make([]any, 0, len(entries))
		for _, e := range entries {
			m, err := e.ToObject()
			if err != nil {
				return nil, err
			}
			list = append(list, m)
		}
	}
	out, _ := value.Clone(obj).(map[string]any)
	md, ok := out["metadata"].(map[string]any)
	if !ok {
		if list == nil {
			return out, nil
		}
		md = map[string]any{}
		out["metadata"] = md
	}
	if list == nil {
		delete(md, "managedFields")
	} else {
		md["managedFields"] = list
	}
	return out, nil
}
