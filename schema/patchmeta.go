package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// PatchMeta is a position in the strategic-merge-patch metadata of the built-in kinds: one Go type
// of k8s.io/api, seen the way the apiserver's strategicpatch.PatchMetaFromStruct sees it when it
// patches a built-in object. Walk it from (*Kind).PatchMeta with LookupField and LookupSlice, which
// answer what strategicpatch's LookupPatchMetadataForStruct and LookupPatchMetadataForSlice answer,
// errors included, so that a strategic-merge-patch implementation can run on it unchanged.
//
// The zero PatchMeta is no type: lookups on it fail. PatchMeta is a small comparable value.
type PatchMeta struct {
	t *pmType
}

// PatchInfo is a field's strategic-merge-patch directives: its patchStrategy struct tag
// ("merge", "replace", "retainKeys", "merge,retainKeys" or "") and its patchMergeKey tag.
type PatchInfo struct {
	Strategy string
	MergeKey string
}

// Strategies returns the strategy split at commas, exactly as strategicpatch's
// PatchMeta.GetPatchStrategies does ([""] for a field without a strategy).
func (p PatchInfo) Strategies() []string { return strings.Split(p.Strategy, ",") }

// Has reports whether strategy s ("merge", "retainKeys", "replace") is among the field's.
func (p PatchInfo) Has(s string) bool {
	for _, x := range p.Strategies() {
		if x == s {
			return true
		}
	}
	return false
}

type pmType struct {
	kind   string // reflect.Kind name: "struct", "ptr", "slice", "array", "map", "string", ...
	name   string // reflect.Type.Name()
	elem   *pmType
	fields []pmField
	byName map[string]int
}

type pmField struct {
	name string
	typ  *pmType
	info PatchInfo
}

// PatchMeta returns the root of the kind's strategic-merge-patch metadata: its Go struct type.
func (k *Kind) PatchMeta() (PatchMeta, error) {
	types, err := loadPatchMeta()
	if err != nil {
		return PatchMeta{}, err
	}
	if k.patchMeta < 0 || int(k.patchMeta) >= len(types) {
		return PatchMeta{}, fmt.Errorf("%s: no patch metadata", k.GVK)
	}
	return PatchMeta{t: types[k.patchMeta]}, nil
}

// Name returns the Go kind of the type ("struct", "ptr", "slice", "map", "string", ...), what
// strategicpatch's PatchMetaFromStruct.Name returns.
func (m PatchMeta) Name() string {
	if m.t == nil {
		return "invalid"
	}
	return m.t.kind
}

// TypeName returns the Go type's name ("PodSpec"), "" for unnamed types (slices, maps, pointers).
func (m PatchMeta) TypeName() string {
	if m.t == nil {
		return ""
	}
	return m.t.name
}

// Valid reports whether m is a type (not the zero PatchMeta).
func (m PatchMeta) Valid() bool { return m.t != nil }

// Elem returns the element type of a pointer, slice, array or map, and false for other types.
func (m PatchMeta) Elem() (PatchMeta, bool) {
	if m.t == nil || m.t.elem == nil {
		return PatchMeta{}, false
	}
	return PatchMeta{t: m.t.elem}, true
}

// Fields returns the JSON names of the struct's fields (after one pointer), in Go field order;
// nil for other types.
func (m PatchMeta) Fields() []string {
	t := m.t
	if t != nil && t.kind == "ptr" {
		t = t.elem
	}
	if t == nil || t.kind != "struct" {
		return nil
	}
	out := make([]string, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.name
	}
	return out
}

