package cel

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

var supportedReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

var crdNewlineMatcher = regexp.MustCompile(`[\n\r]+`)

// ruleCost is one entry of the most expensive rules of a schema.
type ruleCost struct {
	path field.Path
	cost uint64
}

type totalCost struct {
	total         uint64
	mostExpensive []ruleCost
}

func (c *totalCost) observe(p field.Path, cost uint64) {
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.mostExpensive = append(c.mostExpensive, ruleCost{path: p, cost: cost})
	sort.SliceStable(c.mostExpensive, func(i, j int) bool { return c.mostExpensive[i].cost > c.mostExpensive[j].cost })
	if len(c.mostExpensive) > 4 {
		c.mostExpensive = c.mostExpensive[:4]
	}
}

func multiplyWithOverflowGuard(base, cardinality uint64) uint64 {
	if base == 0 {
		return 0
	}
	if math.MaxUint64/base < cardinality {
		return math.MaxUint64
	}
	return base * cardinality
}

func costErrorMessage(name string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100.0:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, factor)
}

// maxElements is how many values a schema node holds per parent value (nil: unbounded).
func maxElements(s *schema.Structural) *uint64 {
	one := uint64(1)
	switch s.Type {
	case "object":
		if s.AdditionalProperties != nil {
			if s.ValueValidation != nil && s.ValueValidation.MaxProperties != nil {
				n := uint64(zeroIfNegative(*s.ValueValidation.MaxProperties))
				return &n
			}
			return nil
		}
		return &one
	case "array":
		if s.ValueValidation != nil && s.ValueValidation.MaxItems != nil {
			n := uint64(zeroIfNegative(*s.ValueValidation.MaxItems))
			return &n
		}
		return nil
	}
	return &one
}

type crdChecker struct {
	version Version
	// pre holds the expressions of the CRD before an update (nil on create).
	pre *preexisting
	// suppressPerExpressionCost is set on update for a schema the update leaves unchanged.
	suppressPerExpressionCost bool
	schemaErrors              field.ErrorList
	celErrors                 field.ErrorList
	total                     *totalCost
}

// ValidateCRD checks the x-kubernetes-validations rules of every version of a CRD as the
// apiserver does when the CRD is created: rule syntax fields (rule, message,
// messageExpression, reason, fieldPath, optionalOldSelf), compilation against the schema's CEL
// types, oldSelf only where old values correlate, and the static cost limits per expression
// (StaticEstimatedCostLimit, scaled by how many values the rule can apply to) and per schema
// (StaticEstimatedCRDCostLimit). Errors carry the CRD paths
// (spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule).
// opts.Version defaults to V1_36, the compatibility version kube-apiserver 1.37 compiles new
// expressions with. Properties are visited in sorted order (the apiserver's order is random).
func ValidateCRD(crd *schema.CRD, opts Options) field.ErrorList {
	return validateCRD(crd, nil, opts)
}

// ValidateCRDUpdate checks the x-kubernetes-validations rules of crd as the apiserver does when
// it replaces old: as ValidateCRD, except that an expression (rule or messageExpression) that
// occurs anywhere in old compiles with the stored expressions environment (V1_37: every library
// the apiserver has, where new expressions get opts.Version, default V1_36), and a version whose
// schema is unchanged is not refused for the estimated cost of one expression (the limit for
// the whole schema still applies). A nil old is a create.
func ValidateCRDUpdate(crd, old *schema.CRD, opts Options) field.ErrorList {
	return validateCRD(crd, old, opts)
}

func validateCRD(crd, old *schema.CRD, opts Options) field.ErrorList {
	if opts.Version.Minor == 0 {
		opts.Version = V1_36
	}
	var pre *preexisting
	if old != nil {
		pre = findPreexisting(old)
	}
	check := func(s *schema.Structural, p field.Path, version string) field.ErrorList {
		return validateSchemaRules(s, p, &crdChecker{version: opts.Version, pre: pre, suppressPerExpressionCost: old != nil && schemaUnchanged(crd, old, version)})
	}
	var all field.ErrorList
	// When every version has the same schema, the apiserver's internal CRD holds it once as
	// spec.validation and reports errors there.
	if sharedSchema(crd) {
		if s := crd.Versions[0].Structural; s != nil {
			all = append(all, check(s, field.NewPath("spec", "validation", "openAPIV3Schema"), crd.Versions[0].Name)...)
		}
		return all
	}
	for i, v := range crd.Versions {
		if v.Structural == nil {
			continue
		}
		p := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
		all = append(all, check(v.Structural, p, v.Name)...)
	}
	return all
}

// sharedSchema reports whether all versions have the same schema (the apiserver's internal
// spec.validation): the v1 to internal conversion compares them with apimachinery's semantic
// equality (nil and empty lists and maps are equal, rules compare by their fields).
func sharedSchema(crd *schema.CRD) bool { return crd.SharedSchema() }

