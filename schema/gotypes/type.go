package gotypes

import "github.com/writepath/writepath/schema"

// Type is a node of the Go type graph a built-in kind's JSON decoder walks (the table
// DecodeError reads): the kind's own struct, a field's type, a pointer's target, a list's item
// or a map's value. It tells the places where the Go type holds a pointer at any depth, inside
// lists and maps too: there null and absent decode to nil, and an empty object to a pointer to
// a zero value, which apimachinery's semantic equality tells from nil.
//
// The zero Type is the type of no value the Go type has (a field it does not know, the item
// of a non-list, anything below a type with its own UnmarshalJSON); its methods return zero
// values.
type Type struct {
	t *goType
}

// Of returns the Go type of the built-in kind gvk, and false for a kind the table does not
// hold (or if the embedded table cannot be read).
func Of(gvk schema.GroupVersionKind) (Type, bool) {
	tab, err := loadGoTypes()
	if err != nil {
		return Type{}, false
	}
	t := tab.kinds[gvk]
	return Type{t}, t != nil
}

// Valid reports whether t is a type of the graph (not the zero Type).
func (t Type) Valid() bool { return t.t != nil }

// Pointer reports whether t is a pointer type (*v1.EmptyDirVolumeSource, *int32).
func (t Type) Pointer() bool { return t.t != nil && t.t.kind == "ptr" }

// Kind is the name of t's reflect.Kind: "struct", "slice", "map", "ptr", "string", "int32",
// "bool", "interface", ...; "" for the zero Type.
func (t Type) Kind() string {
	if t.t == nil {
		return ""
	}
	return t.t.kind
}

// String is t's reflect string ("*v1.EmptyDirVolumeSource", "[]v1.Volume", "map[string]string").
func (t Type) String() string {
	if t.t == nil {
		return ""
	}
	return t.t.str
}

// Custom reports whether t (a pointer's target, for a pointer) decodes JSON with its own
// UnmarshalJSON (resource.Quantity, intstr.IntOrString, metav1.Time, runtime.RawExtension, ...):
// its JSON form is not that of its Go fields, which the walk does not go into.
func (t Type) Custom() bool {
	d := t.Deref()
	return d.t != nil && d.t.unm != ""
}

// CustomName is the "pkgpath.Name" of the type (below t's pointers) that decodes JSON with its
// own UnmarshalJSON ("k8s.io/apimachinery/pkg/api/resource.Quantity"), "" for other types.
func (t Type) CustomName() string {
	d := t.Deref()
	if d.t == nil {
		return ""
	}
	return d.t.unm
}

// FieldNames are the JSON names of a struct's fields (promoted ones included) in declaration
// order, below t's pointers; nil for other types. The slice is fresh.
func (t Type) FieldNames() []string {
	d := t.Deref()
	if d.t == nil || d.t.unm != "" || d.t.kind != "struct" {
		return nil
	}
	return append([]string(nil), d.t.order...)
}

// Deref is t with its pointers removed (t itself when it is not a pointer).
func (t Type) Deref() Type {
	for t.t != nil && t.t.kind == "ptr" {
		t = Type{t.t.elem}
	}
	return t
}

// Elem is the type of a list's item or a map's value, below t's pointers; the zero Type for
// other types and for a custom-decoded type.
func (t Type) Elem() Type {
	d := t.Deref()
	if d.t == nil || d.t.unm != "" || (d.t.kind != "slice" && d.t.kind != "map") {
		return Type{}
	}
	return Type{d.t.elem}
}

// Field is the type of the struct field whose JSON name is name (promoted fields of embedded
// structs included, as the decoder sees them), below t's pointers; the zero Type when t is not
// a struct, is custom-decoded or has no such field. The decoder matches names exactly.
func (t Type) Field(name string) Type {
	d := t.Deref()
	if d.t == nil || d.t.unm != "" || d.t.kind != "struct" {
		return Type{}
	}
	f := d.t.fields[name]
	if f == nil {
		return Type{}
	}
	return Type{f.typ}
}

// PointerField reports whether path (rendered as field.Path renders it:
// "spec.template.spec.volumes[0].emptyDir", "metadata.labels[app]") leads, in the Go type of
// kind gvk, to a pointer field; false when it leads nowhere the Go type has.
func PointerField(gvk schema.GroupVersionKind, path string) bool {
	t, ok := Of(gvk)
	if !ok {
		return false
	}
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := indexSegmentEnd(path)
			if end < 0 {
				return false
			}
			t, path = t.Elem(), path[end+1:]
			continue
		}
		end := 0
		for end < len(path) && path[end] != '.' && path[end] != '[' {
			end++
		}
		t, path = t.Field(path[:end]), path[end:]
		if !t.Valid() {
			return false
		}
	}
	return t.Pointer()
}

// indexSegmentEnd is the index of the ']' closing the segment path starts with: the first that
// ends the path or is followed by '.' or '[' (a map key may hold ']').
func indexSegmentEnd(path string) int {
	for end := 1; end < len(path); end++ {
		if path[end] == ']' && (end+1 == len(path) || path[end+1] == '.' || path[end+1] == '[') {
			return end
		}
	}
	return -1
}
