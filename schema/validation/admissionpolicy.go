package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/jsonpath"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// ValidatingAdmissionPolicy and MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, both
// served by default in 1.37): pkg/registry/admissionregistration's strategies over
// ValidateValidatingAdmissionPolicy(Update) and ValidateMutatingAdmissionPolicy(Update), with
// the expressions compiled (Options.Expressions) as the apiserver compiles them: match
// conditions with the stateless compiler, everything else with the policy's (composited when
// it has variables, always for a MutatingAdmissionPolicy), an expression whose text the stored
// policy holds in the stored-expressions environment. ManifestBasedAdmissionControlConfig is
// beta and on: a name with the static suffix is refused on create, warned about on update.
// The strategies' authorization of paramKind (the requester must be allowed to read the
// parameter resource) is not modelled: it needs the authorizer.

// policyExprs are the expressions of a stored policy, by where they appear
// (preexistingExpressions): an expression found there compiles in the stored environment.
type policyExprs struct {
	matchConditions, validations, messages, auditValues, applyConfigurations map[string]bool
}

func newPolicyExprs() policyExprs {
	return policyExprs{map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}}
}

// policyOptions are the validationOptions of the admission kinds.
type policyOptions struct {
	ignoreMatchConditions bool
	allowParams           bool // params declared in match conditions (a policy with paramKind)
	// webhooks only
	requireNoSideEffects, requireRecognizedReviewVersion, requireUniqueNames, allowInvalidLabelValue bool
	pre                                                                                              policyExprs
	compiler                                                                                         Options
}

func validateVAP(obj map[string]any, opts Options) field.ErrorList {
	errs := vap(obj, policyOptions{pre: newPolicyExprs(), compiler: opts})
	return distinct(append(errs, staticSuffix(obj)...))
}

func validateVAPUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		return distinct(vapStatus(field.NewPath("status"), mapOf(obj["status"])))
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	pre := newPolicyExprs()
	for _, mc := range listOf(oldSpec["matchConditions"]) {
		pre.matchConditions[str(mapOf(mc), "expression")] = true
	}
	for _, v := range listOf(oldSpec["validations"]) {
		pre.validations[str(mapOf(v), "expression")] = true
		if m := str(mapOf(v), "messageExpression"); m != "" {
			pre.messages[m] = true
		}
	}
	for _, a := range listOf(oldSpec["auditAnnotations"]) {
		pre.auditValues[str(mapOf(a), "valueExpression")] = true
	}
	ignore := semanticEqual(spec["paramKind"], oldSpec["paramKind"]) &&
		semanticEqual(emptyToNilList(spec["matchConditions"]), emptyToNilList(oldSpec["matchConditions"]))
	return distinct(vap(obj, policyOptions{ignoreMatchConditions: ignore, pre: pre, compiler: opts}))
}

// vapWarnings is WarningsOnUpdate: a name with the static suffix (on create, where the name is
// refused, nothing). The status strategy inherits it: a /status write warns too.
func vapWarnings(obj, old map[string]any, _ Options) []string {
	if old == nil {
		return nil
	}
	return staticSuffixWarnings(obj)
}

func staticSuffixWarnings(obj map[string]any) []string {
	if strings.HasSuffix(str(mapOf(obj["metadata"]), "name"), staticConfigSuffix) {
		return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix)}
	}
	return nil
}

