package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Some CRD validation errors carry the apiserver's internal API structs as their value, printed
// as the JSON of Go structs without tags: every field, in declaration order, by its Go name. A
// internalStruct is that rendering; internalPropsFields is the one list of the internal JSONSchemaProps
// fields in their order, used both to render a schema and to tell which fields it sets.

// internalField is one field of a internalStruct: its Go name, whether it is set (non-zero), and its value.
type internalField struct {
	name  string
	set   bool
	value any
}

// internalStruct renders as encoding/json renders a Go struct without tags.
type internalStruct []internalField

func (g internalStruct) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range g {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.name))
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// internalPropsFields lists the internal JSONSchemaProps fields of p in the internal struct's order.
func internalPropsFields(p *Props) internalStruct {
	var def, example any
	if p.HasDefault && p.Default != nil {
		def = p.Default
	}
	if p.HasExample && p.Example != nil {
		example = p.Example
	}
	var items any
	if p.Items != nil || p.ItemsArray != nil {
		items = internalStruct{{"Schema", p.Items != nil, internalProps(p.Items)}, {"JSONSchemas", p.ItemsArray != nil, internalPropsList(p.ItemsArray)}}
	}
	var externalDocs any
	if p.ExternalDocs != nil {
		externalDocs = internalStruct{{"Description", p.ExternalDocs.Description != "", p.ExternalDocs.Description}, {"URL", p.ExternalDocs.URL != "", p.ExternalDocs.URL}}
	}
	var rules []internalStruct
	for _, r := range p.XValidations {
		m, _ := r.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		var reason *string
		if s, ok := m["reason"].(string); ok {
			reason = &s
		}
		var optionalOldSelf *bool
		if b, ok := m["optionalOldSelf"].(bool); ok {
			optionalOldSelf = &b
		}
		rules = append(rules, internalStruct{{"Rule", true, str("rule")}, {"Message", true, str("message")},
			{"MessageExpression", true, str("messageExpression")}, {"Reason", true, reason},
			{"FieldPath", true, str("fieldPath")}, {"OptionalOldSelf", true, optionalOldSelf}})
	}
	return internalStruct{
		{"ID", p.ID != "", p.ID},
		{"Schema", p.Schema != "", p.Schema},
		{"Ref", p.Ref != nil, p.Ref},
		{"Description", p.Description != "", p.Description},
		{"Type", p.Type != "", p.Type},
		{"Nullable", p.Nullable, p.Nullable},
		{"Format", p.Format != "", p.Format},
		{"Title", p.Title != "", p.Title},
		{"Default", def != nil, def},
		{"Maximum", p.Maximum != nil, p.Maximum},
		{"ExclusiveMaximum", p.ExclusiveMaximum, p.ExclusiveMaximum},
		{"Minimum", p.Minimum != nil, p.Minimum},
		{"ExclusiveMinimum", p.ExclusiveMinimum, p.ExclusiveMinimum},
		{"MaxLength", p.MaxLength != nil, p.MaxLength},
		{"MinLength", p.MinLength != nil, p.MinLength},
		{"Pattern", p.Pattern != "", p.Pattern},
		{"MaxItems", p.MaxItems != nil, p.MaxItems},
		{"MinItems", p.MinItems != nil, p.MinItems},
		{"UniqueItems", p.UniqueItems, p.UniqueItems},
		{"MultipleOf", p.MultipleOf != nil, p.MultipleOf},
		{"Enum", p.Enum != nil, p.Enum},
		{"MaxProperties", p.MaxProperties != nil, p.MaxProperties},
		{"MinProperties", p.MinProperties != nil, p.MinProperties},
		{"Required", p.Required != nil, p.Required},
		{"Items", items != nil, items},
		{"AllOf", p.AllOf != nil, internalPropsList(p.AllOf)},
		{"OneOf", p.OneOf != nil, internalPropsList(p.OneOf)},
		{"AnyOf", p.AnyOf != nil, internalPropsList(p.AnyOf)},
		{"Not", p.Not != nil, internalProps(p.Not)},
		{"Properties", p.Properties != nil, internalPropsMap(p.Properties)},
		{"AdditionalProperties", p.AdditionalProperties != nil, internalPropsOrBool(p.AdditionalProperties)},
		{"PatternProperties", p.PatternProperties != nil, internalPropsMap(p.PatternProperties)},
		{"Dependencies", p.Dependencies != nil, p.Dependencies},
		{"AdditionalItems", p.AdditionalItems != nil, internalPropsOrBool(p.AdditionalItems)},
		{"Definitions", p.Definitions != nil, internalPropsMap(p.Definitions)},
		{"ExternalDocs", externalDocs != nil, externalDocs},
		{"Example", example != nil, example},
		{"XPreserveUnknownFields", p.XPreserveUnknownFields != nil, p.XPreserveUnknownFields},
		{"XEmbeddedResource", p.XEmbeddedResource, p.XEmbeddedResource},
		{"XIntOrString", p.XIntOrString, p.XIntOrString},
		{"XListMapKeys", p.XListMapKeys != nil, p.XListMapKeys},
		{"XListType", p.XListType != nil, p.XListType},
		{"XMapType", p.XMapType != nil, p.XMapType},
		{"XValidations", p.XValidations != nil, rules},
	}
}