// ValidateSchemaRules is ValidateCRD for one openAPIV3Schema (its structural form) at fldPath.
func ValidateSchemaRules(s *schema.Structural, fldPath field.Path, opts Options) field.ErrorList {
	if opts.Version.Minor == 0 {
		opts.Version = V1_36
	}
	return validateSchemaRules(s, fldPath, &crdChecker{version: opts.Version})
}

func validateSchemaRules(s *schema.Structural, fldPath field.Path, c *crdChecker) field.ErrorList {
	c.total = &totalCost{}
	one := uint64(1)
	c.walk(s, fldPath, true, &one, false, nil)
	all := append(c.schemaErrors, c.celErrors...)
	if c.total.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.total.mostExpensive {
			all = append(all, field.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		all = append(all, field.Forbidden(fldPath, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total.total, StaticEstimatedCRDCostLimit)))
	}
	return all
}

// walk visits a node's children first, then its own rules (as apiextensions' schema walk).
// uncorrelatable is the path of the highest list or map below which oldSelf cannot be used.
func (c *crdChecker) walk(s *schema.Structural, fldPath field.Path, isRoot bool, cardinality *uint64, inScope bool, uncorrelatable *field.Path) int {
	if s == nil {
		return 0
	}
	before := len(c.schemaErrors)
	inScope = inScope || len(s.XValidations) > 0
	child := func(cs *schema.Structural) *uint64 {
		if cardinality == nil {
			return nil
		}
		m := maxElements(s)
		if m == nil {
			return nil
		}
		n := multiplyWithOverflowGuard(*cardinality, *m)
		return &n
	}
	if ap := s.AdditionalPropertiesSchema(); ap != nil {
		c.walk(ap, fldPath.Child("additionalProperties"), false, child(ap), inScope, uncorrelatable)
	}
	for _, name := range s.PropertyNames() {
		ps := s.Properties[name]
		u := uncorrelatable
		if u == nil && !mapIsCorrelatable(s.XMapType) {
			p := fldPath
			u = &p
		}
		c.walk(ps, fldPath.Child("properties").Key(name), false, child(ps), inScope, u)
	}
	if s.ValueValidation != nil {
		c.walkNestedValidations(s.ValueValidation, fldPath)
	}
	if s.Items != nil {
		u := uncorrelatable
		if u == nil && s.XListType != "map" {
			p := fldPath
			u = &p
		}
		c.walk(s.Items, fldPath.Child("items"), false, child(s.Items), inScope, u)
	}
	if len(s.XValidations) == 0 {
		return len(c.schemaErrors) - before
	}
	vp := fldPath.Child("x-kubernetes-validations")
	rules, ok := c.checkRuleSyntax(s, s.XValidations, vp)
	if !ok {
		return len(c.schemaErrors) - before
	}
	if len(c.schemaErrors) > before || !inScope {
		return len(c.schemaErrors) - before
	}
	declType := SchemaDeclType(s, isRoot || s.XEmbeddedResource)
	if declType == nil {
		c.celErrors = append(c.celErrors, field.InternalError(vp, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %s", "unable to convert structural schema to CEL declarations")))
		return 0
	}
	results, err := compileRules(s, rules, declType, PerCallLimit, c.version, c.pre)
	if err != nil {
		c.celErrors = append(c.celErrors, field.InternalError(vp, err))
		return 0
	}
	for i, cr := range results {
		rp := vp.Index(i)
		var cost uint64
		if cardinality != nil {
			cost = multiplyWithOverflowGuard(cr.maxCost, *cardinality)
		} else {
			cost = multiplyWithOverflowGuard(cr.maxCost, cr.maxCardinality)
		}
		if !c.suppressPerExpressionCost && cost > StaticEstimatedCostLimit {
			c.celErrors = append(c.celErrors, field.Forbidden(rp.Child("rule"), costErrorMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
		}
		c.total.observe(rp.Child("rule"), cost)
		if cr.err != nil {
			if cr.err.Type == errTypeRequired {
				c.celErrors = append(c.celErrors, field.Required(rp.Child("rule"), cr.err.Detail))
			} else {
				c.celErrors = append(c.celErrors, field.Invalid(rp.Child("rule"), rules[i], cr.err.Detail))
			}
		}
		if cr.messageExpressionErr != nil {
			c.celErrors = append(c.celErrors, field.Invalid(rp.Child("messageExpression"), rules[i], cr.messageExpressionErr.Detail))
		} else if cr.messageExpression != nil {
			if !c.suppressPerExpressionCost && cr.messageExpressionMaxCost > StaticEstimatedCostLimit {
				c.celErrors = append(c.celErrors, field.Forbidden(rp.Child("messageExpression"), costErrorMessage("estimated messageExpression cost", cr.messageExpressionMaxCost, StaticEstimatedCostLimit)))
			}
			c.total.observe(rp.Child("messageExpression"), cr.messageExpressionMaxCost)
		}
		if cr.usesOldSelf {
			if uncorrelatable != nil {
				c.celErrors = append(c.celErrors, field.Invalid(rp.Child("rule"), rules[i].Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", uncorrelatable.String())))
			}
		} else if rules[i].OptionalOldSelf != nil {
			c.celErrors = append(c.celErrors, field.Invalid(rp.Child("optionalOldSelf"), *rules[i].OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return len(c.schemaErrors) - before
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// checkRuleSyntax checks the fields of the rules of one node (apiextensions' schema errors:
// rule, message, messageExpression, reason, fieldPath). It returns false when the rules do not
// decode.
func (c *crdChecker) checkRuleSyntax(s *schema.Structural, xv []any, vp field.Path) ([]Rule, bool) {
	rules, err := ParseRules(xv)
	if err != nil {
		c.schemaErrors = append(c.schemaErrors, field.Invalid(vp, "", err.Error()))
		return nil, false
	}
	for i, r := range rules {
		rp := vp.Index(i)
		trimmedRule := strings.TrimSpace(r.Rule)
		trimmedMsg := strings.TrimSpace(r.Message)
		switch {
		case len(trimmedRule) == 0:
			c.schemaErrors = append(c.schemaErrors, field.Required(rp.Child("rule"), "rule is not specified"))
		case len(r.Message) > 0 && len(trimmedMsg) == 0:
			c.schemaErrors = append(c.schemaErrors, field.Invalid(rp.Child("message"), r.Message, "must be non-empty if specified"))
		case crdNewlineMatcher.MatchString(trimmedMsg):
			c.schemaErrors = append(c.schemaErrors, field.Invalid(rp.Child("message"), r.Message, "must not contain line breaks"))
		case crdNewlineMatcher.MatchString(trimmedRule) && len(trimmedMsg) == 0:
			c.schemaErrors = append(c.schemaErrors, field.Required(rp.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if len(r.MessageExpression) > 0 && len(strings.TrimSpace(r.MessageExpression)) == 0 {
			c.schemaErrors = append(c.schemaErrors, field.Required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !containsString(supportedReasons, *r.Reason) {
			c.schemaErrors = append(c.schemaErrors, field.NotSupported(rp.Child("reason"), *r.Reason, supportedReasons))
		}
		if len(r.FieldPath) > 0 && len(strings.TrimSpace(r.FieldPath)) == 0 {
			c.schemaErrors = append(c.schemaErrors, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must be non-empty if specified"))
		}
		if crdNewlineMatcher.MatchString(r.FieldPath) {
			c.schemaErrors = append(c.schemaErrors, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must not contain line breaks"))
		}
		if len(r.FieldPath) > 0 {
			if _, _, err := schema.ValidFieldPath(r.FieldPath, s, true); err != nil {
				c.schemaErrors = append(c.schemaErrors, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must be a valid path"))
			}
		}
	}
	return rules, true
}

// walkNestedValidations visits not, allOf, oneOf and anyOf: the apiserver checks the rules'
// fields there but compiles nothing (no CEL context below value validations).
func (c *crdChecker) walkNestedValidations(vv *schema.ValueValidation, fldPath field.Path) {
	if vv.Not != nil {
		c.walkNested(vv.Not, fldPath.Child("not"))
	}
	for i := range vv.AllOf {
		c.walkNested(&vv.AllOf[i], fldPath.Child("allOf").Index(i))
	}
	for i := range vv.OneOf {
		c.walkNested(&vv.OneOf[i], fldPath.Child("oneOf").Index(i))
	}
	for i := range vv.AnyOf {
		c.walkNested(&vv.AnyOf[i], fldPath.Child("anyOf").Index(i))
	}
}

func (c *crdChecker) walkNested(n *schema.NestedValueValidation, fldPath field.Path) {
	if n.AdditionalProperties != nil {
		c.walkNested(n.AdditionalProperties, fldPath.Child("additionalProperties"))
	}
	names := make([]string, 0, len(n.Properties))
	for k := range n.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c.walkNested(n.Properties[k], fldPath.Child("properties").Key(k))
	}
	c.walkNestedValidations(&n.ValueValidation, fldPath)
	if n.Items != nil {
		c.walkNested(n.Items, fldPath.Child("items"))
	}
	if len(n.XValidations) > 0 {
		c.checkRuleSyntax(nestedToStructural(n), n.XValidations, fldPath.Child("x-kubernetes-validations"))
	}
}