// vap is validateValidatingAdmissionPolicy: metadata, then the spec.
func vap(obj map[string]any, o policyOptions) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{})
	name := str(mapOf(obj["metadata"]), "name")
	p := field.NewPath("spec")
	spec := mapOf(obj["spec"])
	if spec == nil {
		spec = map[string]any{}
	}
	vars := listOf(spec["variables"])
	var scope ExpressionScope
	scopeMade := false
	getScope := func() ExpressionScope {
		if !scopeMade {
			scope, scopeMade = compileScope(o.compiler, len(vars) > 0), true
		}
		return scope
	}
	errs = append(errs, failurePolicy(p, spec)...)
	pk, hasPK := spec["paramKind"].(map[string]any)
	if hasPK {
		o.allowParams = true
		errs = append(errs, paramKind(p.Child("paramKind"), pk)...)
	}
	errs = append(errs, matchConstraints(p, spec)...)
	if !o.ignoreMatchConditions {
		errs = append(errs, matchConditions(p.Child("matchConditions"), listOf(spec["matchConditions"]), o)...)
	}
	for i, v := range vars {
		errs = append(errs, variable(getScope(), p.Child("variables").Index(i), mapOf(v), hasPK, o)...)
	}
	validations, audits := listOf(spec["validations"]), listOf(spec["auditAnnotations"])
	if len(validations) == 0 && len(audits) == 0 {
		const d = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(p.Child("validations"), d), field.Required(p.Child("auditAnnotations"), d))
	}
	for i, v := range validations {
		errs = append(errs, policyValidation(getScope(), p.Child("validations").Index(i), mapOf(v), hasPK, o)...)
	}
	if len(audits) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(p.Child("auditAnnotations"), internalAuditAnnotations(audits),
			fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range audits {
		am := mapOf(a)
		ap := p.Child("auditAnnotations").Index(i)
		errs = append(errs, auditAnnotation(getScope(), ap, name, am, hasPK, o)...)
		key := str(am, "key")
		if keys[key] {
			errs = append(errs, field.Duplicate(ap.Child("key"), key))
		}
		keys[key] = true
	}
	return errs
}

const (
	maxAuditAnnotations           = 20
	maxAuditValueExpressionLength = 5 * 1024
	maxMatchConditions            = 64
)

// internalAuditAnnotations is the bad value of too many audit annotations: the internal Go
// slice, which apimachinery prints as JSON with the Go field names.
func internalAuditAnnotations(l []any) []map[string]string {
	out := make([]map[string]string, 0, len(l))
	for _, a := range l {
		m := mapOf(a)
		out = append(out, map[string]string{"Key": str(m, "key"), "ValueExpression": str(m, "valueExpression")})
	}
	return out
}

// failurePolicy is a policy's required failurePolicy.
func failurePolicy(p field.Path, spec map[string]any) field.ErrorList {
	fp, ok := spec["failurePolicy"].(string)
	switch {
	case !ok:
		return field.ErrorList{field.Required(p.Child("failurePolicy"), "")}
	case fp != "Fail" && fp != "Ignore":
		return field.ErrorList{field.NotSupported(p.Child("failurePolicy"), fp, []string{"Fail", "Ignore"})}
	}
	return nil
}

// matchConstraints is a policy's required matchConstraints, with at least one resource rule.
func matchConstraints(p field.Path, spec map[string]any) field.ErrorList {
	mc, ok := spec["matchConstraints"].(map[string]any)
	if !ok {
		return field.ErrorList{field.Required(p.Child("matchConstraints"), "")}
	}
	errs := matchResources(p.Child("matchConstraints"), mc)
	if len(listOf(mc["resourceRules"])) == 0 {
		errs = append(errs, field.Required(p.Child("matchConstraints", "resourceRules"), ""))
	}
	return errs
}

// paramKind is validateParamKind.
func paramKind(p field.Path, pk map[string]any) field.ErrorList {
	var errs field.ErrorList
	av := str(pk, "apiVersion")
	switch {
	case av == "":
		errs = append(errs, field.Required(p.Child("apiVersion"), ""))
	case strings.Count(av, "/") > 1:
		errs = append(errs, field.Invalid(p.Child("apiVersion"), av, fmt.Sprintf("unexpected GroupVersion string: %v", av)))
	case av != "/":
		group, version := "", av
		if g, v, ok := strings.Cut(av, "/"); ok {
			group, version = g, v
		}
		if group != "" {
			if ms := ivalidation.IsDNS1123Subdomain(group); len(ms) > 0 {
				errs = append(errs, field.Invalid(p.Child("apiVersion"), group, strings.Join(ms, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), av, "version must be specified"))
		} else if ms := ivalidation.IsDNS1035Label(version); len(ms) > 0 {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), version, strings.Join(ms, ",")))
		}
	default:
		// "/" parses as the empty group and version.
		errs = append(errs, field.Invalid(p.Child("apiVersion"), av, "version must be specified"))
	}
	kind := str(pk, "kind")
	if kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if ms := ivalidation.IsDNS1035Label(strings.ToLower(kind)); len(ms) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(ms, ",")))
	}
	return errs
}

