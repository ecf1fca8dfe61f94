package schema

import (
	"fmt"
	"sort"
	"strings"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/writepath/writepath/internal/codec"
)

// FieldInfo says what the two patch mechanisms of the apiserver do with one field path of a kind:
// server-side apply (the structured-merge-diff type) and strategic merge patch (the Go struct
// tags). They often disagree: containers[].ports merge by containerPort+protocol under
// server-side apply but by containerPort alone under strategic merge patch.
type FieldInfo struct {
	// Path is the explained path, dot-separated ("spec.template.spec.containers"); "" for the root.
	Path string
	// Type is the SMD shape of the value: "map" (an object or a string-keyed map), "list" or
	// "scalar"; TypeName names the SMD type when the value has a named one
	// ("io.k8s.api.core.v1.Container"), and Scalar is the scalar type ("string", "numeric",
	// "boolean", "untyped") of a scalar.
	Type     string
	TypeName string
	Scalar   string
	// ListType is the server-side-apply list type of a list: "atomic", "set" or "map"; ListMapKeys
	// are the keys of a "map" list.
	ListType    string
	ListMapKeys []string
	// MapType is the server-side-apply type of a map or object: "granular" (merged field by field)
	// or "atomic" (replaced as a whole). Element describes a list's or map's elements the same way
	// ("map", "scalar", ...), ElementName names their type.
	MapType     string
	Element     string
	ElementName string
	// Fields lists the object's field names in the SMD schema, sorted.
	Fields []string
	// PatchStrategy and PatchMergeKey are the field's strategic-merge-patch directives
	// (patchStrategy and patchMergeKey struct tags); GoType is its Go type kind ("slice", "ptr", ...).
	PatchStrategy string
	PatchMergeKey string
	GoType        string

	// CustomResource is set by Version.Explain: the field belongs to a custom resource, which
	// takes no strategic merge patch. The other fields below are the structural schema's facts
	// about it (empty below metadata, which the apiserver types as ObjectMeta): SchemaType is the
	// OpenAPI type with its format ("integer", "string (format date-time)", "" for none),
	// Nullable is nullable: true, Default the default the apiserver applies (nil for none), and
	// PreserveUnknownFields, IntOrString and EmbeddedResource the x-kubernetes extensions set on
	// the field.
	CustomResource        bool
	SchemaType            string
	Nullable              bool
	Default               any
	PreserveUnknownFields bool
	IntOrString           bool
	EmbeddedResource      bool
}

// Explain describes the field at path of a built-in kind. path is a dot-separated list of field
// names in which list elements and map values are entered implicitly, as in kubectl explain
// ("spec.template.spec.containers.ports"), and a segment that is not a field of a map with
// values of one type (labels) is a key selecting those values; a leading "." is accepted. The SMD type decides whether
// a path exists; strategic-merge-patch details are filled where the Go types have the field.
func (k *Kind) Explain(path string) (FieldInfo, error) {
	parser, err := loadSMD()
	if err != nil {
		return FieldInfo{}, err
	}
	if k.smdType == "" {
		return FieldInfo{}, fmt.Errorf("%s: no structured-merge-diff type in the built-in catalogue", k.GVK)
	}
	s := &parser.Schema
	name := k.smdType
	cur := smdschema.TypeRef{NamedType: &name}
	pm, pmErr := k.PatchMeta()
	var info PatchInfo
	segments := splitPath(path)
	for i, seg := range segments {
		if seg == "" {
			return FieldInfo{}, fmt.Errorf("%s: empty field name in path %q", k.GVK, path)
		}
		atom, ok := s.Resolve(cur)
		if !ok {
			return FieldInfo{}, fmt.Errorf("%s: unresolvable type at %q", k.GVK, strings.Join(segments[:i], "."))
		}
		// Enter list elements implicitly.
		for atom.List != nil {
			cur = atom.List.ElementType
			if atom, ok = s.Resolve(cur); !ok {
				return FieldInfo{}, fmt.Errorf("%s: unresolvable element type at %q", k.GVK, strings.Join(segments[:i], "."))
			}
			if pmErr == nil {
				pm = enterElem(pm)
			}
		}
		if atom.Map == nil {
			return FieldInfo{}, fmt.Errorf("%s: %q is a scalar: it has no field %q", k.GVK, strings.Join(segments[:i], "."), seg)
		}
		f, ok := atom.Map.FindField(seg)
		if !ok {
			if atom.Map.ElementType == (smdschema.TypeRef{}) {
				return FieldInfo{}, fmt.Errorf("%s: field %q does not exist", k.GVK, strings.Join(segments[:i+1], "."))
			}
			// A key of a map: enter its values.
			cur = atom.Map.ElementType
			if pmErr == nil {
				pm, info = enterElem(pm), PatchInfo{}
			}
			continue
		}
		cur = f.Type
		if pmErr == nil {
			sub, subInfo, err := pm.LookupField(seg)
			if err != nil {
				pmErr = err
			} else {
				pm, info = sub, subInfo
			}
		}
	}
	out := FieldInfo{Path: strings.Join(segments, ".")}
	if cur.NamedType != nil {
		out.TypeName = *cur.NamedType
	}
	atom, ok := s.Resolve(cur)
	if !ok {
		return FieldInfo{}, fmt.Errorf("%s: unresolvable type at %q", k.GVK, out.Path)
	}
	describe(s, cur, atom, &out)
	if pmErr == nil && len(segments) > 0 {
		out.PatchStrategy, out.PatchMergeKey, out.GoType = info.Strategy, info.MergeKey, pm.Name()
	}
	return out, nil
}

