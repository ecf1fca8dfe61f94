package cel

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"

	"github.com/writepath/writepath/schema"
)

// DeclType is the CEL type of a structural schema node, with the size bounds cost estimation
// uses (k8s.io/apiserver/pkg/cel.DeclType): objects are named object types whose fields are the
// escaped property names; maps (additionalProperties) and lists are CEL maps and lists.
type DeclType struct {
	name              string
	celType           *celgo.Type
	Fields            map[string]*DeclField
	KeyType, ElemType *DeclType
	MaxElements       int64
	MinSerializedSize int64
}

// DeclField is a field of an object DeclType.
type DeclField struct {
	Name     string
	Type     *DeclType
	Required bool
}

// CelType returns the CEL type.
func (t *DeclType) CelType() *celgo.Type { return t.celType }

// TypeName is the type's name ("object"/"selfType.spec" for objects, "list", "map", "string"...).
func (t *DeclType) TypeName() string { return t.name }

func (t *DeclType) isList() bool   { return t.KeyType == nil && t.ElemType != nil && t.Fields == nil }
func (t *DeclType) isMap() bool    { return t.KeyType != nil && t.ElemType != nil && t.Fields == nil }
func (t *DeclType) isObject() bool { return t.KeyType == nil && t.ElemType == nil && t.Fields != nil }

func newListType(elem *DeclType, maxItems int64) *DeclType {
	return &DeclType{name: "list", ElemType: elem, MaxElements: maxItems, celType: celgo.ListType(elem.celType), MinSerializedSize: 2}
}

func newMapType(key, elem *DeclType, maxProps int64) *DeclType {
	return &DeclType{name: "map", KeyType: key, ElemType: elem, MaxElements: maxProps, celType: celgo.MapType(key.celType, elem.celType), MinSerializedSize: 2}
}

func newObjectType(name string, fields map[string]*DeclField) *DeclType {
	return &DeclType{name: name, Fields: fields, celType: celgo.ObjectType(name), MinSerializedSize: 2}
}

func newSimple(name string, t *celgo.Type, minSize int64) *DeclType {
	return &DeclType{name: name, celType: t, MinSerializedSize: minSize}
}

var (
	declString = newSimple("string", celgo.StringType, MinStringSize)
	declBool   = newSimple("bool", celgo.BoolType, MinBoolSize)
	declDouble = newSimple("double", celgo.DoubleType, MinNumberSize)
	declInt    = newSimple("int", celgo.IntType, MinNumberSize)
)

func zeroIfNegative(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

const maxRequestSizeBytes = MaxRequestSizeBytes

// SchemaDeclType converts a structural schema to its CEL type as the apiserver does
// (common.SchemaDeclType over apiextensions' structural adaptor), or nil where the schema has
// no CEL type (no type, not int-or-string: the node and its rules are not reachable).
func SchemaDeclType(s *schema.Structural, isResourceRoot bool) *DeclType {
	if s == nil {
		return nil
	}
	vv := s.ValueValidation
	if vv == nil {
		vv = &schema.ValueValidation{}
	}
	if s.XIntOrString {
		dyn := newSimple("dyn", celgo.DynType, 1)
		if vv.MaxLength != nil {
			dyn.MaxElements = zeroIfNegative(*vv.MaxLength) * 4
		} else {
			dyn.MaxElements = maxRequestSizeBytes - 2
		}
		return dyn
	}
	if isResourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		if s.Items == nil {
			return nil
		}
		it := SchemaDeclType(s.Items, s.Items.XEmbeddedResource)
		if it == nil {
			return nil
		}
		var maxItems int64
		if vv.MaxItems != nil {
			maxItems = zeroIfNegative(*vv.MaxItems)
		} else {
			maxItems = (maxRequestSizeBytes - 2) / (it.MinSerializedSize + 1)
		}
		return newListType(it, maxItems)
	case "object":
		if ap := s.AdditionalPropertiesSchema(); ap != nil {
			pt := SchemaDeclType(ap, ap.XEmbeddedResource)
			if pt == nil {
				return nil
			}
			var maxProps int64
			if vv.MaxProperties != nil {
				maxProps = zeroIfNegative(*vv.MaxProperties)
			} else {
				maxProps = (maxRequestSizeBytes - 2) / (pt.MinSerializedSize + 6)
			}
			return newMapType(declString, pt, maxProps)
		}
		fields := make(map[string]*DeclField, len(s.Properties))
		required := map[string]bool{}
		for _, f := range vv.Required {
			required[f] = true
		}
		minSize := int64(2)
		for _, name := range s.PropertyNames() {
			prop := s.Properties[name]
			ft := SchemaDeclType(prop, prop.XEmbeddedResource)
			if ft == nil {
				continue
			}
			if pn, ok := Escape(name); ok {
				fields[pn] = &DeclField{Name: pn, Type: ft, Required: required[name]}
			}
			if required[name] && prop.Default == nil {
				minSize += int64(len(name)) + ft.MinSerializedSize + 4
			}
		}
		o := newObjectType("object", fields)
		o.MinSerializedSize = minSize
		return o
	case "string":
		var t *DeclType
		switch vv.Format {
		case "byte":
			t = newSimple("bytes", celgo.BytesType, MinStringSize)
			if vv.MaxLength != nil {
				t.MaxElements = zeroIfNegative(*vv.MaxLength)
			} else {
				t.MaxElements = maxRequestSizeBytes - 2
			}
			return t
		case "duration":
			t = newSimple("duration", celgo.DurationType, MinDurationSizeJSON)
			t.MaxElements = MaxDurationSizeJSON
			return t
		case "date":
			t = newSimple("timestamp", celgo.TimestampType, JSONDateSize)
			t.MaxElements = JSONDateSize
			return t
		case "date-time":
			t = newSimple("timestamp", celgo.TimestampType, MinDatetimeSizeJSON)
			t.MaxElements = MaxDatetimeSizeJSON
			return t
		}
		t = newSimple("string", celgo.StringType, MinStringSize)
		switch {
		case vv.MaxLength != nil:
			t.MaxElements = zeroIfNegative(*vv.MaxLength) * 4
		case len(vv.Enum) > 0:
			var m int64
			for _, e := range vv.Enum {
				if es, ok := e.(string); ok && int64(len(es)) > m {
					m = int64(len(es))
				}
			}
			t.MaxElements = m
		default:
			t.MaxElements = maxRequestSizeBytes - 2
		}
		return t
	case "boolean":
		return declBool
	case "number":
		return declDouble
	case "integer":
		return declInt
	}
	return nil
}