// matchConditions is validateMatchConditions: at most 64, each with a compiled expression and
// a qualified name, names unique. They compile with the stateless compiler (no variables).
func matchConditions(p field.Path, mcs []any, o policyOptions) field.ErrorList {
	var errs field.ErrorList
	if len(mcs) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(mcs), maxMatchConditions))
	}
	var scope ExpressionScope
	if len(mcs) > 0 {
		scope = compileScope(o.compiler, false)
	}
	names := map[string]bool{}
	for i, x := range mcs {
		mc := mapOf(x)
		ip := p.Index(i)
		expr := strings.TrimSpace(str(mc, "expression"))
		if expr == "" {
			errs = append(errs, field.Required(ip.Child("expression"), ""))
		} else {
			errs = append(errs, compileErr(scope, ip.Child("expression"), Expression{Text: expr, Returns: ResultBool,
				Params: o.allowParams, Authorizer: true, Stored: o.pre.matchConditions[expr]})...)
		}
		name := str(mc, "name")
		if name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			errs = append(errs, qualifiedName(ip.Child("name"), name)...)
			if names[name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), name))
			}
			names[name] = true
		}
	}
	return errs
}

// compileErr compiles e in scope (nil: no compiler) into the apiserver's Invalid error at p,
// whose bad value is the expression compiled.
func compileErr(scope ExpressionScope, p field.Path, e Expression) field.ErrorList {
	if scope == nil {
		return nil
	}
	if d := scope.Compile(e); d != "" {
		return field.ErrorList{field.Invalid(p, e.Text, d)}
	}
	return nil
}

// variable is validateVariable: a CEL identifier, an expression compiled and stored for the
// expressions after it. Its environment type follows the stored validations' expressions (the
// apiserver's lookup).
func variable(scope ExpressionScope, p field.Path, v map[string]any, hasParams bool, o policyOptions) field.ErrorList {
	var errs field.ErrorList
	name := str(v, "name")
	if strings.TrimSpace(name) == "" {
		errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
	} else if !ivalidation.IsCELIdentifier(name) {
		errs = append(errs, field.Invalid(p.Child("name"), name, "must be a valid CEL identifier"))
	}
	expr := str(v, "expression")
	if strings.TrimSpace(expr) == "" {
		return append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	}
	if scope != nil {
		if d := scope.Variable(name, Expression{Text: expr, Returns: ResultAny, Params: hasParams, Authorizer: true,
			Stored: o.pre.validations[expr]}); d != "" {
			errs = append(errs, field.Invalid(p.Child("expression"), expr, d))
		}
	}
	return errs
}

// policyValidation is validateValidation.
func policyValidation(scope ExpressionScope, p field.Path, v map[string]any, hasParams bool, o policyOptions) field.ErrorList {
	var errs field.ErrorList
	expr := str(v, "expression")
	if strings.TrimSpace(expr) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else {
		errs = append(errs, compileErr(scope, p.Child("expression"), Expression{Text: expr, Returns: ResultBool,
			Params: hasParams, Authorizer: true, Stored: o.pre.validations[expr]})...)
	}
	me := str(v, "messageExpression")
	if me != "" && strings.TrimSpace(me) == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), me, "must be non-empty if specified"))
	} else if strings.TrimSpace(me) != "" {
		errs = append(errs, compileErr(scope, p.Child("messageExpression"), Expression{Text: me, Returns: ResultString,
			Params: o.allowParams, Stored: o.pre.messages[me]})...)
	}
	msg := str(v, "message")
	if msg != "" && strings.TrimSpace(msg) == "" {
		errs = append(errs, field.Invalid(p.Child("message"), msg, "must be non-empty if specified"))
	} else if strings.ContainsAny(strings.TrimSpace(msg), "\n\r") {
		errs = append(errs, field.Invalid(p.Child("message"), msg, "must not contain line breaks"))
	}
	if r, ok := v["reason"].(string); ok && r != "Forbidden" && r != "Invalid" && r != "RequestEntityTooLarge" {
		errs = append(errs, field.NotSupported(p.Child("reason"), r, []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}))
	}
	return errs
}

