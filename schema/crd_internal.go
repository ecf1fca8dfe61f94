package schema

import (
	"fmt"
	"sort"
	"strings"
)

// Some CRD validation errors carry the apiserver's internal API structs as their value (printed
// as JSON of Go structs without tags). These mirror their shape and field order.

type internalJSONSchemaProps struct {
	ID                     string
	Schema                 string
	Ref                    *string
	Description            string
	Type                   string
	Nullable               bool
	Format                 string
	Title                  string
	Default                *any
	Maximum                *float64
	ExclusiveMaximum       bool
	Minimum                *float64
	ExclusiveMinimum       bool
	MaxLength              *int64
	MinLength              *int64
	Pattern                string
	MaxItems               *int64
	MinItems               *int64
	UniqueItems            bool
	MultipleOf             *float64
	Enum                   []any
	MaxProperties          *int64
	MinProperties          *int64
	Required               []string
	Items                  *internalPropsOrArray
	AllOf                  []internalJSONSchemaProps
	OneOf                  []internalJSONSchemaProps
	AnyOf                  []internalJSONSchemaProps
	Not                    *internalJSONSchemaProps
	Properties             map[string]internalJSONSchemaProps
	AdditionalProperties   *internalPropsOrBool
	PatternProperties      map[string]internalJSONSchemaProps
	Dependencies           map[string]any
	AdditionalItems        *internalPropsOrBool
	Definitions            map[string]internalJSONSchemaProps
	ExternalDocs           *internalExternalDocs
	Example                *any
	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	XValidations           []internalValidationRule
}

type internalPropsOrArray struct {
	Schema      *internalJSONSchemaProps
	JSONSchemas []internalJSONSchemaProps
}

type internalPropsOrBool struct {
	Allows bool
	Schema *internalJSONSchemaProps
}

type internalExternalDocs struct {
	Description string
	URL         string
}

type internalValidationRule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

func internalPropsList(l []Props) []internalJSONSchemaProps {
	if l == nil {
		return nil
	}
	out := make([]internalJSONSchemaProps, len(l))
	for i := range l {
		out[i] = *internalProps(&l[i])
	}
	return out
}

func internalPropsMap(m map[string]*Props) map[string]internalJSONSchemaProps {
	if m == nil {
		return nil
	}
	out := make(map[string]internalJSONSchemaProps, len(m))
	for k, v := range m {
		out[k] = *internalProps(v)
	}
	return out
}

// internalProps converts p to the internal JSONSchemaProps shape.
func internalProps(p *Props) *internalJSONSchemaProps {
	if p == nil {
		return nil
	}
	o := &internalJSONSchemaProps{
		ID: p.ID, Schema: p.Schema, Ref: p.Ref, Description: p.Description, Type: p.Type, Nullable: p.Nullable,
		Format: p.Format, Title: p.Title, Maximum: p.Maximum, ExclusiveMaximum: p.ExclusiveMaximum, Minimum: p.Minimum,
		ExclusiveMinimum: p.ExclusiveMinimum, MaxLength: p.MaxLength, MinLength: p.MinLength, Pattern: p.Pattern,
		MaxItems: p.MaxItems, MinItems: p.MinItems, UniqueItems: p.UniqueItems, MultipleOf: p.MultipleOf, Enum: p.Enum,
		MaxProperties: p.MaxProperties, MinProperties: p.MinProperties, Required: p.Required,
		AllOf: internalPropsList(p.AllOf), OneOf: internalPropsList(p.OneOf), AnyOf: internalPropsList(p.AnyOf),
		Not: internalProps(p.Not), Properties: internalPropsMap(p.Properties), PatternProperties: internalPropsMap(p.PatternProperties),
		Dependencies: p.Dependencies, Definitions: internalPropsMap(p.Definitions),
		XPreserveUnknownFields: p.XPreserveUnknownFields, XEmbeddedResource: p.XEmbeddedResource, XIntOrString: p.XIntOrString,
		XListMapKeys: p.XListMapKeys, XListType: p.XListType, XMapType: p.XMapType,
	}
	if p.HasDefault && p.Default != nil {
		d := p.Default
		o.Default = &d
	}
	if p.HasExample && p.Example != nil {
		e := p.Example
		o.Example = &e
	}
	if p.Items != nil || p.ItemsArray != nil {
		o.Items = &internalPropsOrArray{Schema: internalProps(p.Items), JSONSchemas: internalPropsList(p.ItemsArray)}
	}
	if p.AdditionalProperties != nil {
		o.AdditionalProperties = &internalPropsOrBool{Allows: p.AdditionalProperties.Allows, Schema: internalProps(p.AdditionalProperties.Schema)}
	}
	if p.AdditionalItems != nil {
		o.AdditionalItems = &internalPropsOrBool{Allows: p.AdditionalItems.Allows, Schema: internalProps(p.AdditionalItems.Schema)}
	}
	if p.ExternalDocs != nil {
		o.ExternalDocs = &internalExternalDocs{Description: p.ExternalDocs.Description, URL: p.ExternalDocs.URL}
	}
	for _, r := range p.XValidations {
		m, _ := r.(map[string]any)
		vr := internalValidationRule{}
		vr.Rule, _ = m["rule"].(string)
		vr.Message, _ = m["message"].(string)
		vr.MessageExpression, _ = m["messageExpression"].(string)
		vr.FieldPath, _ = m["fieldPath"].(string)
		if s, ok := m["reason"].(string); ok {
			vr.Reason = &s
		}
		if b, ok := m["optionalOldSelf"].(bool); ok {
			vr.OptionalOldSelf = &b
		}
		o.XValidations = append(o.XValidations, vr)
	}
	return o
}

