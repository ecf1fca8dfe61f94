package gotypes

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/writepath/writepath/schema"
)

// JSON returns obj, an object of the built-in kind gvk, as kube-apiserver 1.37's JSON serializer
// writes it from the Go type (encoding/json on the typed object): struct fields in the Go
// declaration order (kind and apiVersion first, then metadata, spec, status), map keys sorted,
// <, > and & escaped. Values below a type with its own JSON form (quantities, times, FieldsV1,
// RawExtension) and fields the Go type does not have are written with sorted keys. obj is
// assumed to be what the typed round trip left (it drops nothing here); it is not modified.
// The patcher quotes this text, patched, in a 422 (internal/lazyjson).
func JSON(gvk schema.GroupVersionKind, obj map[string]any) ([]byte, error) {
	t, _ := Of(gvk)
	var b bytes.Buffer
	if err := writeGoJSON(&b, obj, t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeGoJSON(b *bytes.Buffer, v any, t Type) error {
	t = t.Deref()
	switch x := v.(type) {
	case map[string]any:
		var keys []string
		switch {
		case t.Kind() == "struct" && !t.Custom():
			keys = make([]string, 0, len(x))
			seen := make(map[string]bool, len(x))
			for _, name := range t.FieldNames() {
				if _, ok := x[name]; ok && !seen[name] {
					keys = append(keys, name)
					seen[name] = true
				}
			}
			var rest []string
			for key := range x {
				if !seen[key] {
					rest = append(rest, key)
				}
			}
			sort.Strings(rest)
			keys = append(keys, rest...)
		case t.Kind() == "map" && !t.Custom():
			keys = sortedKeys(x)
		default:
			return marshalInto(b, x)
		}
		b.WriteByte('{')
		for i, key := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := marshalInto(b, key); err != nil {
				return err
			}
			b.WriteByte(':')
			ft := t.Elem()
			if t.Kind() == "struct" {
				ft = t.Field(key)
			}
			if err := writeGoJSON(b, x[key], ft); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case []any:
		if t.Kind() != "slice" || t.Custom() {
			return marshalInto(b, x)
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeGoJSON(b, e, t.Elem()); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	return marshalInto(b, v)
}

func marshalInto(b *bytes.Buffer, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// ValueJSON returns v, a value of the Go type t (a field's or list item's type, from Type.Field
// and Type.Elem), as encoding/json writes it from the typed value: JSON's rules, as for a whole
// object. apimachinery prints a struct bad value this way (a declarative Duplicate's list item).
func ValueJSON(t Type, v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeGoJSON(&b, v, t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
