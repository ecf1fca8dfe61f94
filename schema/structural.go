package schema

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
)

// Structural is a structural schema (KEP 1002): every specified field has a type, value
// validations (allOf/anyOf/oneOf/not) add no types of their own, and the shape of objects is fully
// given by Properties, AdditionalProperties and Items. It is what the apiserver prunes, defaults and
// correlates objects with. A Structural is read-only once built: share it freely.
type Structural struct {
	Type        string
	Description string
	Title       string
	// Default is the `default` value, nil for none (a `default: null` is no default either).
	Default  any
	Nullable bool
	Example  any

	Items                *Structural
	Properties           map[string]*Structural
	AdditionalProperties *StructuralOrBool

	XPreserveUnknownFields bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	// XListType and XMapType are "" when unset.
	XListType string
	XMapType  string
	// XValidations are the x-kubernetes-validations rules as written (for CEL).
	XValidations []any

	ValueValidation *ValueValidation

	propertyOrder []string
}

// StructuralOrBool is the `additionalProperties` of a structural schema: a schema, or the boolean
// form (Schema nil).
type StructuralOrBool struct {
	Structural *Structural
	Bool       bool
}

// ValueValidation holds the value validations of a structural schema node (what apiextensions
// keeps besides the shape).
type ValueValidation struct {
	ValueKeywords
	AllOf []NestedValueValidation
	OneOf []NestedValueValidation
	AnyOf []NestedValueValidation
	Not   *NestedValueValidation
}

// NestedValueValidation is a value validation inside allOf/anyOf/oneOf/not. The Forbidden*
// fields record what a structural schema must not specify there.
type NestedValueValidation struct {
	ValueValidation
	XValidations         []any
	Items                *NestedValueValidation
	Properties           map[string]*NestedValueValidation
	AdditionalProperties *NestedValueValidation

	ForbiddenType        string
	ForbiddenDefault     any
	ForbiddenTitle       string
	ForbiddenDescription string
	ForbiddenNullable    bool

	ForbiddenPreserveUnknownFields bool
	ForbiddenEmbeddedResource      bool
	ForbiddenIntOrString           bool
	ForbiddenListMapKeys           []string
	ForbiddenListType              *string
	ForbiddenMapType               *string
}

// PropertyNames returns the names of s.Properties in sorted order.
func (s *Structural) PropertyNames() []string {
	if s == nil {
		return nil
	}
	return orderOrSorted(s.propertyOrder, s.Properties)
}

// AdditionalPropertiesSchema returns the additionalProperties schema, or nil.
func (s *Structural) AdditionalPropertiesSchema() *Structural {
	if s == nil || s.AdditionalProperties == nil {
		return nil
	}
	return s.AdditionalProperties.Structural
}

