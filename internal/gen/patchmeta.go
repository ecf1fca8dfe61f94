package main

import (
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// The strategic-merge-patch metadata is the graph of Go types reachable from every kind, as the
// apiserver's PatchMetaFromStruct walks it (strategicpatch over k8s.io/api structs, with the JSON
// field resolution of apimachinery's forked encoding/json): one node per Go type, struct nodes
// listing their JSON-visible fields in field order with the raw patchStrategy and patchMergeKey
// tags. schema/patchmeta.go walks the same graph.

type patchMetaDTO struct {
	Types []pmTypeDTO `json:"types"`
}

type pmTypeDTO struct {
	// Kind is reflect.Kind's name ("struct", "ptr", "slice", "map", "string", ...).
	Kind string `json:"kind"`
	// Name is reflect.Type.Name() ("" for unnamed types), used in lookup errors.
	Name string `json:"name,omitempty"`
	// Elem is the element type of a ptr, slice, array or map node, -1 otherwise.
	Elem   int          `json:"elem"`
	Fields []pmFieldDTO `json:"fields,omitempty"`
}

type pmFieldDTO struct {
	Name     string `json:"n"`
	Type     int    `json:"t"`
	Strategy string `json:"s,omitempty"`
	MergeKey string `json:"k,omitempty"`
}

type patchMetaBuilder struct {
	ids   map[reflect.Type]int
	types []pmTypeDTO
}

func buildPatchMeta(k *kinds) (patchMetaDTO, error) {
	b := &patchMetaBuilder{ids: map[reflect.Type]int{}}
	for _, kd := range k.list {
		kd.PatchMeta = b.id(kd.goType)
	}
	return patchMetaDTO{Types: b.types}, nil
}

// id returns the node of t, adding t and everything reachable from it on first sight. Nodes are
// numbered in depth-first order from the kinds (sorted), so the output is deterministic.
func (b *patchMetaBuilder) id(t reflect.Type) int {
	if id, ok := b.ids[t]; ok {
		return id
	}
	id := len(b.types)
	b.ids[t] = id
	b.types = append(b.types, pmTypeDTO{Kind: t.Kind().String(), Name: t.Name(), Elem: -1})
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		elem := b.id(t.Elem())
		b.types[id].Elem = elem
	case reflect.Struct:
		var fields []pmFieldDTO
		for _, f := range jsonFields(t) {
			sf := t.FieldByIndex(f.index)
			fields = append(fields, pmFieldDTO{
				Name:     f.name,
				Type:     b.id(sf.Type),
				Strategy: sf.Tag.Get("patchStrategy"),
				MergeKey: sf.Tag.Get("patchMergeKey"),
			})
		}
		b.types[id].Fields = fields
	}
	return id
}

// jsonField is a field as encoding/json sees it: its name and the index path to it through
// embedded structs.
type jsonField struct {
	name  string
	tag   bool
	index []int
}

// jsonFields lists the JSON-visible fields of struct t in field order, with encoding/json's rules
// for embedded structs (breadth first; a shallower field hides deeper ones of the same name; at
// equal depth a tagged field wins; otherwise the name is dropped) and with apimachinery's forked
// copy's one difference from today's encoding/json: unexported embedded structs are not explored.
func jsonFields(t reflect.Type) []jsonField {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var fields []jsonField
	next := []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	count := map[reflect.Type]int{}
	for len(next) > 0 {
		current := next
		next = nil
		nextCount := map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				if sf.PkgPath != "" {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(append([]int(nil), q.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{name: name, tag: name != "", index: index}
					if f.name == "" {
						f.name = sf.Name
					}
					fields = append(fields, f)
					if count[q.typ] > 1 {
						fields = append(fields, f) // a duplicate, so that the name is dropped below
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
		count = nextCount
	}
	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i], fields[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tag != b.tag {
			return a.tag
		}
		return lessIndex(a.index, b.index)
	})
	var out []jsonField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if f, ok := dominant(fields[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].index, out[j].index) })
	return out
}

func dominant(fields []jsonField) (jsonField, bool) {
	depth := len(fields[0].index)
	tagged := -1
	for i, f := range fields {
		if len(f.index) > depth {
			fields = fields[:i]
			break
		}
		if f.tag {
			if tagged >= 0 {
				return jsonField{}, false
			}
			tagged = i
		}
	}
	if tagged >= 0 {
		return fields[tagged], true
	}
	if len(fields) > 1 {
		return jsonField{}, false
	}
	return fields[0], true
}

func lessIndex(a, b []int) bool {
	for k, x := range a {
		if k >= len(b) {
			return false
		}
		if x != b[k] {
			return x < b[k]
		}
	}
	return len(a) < len(b)
}

// validTagName is encoding/json's rule for a usable JSON name in a struct tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