// allowedFieldsAtRootSchema are the root schema fields allowed with the status subresource.
var allowedFieldsAtRootSchema = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// rootFieldsSet lists the internal field names set (non-zero) at p, in struct order.
func rootFieldsSet(p *Props) []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("ID", p.ID != "")
	add("Schema", p.Schema != "")
	add("Ref", p.Ref != nil)
	add("Description", p.Description != "")
	add("Type", p.Type != "")
	add("Nullable", p.Nullable)
	add("Format", p.Format != "")
	add("Title", p.Title != "")
	add("Default", p.HasDefault && p.Default != nil)
	add("Maximum", p.Maximum != nil)
	add("ExclusiveMaximum", p.ExclusiveMaximum)
	add("Minimum", p.Minimum != nil)
	add("ExclusiveMinimum", p.ExclusiveMinimum)
	add("MaxLength", p.MaxLength != nil)
	add("MinLength", p.MinLength != nil)
	add("Pattern", p.Pattern != "")
	add("MaxItems", p.MaxItems != nil)
	add("MinItems", p.MinItems != nil)
	add("UniqueItems", p.UniqueItems)
	add("MultipleOf", p.MultipleOf != nil)
	add("Enum", p.Enum != nil)
	add("MaxProperties", p.MaxProperties != nil)
	add("MinProperties", p.MinProperties != nil)
	add("Required", p.Required != nil)
	add("Items", p.Items != nil || p.ItemsArray != nil)
	add("AllOf", p.AllOf != nil)
	add("OneOf", p.OneOf != nil)
	add("AnyOf", p.AnyOf != nil)
	add("Not", p.Not != nil)
	add("Properties", p.Properties != nil)
	add("AdditionalProperties", p.AdditionalProperties != nil)
	add("PatternProperties", p.PatternProperties != nil)
	add("Dependencies", p.Dependencies != nil)
	add("AdditionalItems", p.AdditionalItems != nil)
	add("Definitions", p.Definitions != nil)
	add("ExternalDocs", p.ExternalDocs != nil)
	add("Example", p.HasExample && p.Example != nil)
	add("XPreserveUnknownFields", p.XPreserveUnknownFields != nil)
	add("XEmbeddedResource", p.XEmbeddedResource)
	add("XIntOrString", p.XIntOrString)
	add("XListMapKeys", p.XListMapKeys != nil)
	add("XListType", p.XListType != nil)
	add("XMapType", p.XMapType != nil)
	add("XValidations", p.XValidations != nil)
	return out
}

// rootStatusErrors is the status-subresource restriction of the root schema: only object type
// and a list of fields (allowedFieldsAtRootSchema), the first offending field reported.
func rootStatusErrors(p *Props) (typeErr bool, fieldErr bool) {
	allowed := map[string]bool{}
	for _, f := range allowedFieldsAtRootSchema {
		allowed[f] = true
	}
	for _, f := range rootFieldsSet(p) {
		if f == "Type" {
			if p.Type != "object" {
				return true, false
			}
			continue
		}
		if !allowed[f] {
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
	OpenAPIV3Schema *internalJSONSchemaProps
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

var _ = sort.Strings
var _ = strings.Join
