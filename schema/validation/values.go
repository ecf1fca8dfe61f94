package validation

import (
	"sort"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// Readers of the object model that tolerate any shape: a value of the wrong type reads as absent,
// so a malformed object never panics (the typed round trip has already refused it in the
// registry).

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// integer reads an integer field; ok is false when it is absent or not a number.
func integer(m map[string]any, key string) (int64, bool) {
	switch n := m[key].(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

func boolean(m map[string]any, key string) (value, ok bool) {
	b, ok := m[key].(bool)
	return b, ok
}

// has reports whether key is set to something other than null (a non-nil pointer once decoded).
func has(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v != nil
}

// stringMap reads a map of strings (labels, annotations, nodeSelector).
func stringMap(v any) map[string]string {
	m := mapOf(v)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, _ := x.(string)
		out[k] = s
	}
	return out
}

func stringList(v any) []string {
	l := listOf(v)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// objectMeta validates metadata on create as ValidateObjectMeta with the kind's name rule.
func objectMeta(obj map[string]any, opts schema.ObjectMetaOptions) field.ErrorList {
	p := field.NewPath("metadata")
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
	}
	errs, err := schema.ValidateObjectMeta(md, opts, p)
	if err != nil {
		return field.ErrorList{field.InternalError(p, err)}
	}
	return errs
}

// objectMetaUpdate validates metadata on update as ValidateObjectMetaUpdate.
func objectMetaUpdate(obj, old map[string]any, opts schema.ObjectMetaOptions) field.ErrorList {
	p := field.NewPath("metadata")
	md, _ := obj["metadata"].(map[string]any)
	oldMD, _ := old["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	if oldMD == nil {
		oldMD = map[string]any{}
	}
	errs, err := schema.ValidateObjectMetaUpdate(md, oldMD, opts, p)
	if err != nil {
		return field.ErrorList{field.InternalError(p, err)}
	}
	return errs
}