// LookupField returns the type and directives of JSON field name of a struct (through one
// pointer), as strategicpatch's LookupPatchMetadataForStruct does: an exact name first, otherwise
// the first field whose name matches case-insensitively (encoding/json's rule). The returned type
// is the field's declared type (a pointer, slice, map, ...). Errors carry strategicpatch's wording.
func (m PatchMeta) LookupField(name string) (PatchMeta, PatchInfo, error) {
	t := m.t
	if t == nil {
		return PatchMeta{}, PatchInfo{}, errors.New("no type")
	}
	if t.kind == "ptr" {
		t = t.elem
	}
	if t.kind != "struct" {
		return PatchMeta{}, PatchInfo{}, fmt.Errorf("merging an object in json but data type is not struct, instead is: %s", t.kind)
	}
	i, ok := t.byName[name]
	if !ok {
		i = -1
		for j, f := range t.fields {
			if strings.EqualFold(f.name, name) {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return PatchMeta{}, PatchInfo{}, fmt.Errorf("unable to find api field in struct %s for the json field %q", t.name, name)
	}
	f := t.fields[i]
	return PatchMeta{t: f.typ}, f.info, nil
}

// LookupSlice returns the element type and the directives of list field name, as strategicpatch's
// LookupPatchMetadataForSlice does (a slice or array, or a pointer to one, of non-slices).
func (m PatchMeta) LookupSlice(name string) (PatchMeta, PatchInfo, error) {
	sub, info, err := m.LookupField(name)
	if err != nil {
		return PatchMeta{}, PatchInfo{}, err
	}
	t := sub.t
	switch t.kind {
	case "slice", "array":
		if e := t.elem; e.kind == "slice" || e.kind == "array" {
			return PatchMeta{}, PatchInfo{}, errors.New("unexpected slice of slice")
		}
		return PatchMeta{t: t.elem}, info, nil
	case "ptr":
		t = t.elem
		if t.kind == "slice" || t.kind == "array" {
			t = t.elem
		}
		return PatchMeta{t: t}, info, nil
	default:
		// strategicpatch names the kind of the type the field was looked up in, not the field's.
		return PatchMeta{}, PatchInfo{}, fmt.Errorf("expected slice or array type, but got: %s", m.Name())
	}
}

type patchMetaFileDTO struct {
	Types []struct {
		Kind   string `json:"kind"`
		Name   string `json:"name"`
		Elem   int    `json:"elem"`
		Fields []struct {
			Name     string `json:"n"`
			Type     int    `json:"t"`
			Strategy string `json:"s"`
			MergeKey string `json:"k"`
		} `json:"fields"`
	} `json:"types"`
}

var loadPatchMeta = sync.OnceValues(parsePatchMeta)

// parsePatchMeta decodes the embedded data; loadPatchMeta runs it once.
func parsePatchMeta() ([]*pmType, error) {
	data, err := readGzip("data/patchmeta.json.gz")
	if err != nil {
		return nil, fmt.Errorf("built-in patch metadata: %w", err)
	}
	var f patchMetaFileDTO
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("built-in patch metadata: %w", err)
	}
	types := make([]*pmType, len(f.Types))
	for i := range types {
		types[i] = &pmType{}
	}
	ref := func(i int) (*pmType, error) {
		if i < 0 || i >= len(types) {
			return nil, fmt.Errorf("built-in patch metadata: type %d out of range", i)
		}
		return types[i], nil
	}
	for i, d := range f.Types {
		t := types[i]
		t.kind, t.name = d.Kind, d.Name
		if d.Elem >= 0 {
			if t.elem, err = ref(d.Elem); err != nil {
				return nil, err
			}
		}
		if len(d.Fields) > 0 {
			t.fields = make([]pmField, len(d.Fields))
			t.byName = make(map[string]int, len(d.Fields))
			for j, fd := range d.Fields {
				ft, err := ref(fd.Type)
				if err != nil {
					return nil, err
				}
				t.fields[j] = pmField{name: fd.Name, typ: ft, info: PatchInfo{Strategy: fd.Strategy, MergeKey: fd.MergeKey}}
				t.byName[fd.Name] = j
			}
		}
		if (t.kind == "ptr" || t.kind == "slice" || t.kind == "array" || t.kind == "map") && t.elem == nil {
			return nil, fmt.Errorf("built-in patch metadata: %s type %d without element", t.kind, i)
		}
	}
	return types, nil
}