func splitPath(path string) []string {
	path = strings.TrimPrefix(path, ".")
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// enterElem steps from a slice, array, map or pointer to one of them to its element type.
func enterElem(pm PatchMeta) PatchMeta {
	if pm.Name() == "ptr" {
		pm, _ = pm.Elem()
	}
	if e, ok := pm.Elem(); ok {
		return e
	}
	return pm
}

func describe(s *smdschema.Schema, ref smdschema.TypeRef, atom smdschema.Atom, out *FieldInfo) {
	er := func(def smdschema.ElementRelationship) smdschema.ElementRelationship {
		if ref.ElementRelationship != nil {
			return *ref.ElementRelationship
		}
		return def
	}
	switch {
	case atom.Scalar != nil && (atom.List != nil || atom.Map != nil):
		// Untyped (type "" in a schema): a scalar, list or map, deduced from the value.
		out.Type = "untyped"
		out.Fields = untypedFields(atom.Map)
	case atom.List != nil:
		out.Type = "list"
		switch er(atom.List.ElementRelationship) {
		case smdschema.Associative:
			if len(atom.List.Keys) > 0 {
				out.ListType, out.ListMapKeys = "map", append([]string(nil), atom.List.Keys...)
			} else {
				out.ListType = "set"
			}
		default:
			out.ListType = "atomic"
		}
		out.Element, out.ElementName = shape(s, atom.List.ElementType)
	case atom.Map != nil:
		out.Type = "map"
		if er(atom.Map.ElementRelationship) == smdschema.Atomic {
			out.MapType = "atomic"
		} else {
			out.MapType = "granular"
		}
		for _, f := range atom.Map.Fields {
			out.Fields = append(out.Fields, f.Name)
		}
		sort.Strings(out.Fields)
		if atom.Map.ElementType != (smdschema.TypeRef{}) {
			out.Element, out.ElementName = shape(s, atom.Map.ElementType)
		}
	case atom.Scalar != nil:
		out.Type = "scalar"
		out.Scalar = string(*atom.Scalar)
	}
}

func shape(s *smdschema.Schema, ref smdschema.TypeRef) (string, string) {
	name := ""
	if ref.NamedType != nil {
		name = *ref.NamedType
	}
	atom, ok := s.Resolve(ref)
	switch {
	case !ok:
		return "", name
	case atom.Scalar != nil && (atom.List != nil || atom.Map != nil):
		return "untyped", ""
	case atom.List != nil:
		return "list", name
	case atom.Map != nil:
		return "map", name
	case atom.Scalar != nil:
		return "scalar " + string(*atom.Scalar), name
	}
	return "", name
}

// String prints the FieldInfo as `writepath schema explain` does: one "key: value" line per fact.
func (fi FieldInfo) String() string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-15s %s\n", k+":", v)
		}
	}
	path := fi.Path
	if path == "" {
		path = "(root)"
	}
	line("PATH", path)
	t := fi.Type
	if fi.Scalar != "" {
		t += " " + fi.Scalar
	}
	line("TYPE", t)
	line("TYPE NAME", fi.TypeName)
	line("LIST TYPE", fi.ListType)
	line("SSA KEYS", strings.Join(fi.ListMapKeys, ", "))
	line("MAP TYPE", fi.MapType)
	elem := fi.Element
	if fi.ElementName != "" {
		elem = strings.TrimSpace(elem + " " + fi.ElementName)
	}
	line("ELEMENT", elem)
	line("SCHEMA TYPE", fi.SchemaType)
	if fi.Nullable {
		line("NULLABLE", "true")
	}
	if fi.Default != nil {
		d, err := codec.EncodeJSON(fi.Default)
		if err != nil {
			d = []byte(fmt.Sprint(fi.Default))
		}
		line("DEFAULT", string(d))
	}
	line("EXTENSIONS", strings.Join(fi.Extensions(), ", "))
	if fi.Path != "" && fi.CustomResource {
		line("SMP STRATEGY", crSMPUnsupported)
	} else if fi.Path != "" {
		strategy := fi.PatchStrategy
		if strategy == "" && fi.GoType != "" {
			strategy = "(none: " + defaultSMPBehaviour(fi) + ")"
		}
		line("SMP STRATEGY", strategy)
		line("SMP MERGE KEY", fi.PatchMergeKey)
		line("GO TYPE", fi.GoType)
	}
	line("FIELDS", strings.Join(fi.Fields, ", "))
	return b.String()
}

// Extensions lists the x-kubernetes extensions set on a custom resource's field, by name
// ("x-kubernetes-preserve-unknown-fields", ...); list and map types are in ListType and MapType.
func (fi FieldInfo) Extensions() []string {
	var out []string
	if fi.PreserveUnknownFields {
		out = append(out, "x-kubernetes-preserve-unknown-fields")
	}
	if fi.IntOrString {
		out = append(out, "x-kubernetes-int-or-string")
	}
	if fi.EmbeddedResource {
		out = append(out, "x-kubernetes-embedded-resource")
	}
	return out
}

// defaultSMPBehaviour says what strategic merge patch does with a field without a patchStrategy:
// lists are replaced, maps and structs merged key by key, scalars replaced.
func defaultSMPBehaviour(fi FieldInfo) string {
	switch fi.Type {
	case "list":
		return "replace"
	case "map":
		return "merge by key"
	default:
		return "replace"
	}
}
