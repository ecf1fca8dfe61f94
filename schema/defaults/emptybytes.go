package defaults

import (
	"strings"

	"github.com/writepath/writepath/schema"
)

// An omitempty []byte field of a Go type (a CertificateSigningRequest's status.certificate, a
// webhook's clientConfig.caBundle, an APIService's spec.caBundle, a CRD conversion webhook's
// caBundle) holds one of three values: nil (absent, null), an empty non-nil slice (the JSON
// decoder's and the unstructured converter's reading of "") or bytes. encoding/json and
// runtime.DefaultUnstructuredConverter.ToUnstructured write the first two alike (they leave
// the field out), so the JSON answers, watch events and admission's views of an object cannot
// tell them apart; reflect.DeepEqual and gogo protobuf's Marshal (which writes a non-nil slice,
// so the etcd store keeps it and decodes it back as []byte{}) can. Options.KeepEmptyBytes writes
// the empty slice as ""; OmitEmptyBytes is the view that leaves it out again.

// markEmptyBytes sets goStruct.emptyBytes on the structs at or below which an omitempty []byte
// field is (a fixpoint over the shapes, as for goStruct.defaults).
func markEmptyBytes(reg *defaultingRegistry) {
	for changed := true; changed; {
		changed = false
		for _, st := range reg.structs {
			if st.emptyBytes {
				continue
			}
			for _, f := range st.fields {
				if (f.omitEmpty && f.shape.kind == 'B') || shapeHasEmptyBytes(f.shape) {
					st.emptyBytes, changed = true, true
					break
				}
			}
		}
	}
}

// shapeHasEmptyBytes reports whether a struct holding an omitempty []byte field is reached
// through sh (its pointers, lists and maps).
func shapeHasEmptyBytes(sh *goShape) bool {
	for s := sh; s != nil; s = s.elem {
		if s.st != nil {
			return s.st.emptyBytes
		}
	}
	return false
}

// OmitEmptyBytes returns obj, a built-in object or list of a kind Builtin handles, without the
// omitempty []byte fields that hold "" (an empty, non-nil slice, as Builtin with
// Options.KeepEmptyBytes writes it): the object as encoding/json and the unstructured converter
// write the Go value, which is what kube-apiserver's JSON and YAML answers, watch events,
// AdmissionReviews and CEL variables carry. obj itself is returned when it holds none (and for
// any other object); otherwise a copy that shares with obj what it does not change. obj is not
// modified.
func OmitEmptyBytes(obj map[string]any) map[string]any {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil || kind == "" {
		return obj
	}
	reg, err := loadDefaulting()
	if err != nil {
		return obj
	}
	structOf := func(kind string) *goStruct {
		k, err := schema.Builtin(schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind})
		if err != nil {
			return nil
		}
		st := reg.structs[k.SMDTypeName()]
		if st == nil || !st.emptyBytes {
			return nil
		}
		return st
	}
	if st := structOf(kind); st != nil {
		out, _ := st.omitEmptyBytes(obj)
		return out
	}
	items, ok := obj["items"].([]any)
	if !ok || !strings.HasSuffix(kind, "List") {
		return obj
	}
	st := structOf(strings.TrimSuffix(kind, "List"))
	if st == nil {
		return obj
	}
	l, changed := omitInList(&goShape{kind: 'T', st: st}, items)
	if !changed {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["items"] = l
	return out
}

// omitEmptyBytes is OmitEmptyBytes on a value of st: m itself and false when nothing is left
// out.
func (st *goStruct) omitEmptyBytes(m map[string]any) (map[string]any, bool) {
	var out map[string]any
	set := func(name string, v any, del bool) {
		if out == nil {
			out = make(map[string]any, len(m))
			for k, x := range m {
				out[k] = x
			}
		}
		if del {
			delete(out, name)
		} else {
			out[name] = v
		}
	}
	for _, f := range st.fields {
		v, ok := m[f.name]
		if !ok {
			continue
		}
		if f.omitEmpty && f.shape.kind == 'B' {
			if s, ok := v.(string); ok && s == "" {
				set(f.name, nil, true)
			}
			continue
		}
		if !shapeHasEmptyBytes(f.shape) {
			continue
		}
		if nv, changed := omitInValue(f.shape, v); changed {
			set(f.name, nv, false)
		}
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// omitInValue is omitEmptyBytes below a value of shape sh.
func omitInValue(sh *goShape, v any) (any, bool) {
	switch sh.kind {
	case 'p':
		return omitInValue(sh.elem, v)
	case 'T':
		if m, ok := v.(map[string]any); ok && sh.st.emptyBytes {
			return sh.st.omitEmptyBytes(m)
		}
	case 'l':
		if l, ok := v.([]any); ok {
			return omitInList(sh.elem, l)
		}
	case 'm':
		if m, ok := v.(map[string]any); ok {
			var out map[string]any
			for k, x := range m {
				nx, changed := omitInValue(sh.elem, x)
				if !changed {
					continue
				}
				if out == nil {
					out = make(map[string]any, len(m))
					for k2, x2 := range m {
						out[k2] = x2
					}
				}
				out[k] = nx
			}
			if out != nil {
				return out, true
			}
		}
	}
	return v, false
}

func omitInList(elem *goShape, l []any) ([]any, bool) {
	var out []any
	for i, x := range l {
		nx, changed := omitInValue(elem, x)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]any(nil), l...)
		}
		out[i] = nx
	}
	if out == nil {
		return l, false
	}
	return out, true
}
