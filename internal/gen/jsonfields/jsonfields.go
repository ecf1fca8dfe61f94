// Package jsonfields lists a Go struct's fields as encoding/json sees them, for the generators
// that read k8s.io/api's types by reflection (patch metadata, Go type names).
package jsonfields

import (
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// Field is a struct field as encoding/json sees it: its JSON name, whether the name comes from
// a tag, whether it carries the ",string" option on a scalar, and the index path to it through
// embedded structs.
type Field struct {
	Name   string
	Tag    bool
	Quoted bool
	Index  []int
}

// Rules chooses between the two encoding/json generations the apiserver's code paths use.
type Rules struct {
	// ExploreUnexportedEmbedded explores unexported embedded structs, as today's encoding/json
	// and its sigs.k8s.io/json fork do; apimachinery's older forked copy (strategic merge
	// patch) skips every unexported field.
	ExploreUnexportedEmbedded bool
}

// Of lists the JSON-visible fields of struct t in field order: embedded structs are explored
// breadth first; a shallower field hides deeper ones of the same name; at equal depth a tagged
// field wins, otherwise the name is dropped.
func Of(t reflect.Type, r Rules) []Field {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var all []Field
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	count := map[reflect.Type]int{}
	for len(next) > 0 {
		current := next
		next = nil
		nextCount := map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				sf := lv.typ.Field(i)
				if !visible(sf, r) {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(append([]int(nil), lv.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := Field{Name: name, Tag: name != "", Quoted: quoted(opts, ft), Index: index}
					if f.Name == "" {
						f.Name = sf.Name
					}
					all = append(all, f)
					if count[lv.typ] > 1 {
						all = append(all, f) // twice, so that the name is annihilated below
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index})
				}
			}
		}
		count = nextCount
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if len(a.Index) != len(b.Index) {
			return len(a.Index) < len(b.Index)
		}
		if a.Tag != b.Tag {
			return a.Tag
		}
		return lessIndex(a.Index, b.Index)
	})
	var out []Field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Name == all[i].Name {
			j++
		}
		if f, ok := dominant(all[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].Index, out[j].Index) })
	return out
}

// visible says whether the walk looks at sf at all.
func visible(sf reflect.StructField, r Rules) bool {
	if sf.IsExported() {
		return true
	}
	if !r.ExploreUnexportedEmbedded || !sf.Anonymous {
		return false
	}
	ft := sf.Type
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	return ft.Kind() == reflect.Struct
}

// quoted reports the ",string" option on a field of a kind it applies to.
func quoted(opts string, ft reflect.Type) bool {
	for _, o := range strings.Split(opts, ",") {
		if o != "string" {
			continue
		}
		switch ft.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.String:
			return true
		}
	}
	return false
}

// dominant picks the field that wins among fields of one name (sorted by depth, then tagged
// first): the only one at the shallowest depth, or the only tagged one there.
func dominant(fs []Field) (Field, bool) {
	if len(fs) > 1 && len(fs[0].Index) == len(fs[1].Index) && fs[0].Tag == fs[1].Tag {
		return Field{}, false
	}
	return fs[0], true
}

func lessIndex(a, b []int) bool {
	for k := range a {
		if k >= len(b) {
			return false
		}
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// validTagName is encoding/json's rule for a usable name in a json tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
