package cel

import (
	"github.com/writepath/writepath/schema"
)

// findPreexisting collects every rule and messageExpression of a CRD's schemas, wherever they
// are (apiextensions' findPreexistingExpressions walks properties, items, allOf, anyOf, oneOf,
// not, additionalProperties, patternProperties, additionalItems and definitions).
func findPreexisting(crd *schema.CRD) *preexisting {
	pre := &preexisting{rules: map[string]bool{}, messageExpressions: map[string]bool{}}
	for _, v := range crd.Versions {
		pre.collect(v.Props, 0)
	}
	return pre
}

// maxCollectDepth bounds the walk (schemas are already bounded by the decoder; this is a guard).
const maxCollectDepth = 10000

func (pre *preexisting) collect(p *schema.Props, depth int) {
	if p == nil || depth > maxCollectDepth {
		return
	}
	if rules, err := ParseRules(p.XValidations); err == nil {
		for _, r := range rules {
			pre.rules[r.Rule] = true
			if r.MessageExpression != "" {
				pre.messageExpressions[r.MessageExpression] = true
			}
		}
	}
	pre.collect(p.Items, depth+1)
	for i := range p.ItemsArray {
		pre.collect(&p.ItemsArray[i], depth+1)
	}
	for _, l := range [][]schema.Props{p.AllOf, p.AnyOf, p.OneOf} {
		for i := range l {
			pre.collect(&l[i], depth+1)
		}
	}
	pre.collect(p.Not, depth+1)
	for _, m := range []map[string]*schema.Props{p.Properties, p.PatternProperties, p.Definitions} {
		for _, c := range m {
			pre.collect(c, depth+1)
		}
	}
	if p.AdditionalProperties != nil {
		pre.collect(p.AdditionalProperties.Schema, depth+1)
	}
	if p.AdditionalItems != nil {
		pre.collect(p.AdditionalItems.Schema, depth+1)
	}
}

// schemaFor is the schema the apiserver's internal CRD has for a version
// (apiextensions.GetSchemaForVersion): the shared spec.validation when all versions have the
// same schema, whatever the name; false when the version does not exist.
func schemaFor(crd *schema.CRD, name string) (*schema.Props, bool) {
	if sharedSchema(crd) {
		return crd.Versions[0].Props, true
	}
	for _, v := range crd.Versions {
		if v.Name == name {
			return v.Props, true
		}
	}
	return nil, false
}

// schemaUnchanged reports whether an update leaves the schema of a version as it was
// (apiextensions' findVersionsWithUnchangedSchemas, with apimachinery's semantic equality: nil
// and empty lists and maps are equal, rules compare by their fields).
func schemaUnchanged(crd, old *schema.CRD, name string) bool {
	n, ok := schemaFor(crd, name)
	if !ok {
		return false
	}
	o, ok := schemaFor(old, name)
	if !ok {
		return false
	}
	return schema.SemanticEqual(n, o)
}
