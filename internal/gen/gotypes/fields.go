package main

import (
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// field is a struct field as encoding/json (and sigs.k8s.io/json's fork of it, which the
// apiserver decodes with) sees it: its JSON name and the index path to it through embedded
// structs.
type field struct {
	name   string
	tag    bool
	quoted bool
	index  []int
}

// typeFields lists the JSON-visible fields of struct t in field order, by encoding/json's rules:
// embedded structs are explored breadth first (unexported ones too, unexported embedded
// non-structs are not); a shallower field hides deeper ones of the same name; at equal depth a
// tagged field wins, otherwise the name is dropped.
func typeFields(t reflect.Type) []field {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var all []field
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
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
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
					f := field{name: name, tag: name != "", index: index}
					if f.name == "" {
						f.name = sf.Name
					}
					for _, o := range strings.Split(opts, ",") {
						if o == "string" {
							switch ft.Kind() {
							case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
								reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
								reflect.Float32, reflect.Float64, reflect.String:
								f.quoted = true
							}
						}
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
	var out []field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if f, ok := dominant(all[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].index, out[j].index) })
	return out
}

// dominant picks the field that wins among fields of one name (sorted by depth, then tagged
// first): the only one at the shallowest depth, or the only tagged one there.
func dominant(fs []field) (field, bool) {
	if len(fs) > 1 && len(fs[0].index) == len(fs[1].index) && fs[0].tag == fs[1].tag {
		return field{}, false
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
