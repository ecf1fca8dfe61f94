package main

import (
	"github.com/writepath/writepath/internal/gen/jsonfields"
	"reflect"
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
		for _, f := range jsonfields.Of(t, jsonfields.Rules{}) {
			sf := t.FieldByIndex(f.Index)
			fields = append(fields, pmFieldDTO{
				Name:     f.Name,
				Type:     b.id(sf.Type),
				Strategy: sf.Tag.Get("patchStrategy"),
				MergeKey: sf.Tag.Get("patchMergeKey"),
			})
		}
		b.types[id].Fields = fields
	}
	return id
}