// withTypeAndObjectMeta adds apiVersion, kind and metadata.{name,generateName} to the schema of
// a resource root or embedded resource, as apiextensions does for CEL (name capped at 253
// bytes, generateName at 252). The result is made anew on each call, as the apiserver's
// WithTypeAndObjectMeta does: no state is kept by schema pointer.
func withTypeAndObjectMeta(s *schema.Structural) *schema.Structural {
	isType := func(p *schema.Structural, t string) bool { return p != nil && p.Type == t }
	if s.Properties != nil && isType(s.Properties["kind"], "string") && isType(s.Properties["apiVersion"], "string") &&
		isType(s.Properties["metadata"], "object") && s.Properties["metadata"].Properties != nil &&
		isType(s.Properties["metadata"].Properties["name"], "string") && isType(s.Properties["metadata"].Properties["generateName"], "string") {
		return s
	}
	r := *s
	r.Properties = make(map[string]*schema.Structural, len(s.Properties)+3)
	for k, p := range s.Properties {
		r.Properties[k] = p
	}
	r.Properties["kind"] = &schema.Structural{Type: "string"}
	r.Properties["apiVersion"] = &schema.Structural{Type: "string"}
	var mdProps map[string]*schema.Structural
	if md := s.Properties["metadata"]; md != nil {
		mdProps = md.Properties
	}
	r.Properties["metadata"] = &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"name":         cappedString(mdProps["name"], 253),
		"generateName": cappedString(mdProps["generateName"], 252),
	}}
	return &r
}

func cappedString(existing *schema.Structural, maxLength int64) *schema.Structural {
	if existing != nil && existing.ValueValidation != nil && existing.ValueValidation.MaxLength != nil && *existing.ValueValidation.MaxLength < maxLength {
		maxLength = *existing.ValueValidation.MaxLength
	}
	return &schema.Structural{Type: "string", ValueValidation: &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{MaxLength: &maxLength}}}
}

// withTypeName names an object type and, recursively, its nested object types
// (<name>.<field>, <name>.@elem for map values, <name>.@idx for list items), as
// DeclType.MaybeAssignTypeName does.
func (t *DeclType) withTypeName(name string) *DeclType {
	switch {
	case t.isObject():
		updated := false
		if t.name != "object" {
			name = t.name
		} else {
			updated = true
		}
		fields := make(map[string]*DeclField, len(t.Fields))
		for fn, f := range t.Fields {
			u := f.Type.withTypeName(fmt.Sprintf("%s.%s", name, fn))
			if u == f.Type {
				fields[fn] = f
				continue
			}
			updated = true
			fields[fn] = &DeclField{Name: fn, Type: u, Required: f.Required}
		}
		if !updated {
			return t
		}
		o := newObjectType(name, fields)
		o.MinSerializedSize = t.MinSerializedSize
		return o
	case t.isMap():
		u := t.ElemType.withTypeName(name + ".@elem")
		if u == t.ElemType {
			return t
		}
		return newMapType(t.KeyType, u, t.MaxElements)
	case t.isList():
		u := t.ElemType.withTypeName(name + ".@idx")
		if u == t.ElemType {
			return t
		}
		return newListType(u, t.MaxElements)
	}
	return t
}
