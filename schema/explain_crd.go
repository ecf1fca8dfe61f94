package schema

import (
	"fmt"
	"sort"
	"strings"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/writepath/writepath/internal/value"
)

// crSMPUnsupported is what FieldInfo prints as the strategic-merge-patch strategy of a custom
// resource's field. The apiserver answers a strategic merge patch of a custom resource with 415
// UnsupportedMediaType "the body of the request was in an unknown format - accepted media types
// include: application/json-patch+json, application/merge-patch+json,
// application/apply-patch+yaml" (CBOR apply is an alpha feature, off by default in 1.37).
const crSMPUnsupported = "not supported (custom resources take merge or JSON patches; a strategic merge patch is a 415)"

// Explain describes the field at path of v's custom resources: its server-side-apply shape from
// the structured-merge-diff type the apiserver's field manager uses (Version.SMDType: list type
// atomic, set or map with its keys from x-kubernetes-list-type and list-map-keys, atomic by
// default; map type from x-kubernetes-map-type, granular by default) and the structural
// schema's facts (OpenAPI type and format, nullable, the default the apiserver applies,
// x-kubernetes-preserve-unknown-fields, int-or-string, embedded-resource). Custom resources
// have no strategic-merge-patch metadata: FieldInfo.CustomResource is set and the printer says
// so.
//
// The path syntax is Kind.Explain's: dot-separated field names, list elements entered
// implicitly, a segment under additionalProperties selecting the map's values, a leading "."
// accepted. The structural schema decides whether a path exists, except below metadata (and
// apiVersion and kind) of the resource and of embedded resources, which the apiserver types as
// ObjectMeta (and strings) whatever the schema says. A path into fields the schema does not
// describe (below x-kubernetes-preserve-unknown-fields) is an error.
func (v *Version) Explain(path string) (FieldInfo, error) {
	gvk := v.GVK()
	pt, err := v.SMDType()
	if err != nil {
		return FieldInfo{}, fmt.Errorf("%s: %w", gvk, err)
	}
	s := pt.Schema
	cur := pt.TypeRef
	st := v.Structural
	// inSchema: st describes cur. resource: st is a resource root (metadata, apiVersion, kind
	// are the apiserver's). typedOnly: below metadata, where the SMD type alone decides.
	inSchema, resource, typedOnly := st != nil, true, false
	segments := splitPath(path)
	for i, seg := range segments {
		at := strings.Join(segments[:i], ".")
		if seg == "" {
			return FieldInfo{}, fmt.Errorf("%s: empty field name in path %q", gvk, path)
		}
		atom, ok := s.Resolve(cur)
		if !ok {
			return FieldInfo{}, fmt.Errorf("%s: unresolvable type at %q", gvk, at)
		}
		// Enter list elements implicitly (an untyped value is not a list to enter).
		for atom.List != nil && atom.Map == nil && atom.Scalar == nil {
			cur = atom.List.ElementType
			if atom, ok = s.Resolve(cur); !ok {
				return FieldInfo{}, fmt.Errorf("%s: unresolvable element type at %q", gvk, at)
			}
			if inSchema {
				st = st.Items
				inSchema = st != nil
				resource = inSchema && st.XEmbeddedResource
			}
		}
		if atom.Map == nil {
			return FieldInfo{}, fmt.Errorf("%s: %q is a scalar: it has no field %q", gvk, at, seg)
		}
		switch {
		case resource && (seg == "metadata" || seg == "apiVersion" || seg == "kind"):
			inSchema, resource, typedOnly = false, false, true
		case typedOnly:
		case !inSchema:
			return FieldInfo{}, fmt.Errorf("%s: %q has no schema: it has no field %q", gvk, at, seg)
		case st.Properties != nil:
			p, ok := st.Properties[seg]
			if !ok {
				return FieldInfo{}, fmt.Errorf("%s: field %q does not exist", gvk, strings.Join(segments[:i+1], "."))
			}
			st = p
			resource = st.XEmbeddedResource
		case st.AdditionalProperties != nil:
			// A key of a map: enter its values.
			st = st.AdditionalProperties.Structural
			inSchema = st != nil
			resource = inSchema && st.XEmbeddedResource
		case st.XPreserveUnknownFields:
			return FieldInfo{}, fmt.Errorf("%s: field %q is not in the schema (%q keeps unknown fields: x-kubernetes-preserve-unknown-fields)", gvk, strings.Join(segments[:i+1], "."), at)
		default:
			return FieldInfo{}, fmt.Errorf("%s: field %q does not exist", gvk, strings.Join(segments[:i+1], "."))
		}
		if f, ok := atom.Map.FindField(seg); ok {
			cur = f.Type
		} else if atom.Map.ElementType != (smdschema.TypeRef{}) {
			cur = atom.Map.ElementType
		} else {
			return FieldInfo{}, fmt.Errorf("%s: field %q does not exist", gvk, strings.Join(segments[:i+1], "."))
		}
	}
	out := FieldInfo{Path: strings.Join(segments, "."), CustomResource: true}
	atom, ok := s.Resolve(cur)
	if !ok {
		return FieldInfo{}, fmt.Errorf("%s: unresolvable type at %q", gvk, out.Path)
	}
	if cur.NamedType != nil && !strings.HasPrefix(*cur.NamedType, "__untyped") {
		out.TypeName = *cur.NamedType
	}
	describe(s, cur, atom, &out)
	if inSchema {
		out.SchemaType = st.Type
		if st.ValueValidation != nil && st.ValueValidation.Format != "" {
			out.SchemaType = strings.TrimSpace(out.SchemaType + " (format " + st.ValueValidation.Format + ")")
		}
		out.Nullable = st.Nullable
		out.Default = value.Clone(st.Default)
		out.PreserveUnknownFields = st.XPreserveUnknownFields
		out.IntOrString = st.XIntOrString
		out.EmbeddedResource = st.XEmbeddedResource
	}
	return out, nil
}

// untypedFields lists the fields of an untyped value's map side, sorted.
func untypedFields(m *smdschema.Map) []string {
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m.Fields))
	for _, f := range m.Fields {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}