// auditAnnotation is validateAuditAnnotation: the key qualified under the policy's name, the
// value expression compiled (trimmed) to a string or null.
func auditAnnotation(scope ExpressionScope, p field.Path, policyName string, a map[string]any, hasParams bool, o policyOptions) field.ErrorList {
	var errs field.ErrorList
	key := str(a, "key")
	if policyName != "" {
		errs = append(errs, qualifiedName(p.Child("key"), policyName+"/"+key)...)
	} else {
		errs = append(errs, field.Invalid(p.Child("key"), key, "requires metadata.name be non-empty"))
	}
	raw := str(a, "valueExpression")
	ve := strings.TrimSpace(raw)
	switch {
	case ve == "":
		errs = append(errs, field.Required(p.Child("valueExpression"), "valueExpression is not specified"))
	case len(ve) > maxAuditValueExpressionLength:
		errs = append(errs, field.Required(p.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", maxAuditValueExpressionLength)))
	case scope != nil:
		if d := scope.Compile(Expression{Text: ve, Returns: ResultStringOrNull, Params: hasParams, Authorizer: true,
			Stored: o.pre.auditValues[raw]}); d != "" {
			errs = append(errs, field.Invalid(p.Child("valueExpression"), raw, d))
		}
	}
	return errs
}

// vapStatus is ValidateValidatingAdmissionPolicyStatusUpdate: the type checking's warnings and
// the conditions.
func vapStatus(p field.Path, st map[string]any) field.ErrorList {
	var errs field.ErrorList
	if tc, ok := st["typeChecking"].(map[string]any); ok {
		wp := p.Child("typeChecking", "expressionWarnings")
		for i, w := range listOf(tc["expressionWarnings"]) {
			wm := mapOf(w)
			ip := wp.Index(i)
			if str(wm, "warning") == "" {
				errs = append(errs, field.Required(ip.Child("warning"), ""))
			}
			errs = append(errs, fieldRef(ip.Child("fieldRef"), str(wm, "fieldRef"))...)
		}
	}
	return append(errs, MetaConditions(p.Child("conditions"), listOf(st["conditions"]))...)
}

// MutatingAdmissionPolicy.

func validateMAP(obj map[string]any, opts Options) field.ErrorList {
	errs := mapPolicy(obj, policyOptions{pre: newPolicyExprs(), compiler: opts})
	return distinct(append(errs, staticSuffix(obj)...))
}

func validateMAPUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	pre := newPolicyExprs()
	for _, mc := range listOf(oldSpec["matchConditions"]) {
		pre.matchConditions[str(mapOf(mc), "expression")] = true
	}
	for _, m := range listOf(oldSpec["mutations"]) {
		if ac, ok := mapOf(m)["applyConfiguration"].(map[string]any); ok {
			pre.applyConfigurations[str(ac, "expression")] = true
		}
	}
	ignore := semanticEqual(spec["paramKind"], oldSpec["paramKind"]) &&
		semanticEqual(emptyToNilList(spec["matchConditions"]), emptyToNilList(oldSpec["matchConditions"]))
	return distinct(mapPolicy(obj, policyOptions{ignoreMatchConditions: ignore, pre: pre, compiler: opts}))
}

// mapPolicy is validateMutatingAdmissionPolicy: metadata, then the spec, every expression in
// the composited compiler.
func mapPolicy(obj map[string]any, o policyOptions) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{})
	p := field.NewPath("spec")
	spec := mapOf(obj["spec"])
	if spec == nil {
		spec = map[string]any{}
	}
	scope := compileScope(o.compiler, true)
	errs = append(errs, failurePolicy(p, spec)...)
	pk, hasPK := spec["paramKind"].(map[string]any)
	if hasPK {
		o.allowParams = true
		errs = append(errs, paramKind(p.Child("paramKind"), pk)...)
	}
	errs = append(errs, matchConstraints(p, spec)...)
	if mc, ok := spec["matchConstraints"].(map[string]any); ok {
		supported := []string{"*", "CONNECT", "CREATE", "UPDATE"}
		for _, r := range listOf(mc["resourceRules"]) {
			for _, op := range stringList(mapOf(r)["operations"]) {
				if !contains(supported, op) {
					errs = append(errs, field.NotSupported(p.Child("matchConstraints", "resourceRules", "operations"), op, supported))
				}
			}
		}
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, matchConditions(p.Child("matchConditions"), listOf(spec["matchConditions"]), o)...)
	}
	for i, v := range listOf(spec["variables"]) {
		errs = append(errs, variable(scope, p.Child("variables").Index(i), mapOf(v), hasPK, o)...)
	}
	if ms := listOf(spec["mutations"]); len(ms) == 0 {
		errs = append(errs, field.Required(p.Child("mutations"), "mutations must contain at least one item"))
	} else {
		for i, m := range ms {
			errs = append(errs, mutation(scope, p.Child("mutations").Index(i), mapOf(m), hasPK, o)...)
		}
	}
	switch rp := str(spec, "reinvocationPolicy"); rp {
	case "":
		errs = append(errs, field.Required(p.Child("reinvocationPolicy"), ""))
	case "IfNeeded", "Never":
	default:
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), rp, []string{"IfNeeded", "Never"}))
	}
	return errs
}