// internalProps is p in the internal JSONSchemaProps shape, nil (JSON null) for a nil p.
func internalProps(p *Props) any {
	if p == nil {
		return nil
	}
	return internalPropsFields(p)
}

func internalPropsList(l []Props) []internalStruct {
	if l == nil {
		return nil
	}
	out := make([]internalStruct, len(l))
	for i := range l {
		out[i] = internalPropsFields(&l[i])
	}
	return out
}

func internalPropsMap(m map[string]*Props) map[string]internalStruct {
	if m == nil {
		return nil
	}
	out := make(map[string]internalStruct, len(m))
	for k, v := range m {
		out[k] = internalPropsFields(v)
	}
	return out
}

func internalPropsOrBool(b *PropsOrBool) any {
	if b == nil {
		return nil
	}
	return internalStruct{{"Allows", b.Allows, b.Allows}, {"Schema", b.Schema != nil, internalProps(b.Schema)}}
}

// allowedFieldsAtRootSchema are the root schema fields allowed with the status subresource.
var allowedFieldsAtRootSchema = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// rootStatusErrors is the status-subresource restriction of the root schema: only object type
// and a list of fields (allowedFieldsAtRootSchema), the first offending field reported.
func rootStatusErrors(p *Props) (typeErr bool, fieldErr bool) {
	allowed := map[string]bool{}
	for _, f := range allowedFieldsAtRootSchema {
		allowed[f] = true
	}
	for _, f := range internalPropsFields(p) {
		if !f.set {
			continue
		}
		if f.name == "Type" {
			if p.Type != "object" {
				return true, false
			}
			continue
		}
		if !allowed[f.name] {
			return false, true
		}
	}
	return false, false
}

func allowedRootFieldsText() string {
	return fmt.Sprintf("%v", allowedFieldsAtRootSchema)
}

type internalCRDVersion struct {
	Name                     string
	Served                   bool
	Storage                  bool
	Deprecated               bool
	DeprecationWarning       *string
	Schema                   *internalValidation
	Subresources             *internalSubresources
	AdditionalPrinterColumns []internalColumn
	SelectableFields         []internalSelectableField
}

type internalValidation struct {
	OpenAPIV3Schema any
}

type internalSubresources struct {
	Status *struct{}
	Scale  *internalScale
}

type internalScale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  *string
}

type internalColumn struct {
	Name        string
	Type        string
	Format      string
	Description string
	Priority    int32
	JSONPath    string
}

type internalSelectableField struct {
	JSONPath string
}

// internalVersions is spec.versions as the internal API holds it after conversion (schemas and
// subresources identical in every version moved to the spec).
func internalVersions(c *CRD, hoistSchema, hoistSubresources, hoistColumns, hoistSelectable bool) []internalCRDVersion {
	out := make([]internalCRDVersion, len(c.Versions))
	for i, v := range c.Versions {
		iv := internalCRDVersion{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated, DeprecationWarning: v.DeprecationWarning}
		if !hoistSchema && v.rawSchema != nil {
			iv.Schema = &internalValidation{OpenAPIV3Schema: internalProps(v.Props)}
		}
		if !hoistSubresources && v.rawSubresources != nil {
			sr := &internalSubresources{}
			if v.Subresources.Status {
				sr.Status = &struct{}{}
			}
			if sc := v.Subresources.Scale; sc != nil {
				sr.Scale = &internalScale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath, LabelSelectorPath: sc.LabelSelectorPath}
			}
			iv.Subresources = sr
		}
		if !hoistColumns {
			for _, col := range v.PrinterColumns {
				iv.AdditionalPrinterColumns = append(iv.AdditionalPrinterColumns, internalColumn(col))
			}
		}
		if !hoistSelectable {
			for _, sf := range v.SelectableFields {
				iv.SelectableFields = append(iv.SelectableFields, internalSelectableField{JSONPath: sf})
			}
		}
		out[i] = iv
	}
	return out
}