// NewStructural builds the structural schema of p, like apiextensions' schema.NewStructural: it
// fails on constructs no structural schema can hold ('id', '$ref', 'patternProperties', items as
// an array, ...), with the apiserver's messages. Whether the result really is structural is
// checked by ValidateStructural.
func NewStructural(p *Props) (*Structural, error) {
	if p == nil {
		return nil, nil
	}
	if err := validateUnsupportedFields(p); err != nil {
		return nil, err
	}
	vv, err := newValueValidation(p)
	if err != nil {
		return nil, err
	}
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		return nil, errors.New("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	}
	s := &Structural{
		Type:                   p.Type,
		Description:            p.Description,
		Title:                  p.Title,
		Nullable:               p.Nullable,
		XPreserveUnknownFields: p.XPreserveUnknownFields != nil,
		XEmbeddedResource:      p.XEmbeddedResource,
		XIntOrString:           p.XIntOrString,
		XListMapKeys:           p.XListMapKeys,
		XValidations:           p.XValidations,
		ValueValidation:        vv,
	}
	if p.HasDefault {
		s.Default = p.Default
	}
	if p.HasExample {
		s.Example = p.Example
	}
	if p.XListType != nil {
		s.XListType = *p.XListType
	}
	if p.XMapType != nil {
		s.XMapType = *p.XMapType
	}
	if p.ItemsArray != nil {
		return nil, errors.New("OpenAPIV3Schema 'items' must be a schema, but is an array")
	}
	if p.Items != nil {
		if s.Items, err = NewStructural(p.Items); err != nil {
			return nil, err
		}
	}
	if len(p.Properties) > 0 {
		s.Properties = make(map[string]*Structural, len(p.Properties))
		for _, k := range p.propertyOrderOrSorted() {
			f, err := NewStructural(p.Properties[k])
			if err != nil {
				return nil, err
			}
			s.Properties[k] = f
		}
		s.propertyOrder = p.propertyOrderOrSorted()
	}
	if p.AdditionalProperties != nil {
		if p.AdditionalProperties.Schema != nil {
			ap, err := NewStructural(p.AdditionalProperties.Schema)
			if err != nil {
				return nil, err
			}
			s.AdditionalProperties = &StructuralOrBool{Structural: ap, Bool: true}
		} else {
			s.AdditionalProperties = &StructuralOrBool{Bool: p.AdditionalProperties.Allows}
		}
	}
	return s, nil
}

func (p *Props) propertyOrderOrSorted() []string { return orderOrSorted(p.propertyOrder, p.Properties) }

// orderOrSorted is the sorted names of a schema's properties: order when it lists them (set by
// the parser or NewStructural), else sorted afresh (a schema built in code).
func orderOrSorted[T any](order []string, properties map[string]T) []string {
	if len(order) == len(properties) {
		return order
	}
	names := make([]string, 0, len(properties))
	for k := range properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func validateUnsupportedFields(p *Props) error {
	switch {
	case p.ID != "":
		return errors.New("OpenAPIV3Schema 'id' is not supported")
	case p.Schema != "":
		return errors.New("OpenAPIV3Schema 'schema' is not supported")
	case p.Ref != nil && *p.Ref != "":
		return errors.New("OpenAPIV3Schema '$ref' is not supported")
	case len(p.PatternProperties) > 0:
		return errors.New("OpenAPIV3Schema 'patternProperties' is not supported")
	case len(p.Dependencies) > 0:
		return errors.New("OpenAPIV3Schema 'dependencies' is not supported")
	case p.AdditionalItems != nil:
		return errors.New("OpenAPIV3Schema 'additionalItems' is not supported")
	case len(p.Definitions) > 0:
		return errors.New("OpenAPIV3Schema 'definitions' is not supported")
	}
	return nil
}

func newValueValidation(p *Props) (*ValueValidation, error) {
	not, err := newNestedValueValidation(p.Not)
	if err != nil {
		return nil, err
	}
	v := &ValueValidation{ValueKeywords: p.ValueKeywords, Not: not}
	if len(p.Enum) == 0 {
		v.Enum = nil // an empty enum is none
	}
	for i := range p.AllOf {
		c, err := newNestedValueValidation(&p.AllOf[i])
		if err != nil {
			return nil, err
		}
		v.AllOf = append(v.AllOf, *c)
	}
	for i := range p.AnyOf {
		c, err := newNestedValueValidation(&p.AnyOf[i])
		if err != nil {
			return nil, err
		}
		v.AnyOf = append(v.AnyOf, *c)
	}
	for i := range p.OneOf {
		c, err := newNestedValueValidation(&p.OneOf[i])
		if err != nil {
			return nil, err
		}
		v.OneOf = append(v.OneOf, *c)
	}
	return v, nil
}

func newNestedValueValidation(p *Props) (*NestedValueValidation, error) {
	if p == nil {
		return nil, nil
	}
	if err := validateUnsupportedFields(p); err != nil {
		return nil, err
	}
	vv, err := newValueValidation(p)
	if err != nil {
		return nil, err
	}
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		return nil, errors.New("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	}
	v := &NestedValueValidation{
		ValueValidation:                *vv,
		XValidations:                   p.XValidations,
		ForbiddenType:                  p.Type,
		ForbiddenTitle:                 p.Title,
		ForbiddenDescription:           p.Description,
		ForbiddenNullable:              p.Nullable,
		ForbiddenPreserveUnknownFields: p.XPreserveUnknownFields != nil,
		ForbiddenEmbeddedResource:      p.XEmbeddedResource,
		ForbiddenIntOrString:           p.XIntOrString,
		ForbiddenListMapKeys:           p.XListMapKeys,
		ForbiddenListType:              p.XListType,
		ForbiddenMapType:               p.XMapType,
	}
	if p.HasDefault {
		v.ForbiddenDefault = p.Default
	}
	if p.ItemsArray != nil {
		return nil, errors.New("OpenAPIV3Schema 'items' must be a schema, but is an array")
	}
	if p.Items != nil {
		if v.Items, err = newNestedValueValidation(p.Items); err != nil {
			return nil, err
		}
	}
	if p.Properties != nil {
		v.Properties = make(map[string]*NestedValueValidation, len(p.Properties))
		for _, k := range p.propertyOrderOrSorted() {
			n, err := newNestedValueValidation(p.Properties[k])
			if err != nil {
				return nil, err
			}
			v.Properties[k] = n
		}
	}
	if p.AdditionalProperties != nil {
		if p.AdditionalProperties.Schema != nil {
			if v.AdditionalProperties, err = newNestedValueValidation(p.AdditionalProperties.Schema); err != nil {
				return nil, err
			}
		} else if p.AdditionalProperties.Allows {
			v.AdditionalProperties = &NestedValueValidation{}
		}
	}
	return v, nil
}

// ---- structural-schema rules (apiextensions schema.ValidateStructural) ----

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// StructuralOptions relaxes rules the apiserver relaxes for schemas that already used them.
type StructuralOptions struct {
	AllowNestedAdditionalProperties                   bool
	AllowNestedXValidations                           bool
	AllowValidationPropertiesWithAdditionalProperties bool
}

// ValidateStructural checks the structural-schema rules and returns every violation with the
// apiserver's messages, sorted as the apiserver sorts them (by message).
func ValidateStructural(fldPath field.Path, s *Structural) field.ErrorList {
	return ValidateStructuralWithOptions(fldPath, s, StructuralOptions{})
}

// ValidateStructuralWithOptions is ValidateStructural with relaxations.
func ValidateStructuralWithOptions(fldPath field.Path, s *Structural, opts StructuralOptions) field.ErrorList {
	var all field.ErrorList
	validateStructuralInvariants(&all, s, rootLevel, walkFrom(fldPath), opts)
	all = append(all, validateStructuralCompleteness(s, fldPath, opts)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Error() < all[j].Error() })
	return all
}

func strPtrEq(a *string, b string) bool { return a != nil && *a == b }

func isIntOrStringNested(v []NestedValueValidation) bool {
	if len(v) != 2 {
		return false
	}
	want := []string{"integer", "string"}
	for i := range v {
		n := &v[i]
		if !reflect.DeepEqual(*n, NestedValueValidation{ForbiddenType: want[i]}) {
			return false
		}
	}
	return true
}

func isIntOrStringAnyOfPattern(s *Structural) bool {
	return s != nil && s.ValueValidation != nil && isIntOrStringNested(s.ValueValidation.AnyOf)
}

func isIntOrStringAllOfPattern(s *Structural) bool {
	return s != nil && s.ValueValidation != nil && len(s.ValueValidation.AllOf) >= 1 && isIntOrStringNested(s.ValueValidation.AllOf[0].AnyOf)
}

func validateStructuralInvariants(all *field.ErrorList, s *Structural, lvl level, fldPath walkPath, opts StructuralOptions) {
	if s == nil {
		return
	}
	if s.Type == "array" && s.Items == nil {
		*all = append(*all, field.Required(fldPath.Child("items").Path(), "must be specified"))
	}
	validateStructuralInvariants(all, s.Items, itemLevel, fldPath.Child("items"), opts)
	for _, k := range s.PropertyNames() {
		validateStructuralInvariants(all, s.Properties[k], fieldLevel, fldPath.Child("properties").Key(k), opts)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			*all = append(*all, field.Forbidden(fldPath.Child("additionalProperties").Path(), "must not be used at the root"))
		}
		if s.AdditionalProperties.Structural != nil {
			validateStructuralInvariants(all, s.AdditionalProperties.Structural, fieldLevel, fldPath.Child("additionalProperties"), opts)
		}
	}
	if s.XIntOrString && s.XPreserveUnknownFields {
		*all = append(*all, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields").Path(), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		*all = append(*all, field.Invalid(fldPath.Child("x-kubernetes-embedded-resource").Path(), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	validateValueValidation(all, s.ValueValidation, isIntOrStringAnyOfPattern(s), isIntOrStringAllOfPattern(s), lvl, fldPath, opts)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	if s.XEmbeddedResource && s.Type != "object" {
		if s.Type == "" {
			*all = append(*all, field.Required(fldPath.Child("type").Path(), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			*all = append(*all, field.Invalid(fldPath.Child("type").Path(), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	} else if s.Type == "" && !s.XIntOrString && !s.XPreserveUnknownFields {
		switch lvl {
		case rootLevel:
			*all = append(*all, field.Required(fldPath.Child("type").Path(), "must not be empty at the root"))
		case itemLevel:
			*all = append(*all, field.Required(fldPath.Child("type").Path(), "must not be empty for specified array items"))
		case fieldLevel:
			*all = append(*all, field.Required(fldPath.Child("type").Path(), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		*all = append(*all, field.Forbidden(fldPath.Child("additionalProperties").Path(), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		*all = append(*all, field.Invalid(fldPath.Child("type").Path(), s.Type, "must be object at the root"))
	}
	if kind, ok := s.Properties["kind"]; ok && checkMetadata && kind.Type != "string" {
		*all = append(*all, field.Invalid(fldPath.Child("properties").Key("kind").Child("type").Path(), kind.Type, "must be string"))
	}
	if av, ok := s.Properties["apiVersion"]; ok && checkMetadata && av.Type != "string" {
		*all = append(*all, field.Invalid(fldPath.Child("properties").Key("apiVersion").Child("type").Path(), av.Type, "must be string"))
	}
	if md, ok := s.Properties["metadata"]; ok {
		*all = append(*all, validateStructuralMetadataInvariants(md, checkMetadata, lvl, fldPath.Child("properties").Key("metadata"))...)
	}
	if s.XEmbeddedResource && !s.XPreserveUnknownFields && len(s.Properties) == 0 {
		*all = append(*all, field.Required(fldPath.Child("properties").Path(), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return
}

func validateStructuralMetadataInvariants(s *Structural, checkMetadata bool, lvl level, fldPath walkPath) field.ErrorList {
	var all field.ErrorList
	if checkMetadata && s.Type != "object" {
		all = append(all, field.Invalid(fldPath.Child("type").Path(), s.Type, "must be object"))
	}
	if lvl == rootLevel {
		// Only name and generateName may be specified under the root metadata (and neither needs
		// more than a type); anything else is forbidden.
		c := *s
		_, foundName := c.Properties["name"]
		_, foundGenerateName := c.Properties["generateName"]
		if (foundName && foundGenerateName && len(c.Properties) == 2) || ((foundName || foundGenerateName) && len(c.Properties) == 1) {
			c.Properties = nil
			c.propertyOrder = nil
		}
		c.Type = ""
		c.Default = nil
		if c.ValueValidation == nil {
			c.ValueValidation = &ValueValidation{}
		}
		if len(c.Properties) == 0 {
			c.Properties = nil
			c.propertyOrder = nil
		}
		if !isEmptyStructuralExceptVV(&c) || !reflect.DeepEqual(*c.ValueValidation, ValueValidation{}) {
			all = append(all, field.Forbidden(fldPath.Path(), "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	return all
}

func isEmptyStructuralExceptVV(s *Structural) bool {
	return s.Type == "" && s.Description == "" && s.Title == "" && s.Default == nil && !s.Nullable &&
		s.Example == nil && s.Items == nil && s.Properties == nil && s.AdditionalProperties == nil &&
		!s.XPreserveUnknownFields && !s.XEmbeddedResource && !s.XIntOrString && s.XListMapKeys == nil &&
		s.XListType == "" && s.XMapType == "" && s.XValidations == nil
}

func validateValueValidation(all *field.ErrorList, v *ValueValidation, skipAnyOf, skipFirstAllOfAnyOf bool, lvl level, fldPath walkPath, opts StructuralOptions) {
	if v == nil {
		return
	}
	noCEL := opts
	noCEL.AllowNestedXValidations = false
	if !skipAnyOf {
		for i := range v.AnyOf {
			validateNestedValueValidation(all, &v.AnyOf[i], false, false, lvl, fldPath.Child("anyOf").Index(i), noCEL)
		}
	}
	for i := range v.AllOf {
		validateNestedValueValidation(all, &v.AllOf[i], skipFirstAllOfAnyOf && i == 0, false, lvl, fldPath.Child("allOf").Index(i), opts)
	}
	for i := range v.OneOf {
		validateNestedValueValidation(all, &v.OneOf[i], false, false, lvl, fldPath.Child("oneOf").Index(i), noCEL)
	}
	validateNestedValueValidation(all, v.Not, false, false, lvl, fldPath.Child("not"), noCEL)
	if v.Pattern != "" {
		if _, err := regexp.Compile(v.Pattern); err != nil {
			*all = append(*all, field.Invalid(fldPath.Child("pattern").Path(), v.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func validateNestedValueValidation(all *field.ErrorList, v *NestedValueValidation, skipAnyOf, skipAllOfAnyOf bool, lvl level, fldPath walkPath, opts StructuralOptions) {
	if v == nil {
		return
	}
	validateValueValidation(all, &v.ValueValidation, skipAnyOf, skipAllOfAnyOf, lvl, fldPath, opts)
	validateNestedValueValidation(all, v.Items, false, false, lvl, fldPath.Child("items"), opts)
	for _, k := range sortedKeys(v.Properties) {
		validateNestedValueValidation(all, v.Properties[k], false, false, fieldLevel, fldPath.Child("properties").Key(k), opts)
	}
	if v.ForbiddenType != "" {
		*all = append(*all, field.Forbidden(fldPath.Child("type").Path(), "must be empty to be structural"))
	}
	if v.AdditionalProperties != nil && !opts.AllowNestedAdditionalProperties {
		*all = append(*all, field.Forbidden(fldPath.Child("additionalProperties").Path(), "must be undefined to be structural"))
	} else {
		validateNestedValueValidation(all, v.AdditionalProperties, false, false, lvl, fldPath.Child("additionalProperties"), opts)
	}
	if v.ForbiddenDefault != nil {
		*all = append(*all, field.Forbidden(fldPath.Child("default").Path(), "must be undefined to be structural"))
	}
	if v.ForbiddenTitle != "" {
		*all = append(*all, field.Forbidden(fldPath.Child("title").Path(), "must be empty to be structural"))
	}
	if v.ForbiddenDescription != "" {
		*all = append(*all, field.Forbidden(fldPath.Child("description").Path(), "must be empty to be structural"))
	}
	if v.ForbiddenNullable {
		*all = append(*all, field.Forbidden(fldPath.Child("nullable").Path(), "must be false to be structural"))
	}
	if v.ForbiddenPreserveUnknownFields {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-preserve-unknown-fields").Path(), "must be false to be structural"))
	}
	if v.ForbiddenEmbeddedResource {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource").Path(), "must be false to be structural"))
	}
	if v.ForbiddenIntOrString {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-int-or-string").Path(), "must be false to be structural"))
	}
	if len(v.ForbiddenListMapKeys) > 0 {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-list-map-keys").Path(), "must be empty to be structural"))
	}
	if v.ForbiddenListType != nil {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-list-type").Path(), "must be undefined to be structural"))
	}
	if v.ForbiddenMapType != nil {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-map-type").Path(), "must be undefined to be structural"))
	}
	if len(v.XValidations) > 0 && !opts.AllowNestedXValidations {
		*all = append(*all, field.Forbidden(fldPath.Child("x-kubernetes-validations").Path(), "must be empty to be structural"))
	}
	if _, ok := v.Properties["metadata"]; ok {
		*all = append(*all, field.Forbidden(fldPath.Child("properties").Key("metadata").Path(), "must not be specified in a nested context"))
	}
	return
}

func validateStructuralCompleteness(s *Structural, fldPath field.Path, opts StructuralOptions) field.ErrorList {
	if s == nil {
		return nil
	}
	return validateValueValidationCompleteness(s.ValueValidation, s, fldPath, fldPath, opts)
}

func validateValueValidationCompleteness(v *ValueValidation, s *Structural, sPath, vPath field.Path, opts StructuralOptions) field.ErrorList {
	if v == nil {
		return nil
	}
	if s == nil {
		return field.ErrorList{field.Required(sPath, "because it is defined in "+vPath.String())}
	}
	var all field.ErrorList
	all = append(all, validateNestedValueValidationCompleteness(v.Not, s, sPath, vPath.Child("not"), opts)...)
	for i := range v.AllOf {
		all = append(all, validateNestedValueValidationCompleteness(&v.AllOf[i], s, sPath, vPath.Child("allOf").Index(i), opts)...)
	}
	for i := range v.AnyOf {
		all = append(all, validateNestedValueValidationCompleteness(&v.AnyOf[i], s, sPath, vPath.Child("anyOf").Index(i), opts)...)
	}
	for i := range v.OneOf {
		all = append(all, validateNestedValueValidationCompleteness(&v.OneOf[i], s, sPath, vPath.Child("oneOf").Index(i), opts)...)
	}
	return all
}

func validateNestedValueValidationCompleteness(v *NestedValueValidation, s *Structural, sPath, vPath field.Path, opts StructuralOptions) field.ErrorList {
	if v == nil {
		return nil
	}
	if s == nil {
		return field.ErrorList{field.Required(sPath, "because it is defined in "+vPath.String())}
	}
	var all field.ErrorList
	all = append(all, validateValueValidationCompleteness(&v.ValueValidation, s, sPath, vPath, opts)...)
	all = append(all, validateNestedValueValidationCompleteness(v.Items, s.Items, sPath.Child("items"), vPath.Child("items"), opts)...)
	apSchema := s.AdditionalPropertiesSchema()
	for _, k := range sortedKeys(v.Properties) {
		vf := v.Properties[k]
		if sf, ok := s.Properties[k]; !ok {
			if apSchema == nil || !opts.AllowValidationPropertiesWithAdditionalProperties {
				all = append(all, field.Required(sPath.Child("properties").Key(k), "because it is defined in "+vPath.Child("properties").Key(k).String()))
			} else {
				all = append(all, validateNestedValueValidationCompleteness(vf, apSchema, sPath.Child("additionalProperties"), vPath.Child("properties").Key(k), opts)...)
			}
		} else {
			all = append(all, validateNestedValueValidationCompleteness(vf, sf, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k), opts)...)
		}
	}
	if v.AdditionalProperties != nil && opts.AllowNestedAdditionalProperties {
		all = append(all, validateNestedValueValidationCompleteness(v.AdditionalProperties, apSchema, sPath.Child("additionalProperties"), vPath.Child("additionalProperties"), opts)...)
	}
	return all
}

var _ = strings.TrimSpace
var _ = strPtrEq