// mutation is validateMutation.
func mutation(scope ExpressionScope, p field.Path, m map[string]any, hasParams bool, o policyOptions) field.ErrorList {
	var errs field.ErrorList
	ac, hasAC := m["applyConfiguration"].(map[string]any)
	jp, hasJP := m["jsonPatch"].(map[string]any)
	switch pt := str(m, "patchType"); pt {
	case "":
		errs = append(errs, field.Required(p.Child("patchType"), ""))
	case "JSONPatch":
		if !hasJP {
			errs = append(errs, field.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			errs = append(errs, mutationExpression(scope, p.Child("jsonPatch"), jp, ResultJSONPatch, hasParams, o)...)
		}
		if hasAC {
			errs = append(errs, field.Invalid(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case "ApplyConfiguration":
		if !hasAC {
			errs = append(errs, field.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, mutationExpression(scope, p.Child("applyConfiguration"), ac, ResultApplyConfiguration, hasParams, o)...)
		}
		if hasJP {
			errs = append(errs, field.Invalid(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("patchType"), pt, []string{"ApplyConfiguration", "JSONPatch"}))
	}
	return errs
}

// mutationExpression is validateApplyConfiguration and validateJSONPatch: the trimmed
// expression compiled with the patch types. Both look the expression up among the stored
// applyConfiguration expressions (the apiserver's lookup, for JSONPatch too).
func mutationExpression(scope ExpressionScope, p field.Path, m map[string]any, returns ExpressionResult, hasParams bool, o policyOptions) field.ErrorList {
	raw := str(m, "expression")
	expr := strings.TrimSpace(raw)
	if expr == "" {
		return field.ErrorList{field.Required(p.Child("expression"), "")}
	}
	return compileErr(scope, p.Child("expression"), Expression{Text: expr, Returns: returns, Params: hasParams,
		Authorizer: true, PatchTypes: true, Stored: o.pre.applyConfigurations[raw]})
}

// fieldRef is validateFieldRef: a JSONPath once braced.
func fieldRef(p field.Path, ref string) field.ErrorList {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if _, err := jsonpath.Parse("{" + ref + "}"); err != nil {
		return field.ErrorList{field.Invalid(p, ref, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}
