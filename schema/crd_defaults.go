package schema

import (
	"context"
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
)

// compileStructural compiles the validator of a structural schema as apiextensions'
// Structural.ToKubeOpenAPI + NewSchemaValidatorFromOpenAPI do (used to validate defaults): the
// format is kept as written and int-or-string adds no type of its own.
func compileStructural(s *Structural, depth int) *vnode {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	n := &vnode{nullable: s.Nullable}
	if s.Type != "" {
		n.types = []string{s.Type}
	}
	if s.Items != nil {
		n.items = compileStructural(s.Items, depth+1)
	}
	if s.Properties != nil {
		n.properties = make(map[string]*vnode, len(s.Properties))
		n.propNames = s.PropertyNames()
		for _, k := range n.propNames {
			n.properties[k] = compileStructural(s.Properties[k], depth+1)
		}
	}
	if s.AdditionalProperties != nil {
		n.apSet = true
		n.apAllows = s.AdditionalProperties.Bool
		n.apSchema = compileStructural(s.AdditionalProperties.Structural, depth+1)
	}
	compileValueValidation(n, s.ValueValidation, depth)
	return n
}

func compileValueValidation(n *vnode, v *ValueValidation, depth int) {
	if v == nil {
		return
	}
	n.format = v.Format
	n.fmtOK = knownFormat(n.format)
	n.setNumberType()
	n.maximum, n.exclusiveMax, n.minimum, n.exclusiveMin = v.Maximum, v.ExclusiveMaximum, v.Minimum, v.ExclusiveMinimum
	n.maxLength, n.minLength, n.pattern = v.MaxLength, v.MinLength, v.Pattern
	if n.pattern != "" {
		n.re, n.reErr = compileRE(n.pattern)
	}
	n.maxItems, n.minItems, n.uniqueItems, n.multipleOf = v.MaxItems, v.MinItems, v.UniqueItems, v.MultipleOf
	n.enum, n.maxProps, n.minProps, n.required = v.Enum, v.MaxProperties, v.MinProperties, v.Required
	for i := range v.AllOf {
		n.allOf = append(n.allOf, compileNested(&v.AllOf[i], depth+1))
	}
	for i := range v.AnyOf {
		n.anyOf = append(n.anyOf, compileNested(&v.AnyOf[i], depth+1))
	}
	for i := range v.OneOf {
		n.oneOf = append(n.oneOf, compileNested(&v.OneOf[i], depth+1))
	}
	if v.Not != nil {
		n.not = compileNested(v.Not, depth+1)
	}
}

func compileNested(v *NestedValueValidation, depth int) *vnode {
	if v == nil || depth > maxSchemaDepth {
		return nil
	}
	n := &vnode{nullable: v.ForbiddenNullable}
	if v.ForbiddenType != "" {
		n.types = []string{v.ForbiddenType}
	}
	if v.Items != nil {
		n.items = compileNested(v.Items, depth+1)
	}
	if v.Properties != nil {
		n.properties = make(map[string]*vnode, len(v.Properties))
		n.propNames = sortedKeys(v.Properties)
		for _, k := range n.propNames {
			n.properties[k] = compileNested(v.Properties[k], depth+1)
		}
	}
	compileValueValidation(n, &v.ValueValidation, depth)
	return n
}

// validateDefaults is apiextensions' defaulting.ValidateDefaults without CEL: every default
// must be pruned, coerce as metadata where it is metadata, and validate against its schema.
func validateDefaults(ctx context.Context, pth field.Path, s *Structural) field.ErrorList {
	root := s
	if !root.XEmbeddedResource {
		c := *root
		c.XEmbeddedResource = true
		root = &c
	}
	var all field.ErrorList
	validateDefaultsAt(ctx, &all, walkFrom(pth), root, root, nil, false, 0)
	return all
}

func validateDefaultsAt(ctx context.Context, all *field.ErrorList, pth walkPath, s, rootSchema *Structural, at *steps, insideMeta bool, depth int) {
	if s == nil || depth > maxSchemaDepth {
		return
	}
	if s.XEmbeddedResource {
		insideMeta = false
		at = nil
		rootSchema = s
	}
	if s.Default != nil {
		validator := &Validator{root: compileStructural(s, 0)}
		dp := pth.Child("default").Path() // once per default: linear in the depth, as its errors are
		if insideMeta {
			obj, err := surround(s.Default, at.slice())
			if err == nil {
				if _, ok := obj["kind"]; !ok {
					obj["kind"] = "Validation"
				}
				if _, ok := obj["apiVersion"]; !ok {
					obj["apiVersion"] = "validation/v1"
				}
				root := rootSchema
				if !root.XEmbeddedResource {
					c := *root
					c.XEmbeddedResource = true
					root = &c
				}
				c := &coercer{}
				if ferr := c.coerce(field.Path{}, obj, root); ferr != nil {
					*all = append(*all, field.Invalid(dp, s.Default, fmt.Sprintf("must result in valid metadata: %v", ferr)))
				} else if errs := ValidateEmbeddedResources(field.Path{}, obj, rootSchema, true); len(errs) > 0 {
					*all = append(*all, field.Invalid(dp, s.Default, fmt.Sprintf("must result in valid metadata: %v", errs.ToAggregate())))
				} else {
					*all = append(*all, validator.Validate(dp, s.Default)...)
				}
			}
		} else {
			pruned, _ := Prune(s.Default, s, PruneOptions{IsResourceRoot: s.XEmbeddedResource})
			if !value.EqualNilDistinct(pruned, s.Default) {
				*all = append(*all, field.Invalid(dp, s.Default, "must not have unknown fields"))
			}
			c := &coercer{}
			x := value.Clone(s.Default)
			if ferr := coerceRootAware(c, dp, x, s); ferr != nil {
				*all = append(*all, ferr)
			} else if errs := ValidateEmbeddedResources(dp, s.Default, s, s.XEmbeddedResource); len(errs) > 0 {
				*all = append(*all, errs...)
			} else {
				*all = append(*all, validator.Validate(dp, s.Default)...)
			}
		}
	}
	if s.Items != nil {
		validateDefaultsAt(ctx, all, pth.Child("items"), s.Items, rootSchema, at.then(pathStep{isIndex: true}), insideMeta, depth+1)
	}
	for _, k := range s.PropertyNames() {
		sub := insideMeta
		if s.XEmbeddedResource && (k == "metadata" || k == "apiVersion" || k == "kind") {
			sub = true
		}
		validateDefaultsAt(ctx, all, pth.Child("properties").Key(k), s.Properties[k], rootSchema, at.then(pathStep{key: k}), sub, depth+1)
	}
}

// coerceRootAware is objectmeta.Coerce with isResourceRoot = s.XEmbeddedResource (the schema
// is already marked embedded when it is a resource root).
func coerceRootAware(c *coercer, pth field.Path, x any, s *Structural) *field.Error {
	return c.coerce(pth, x, s)
}
