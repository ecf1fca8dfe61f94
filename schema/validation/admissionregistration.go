package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// admissionregistration.k8s.io: ValidatingAdmissionPolicyBinding and MutatingAdmissionPolicyBinding
// (pkg/registry/admissionregistration/validatingadmissionpolicybinding over
// ValidateValidatingAdmissionPolicyBinding(Update), with 1.37's enforced declarative rules:
// policyName and validationActions required, on update only when changed, after the
// hand-written errors; ManifestBasedAdmissionControlConfig is beta and on, so a name with the
// static suffix is refused on create and warned about on update). The strategy's authorization
// of a paramRef (the requester must be allowed to read the parameter resource) is not modelled:
// it needs the authorizer and the policy, which validation does not see. The rules and match
// resources are shared with the policies and webhooks.

const staticConfigSuffix = ".static.k8s.io"

func validateVAPBinding(obj map[string]any, _ Options) field.ErrorList {
	errs := append(policyBinding(obj, false), staticSuffix(obj)...)
	return withDeclarative(errs, vapBindingDeclarative(mapOf(obj["spec"]), nil))
}

func validateVAPBindingUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource != "" {
		return nil
	}
	oldSpec := mapOf(old["spec"])
	if oldSpec == nil {
		oldSpec = map[string]any{}
	}
	return withDeclarative(policyBinding(obj, false), vapBindingDeclarative(mapOf(obj["spec"]), oldSpec))
}

// MutatingAdmissionPolicyBinding (GA and served in 1.37): the binding rules without
// validationActions, only mutating operations in its resource rules; no declarative rules.
func validateMAPBinding(obj map[string]any, _ Options) field.ErrorList {
	return distinct(append(policyBinding(obj, true), staticSuffix(obj)...))
}

func validateMAPBindingUpdate(obj, _ map[string]any, opts Options) field.ErrorList {
	if opts.Subresource != "" {
		return nil
	}
	return distinct(policyBinding(obj, true))
}

// policyBinding is validateValidatingAdmissionPolicyBinding (mutating false) and
// validateMutatingAdmissionPolicyBinding: apimachinery's ObjectMeta rules, then the spec.
func policyBinding(obj map[string]any, mutating bool) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{})
	return append(errs, vapBindingSpec(field.NewPath("spec"), mapOf(obj["spec"]), mutating)...)
}

// staticSuffix is ValidateStaticSuffix on the name (create only).
func staticSuffix(obj map[string]any) field.ErrorList {
	if name := str(mapOf(obj["metadata"]), "name"); strings.HasSuffix(name, staticConfigSuffix) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name,
			fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix))}
	}
	return nil
}

// vapBindingWarnings is WarningsOnUpdate: a name with the static suffix (on create, where
// the name is refused, nothing).
func vapBindingWarnings(obj, old map[string]any, opts Options) []string {
	if old == nil || opts.Subresource != "" {
		return nil
	}
	if strings.HasSuffix(str(mapOf(obj["metadata"]), "name"), staticConfigSuffix) {
		return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix)}
	}
	return nil
}

// vapBindingDeclarative is the enforced declarative rules (oldSpec nil on create).
func vapBindingDeclarative(spec, oldSpec map[string]any) field.ErrorList {
	if oldSpec != nil && semanticEqual(spec, oldSpec) {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec")
	if name := str(spec, "policyName"); name == "" && (oldSpec == nil || str(oldSpec, "policyName") != name) {
		errs = append(errs, field.Required(p.Child("policyName"), ""))
	}
	actions := listOf(spec["validationActions"])
	if len(actions) == 0 && (oldSpec == nil || !semanticEqual(emptyToNilList(spec["validationActions"]), emptyToNilList(oldSpec["validationActions"]))) {
		errs = append(errs, field.Required(p.Child("validationActions"), ""))
	}
	return errs
}

func emptyToNilList(v any) any {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil
	}
	return v
}

// vapBindingSpec is validateValidatingAdmissionPolicyBindingSpec without the rules the
// declarative ones cover, or (mutating) validateMutatingAdmissionPolicyBindingSpec.
func vapBindingSpec(p field.Path, spec map[string]any, mutating bool) field.ErrorList {
	var errs field.ErrorList
	if name := str(spec, "policyName"); name != "" {
		errs = append(errs, invalids(p.Child("policyName"), name, validation.NameIsDNSSubdomain(name, false))...)
	} else if mutating {
		errs = append(errs, field.Required(p.Child("policyName"), ""))
	}
	if pr, ok := spec["paramRef"].(map[string]any); ok {
		errs = append(errs, paramRef(p.Child("paramRef"), pr)...)
	}
	mr, hasMR := spec["matchResources"].(map[string]any)
	if hasMR {
		errs = append(errs, matchResources(p.Child("matchResources"), mr)...)
	}
	if !mutating {
		return append(errs, validationActions(p.Child("validationActions"), stringList(spec["validationActions"]))...)
	}
	if hasMR {
		supported := []string{"*", "CONNECT", "CREATE", "UPDATE"}
		for _, r := range listOf(mr["resourceRules"]) {
			for _, op := range stringList(mapOf(r)["operations"]) {
				if !contains(supported, op) {
					errs = append(errs, field.NotSupported(p.Child("matchResources", "resourceRules", "operations"), op, supported))
				}
			}
		}
	}
	return errs
}

// paramRef is validateParamRef.
func paramRef(p field.Path, pr map[string]any) field.ErrorList {
	var errs field.ErrorList
	name := str(pr, "name")
	sel, hasSel := pr["selector"].(map[string]any)
	if name != "" {
		errs = append(errs, invalids(p.Child("name"), name, validation.IsValidPathSegmentName(name))...)
		if hasSel {
			errs = append(errs, field.Forbidden(p.Child("name"), "name and selector are mutually exclusive"))
		}
	}
	if hasSel {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, LabelSelectorOptions{})...)
		if name != "" {
			errs = append(errs, field.Forbidden(p.Child("selector"), "name and selector are mutually exclusive"))
		}
	}
	if name == "" && !hasSel {
		errs = append(errs, field.Required(p, "one of name or selector must be specified"))
	}
	switch a, _ := pr["parameterNotFoundAction"].(string); a {
	case "":
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	case "Deny", "Allow":
	default:
		errs = append(errs, field.NotSupported(p.Child("parameterNotFoundAction"), a, []string{"Deny", "Allow"}))
	}
	return errs
}

// matchResources is validateMatchResources.
func matchResources(p field.Path, mr map[string]any) field.ErrorList {
	var errs field.ErrorList
	switch mp, ok := mr["matchPolicy"].(string); {
	case !ok:
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	case mp != "Exact" && mp != "Equivalent":
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), mp, []string{"Equivalent", "Exact"}))
	}
	for _, k := range []string{"namespaceSelector", "objectSelector"} {
		if sel, ok := mr[k].(map[string]any); ok {
			errs = append(errs, ValidateLabelSelector(p.Child(k), sel, LabelSelectorOptions{})...)
		} else {
			errs = append(errs, field.Required(p.Child(k), ""))
		}
	}
	for _, k := range []string{"resourceRules", "excludeResourceRules"} {
		for i, r := range listOf(mr[k]) {
			errs = append(errs, namedRuleWithOperations(p.Child(k).Index(i), mapOf(r))...)
		}
	}
	return errs
}

// validationActions is validateValidationActions without the declarative Required.
func validationActions(p field.Path, actions []string) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, a := range actions {
		if a != "Deny" && a != "Warn" && a != "Audit" {
			errs = append(errs, field.NotSupported(p.Index(i), a, []string{"Audit", "Deny", "Warn"}))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen["Deny"] && seen["Warn"] {
		errs = append(errs, field.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}

// namedRuleWithOperations is validateNamedRuleWithOperations.
func namedRuleWithOperations(p field.Path, r map[string]any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, n := range stringList(r["resourceNames"]) {
		ip := p.Child("resourceNames").Index(i)
		errs = append(errs, invalids(ip, n, validation.IsValidPathSegmentName(n))...)
		if seen[n] {
			errs = append(errs, field.Duplicate(ip, n))
		} else {
			seen[n] = true
		}
	}
	return append(errs, ruleWithOperations(p, r)...)
}

// ruleWithOperations is validateRuleWithOperations: operations, then the rule with
// subresources allowed.
func ruleWithOperations(p field.Path, r map[string]any) field.ErrorList {
	var errs field.ErrorList
	ops := stringList(r["operations"])
	op := p.Child("operations")
	if len(ops) == 0 {
		errs = append(errs, field.Required(op, ""))
	}
	if len(ops) > 1 && contains(ops, "*") {
		errs = append(errs, field.Invalid(op, ops, "if '*' is present, must not specify other operations"))
	}
	supported := []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	for i, o := range ops {
		if !contains(supported, o) {
			errs = append(errs, field.NotSupported(op.Index(i), o, supported))
		}
	}
	return append(errs, admissionRule(p, r, true)...)
}

// admissionRule is validateRule.
func admissionRule(p field.Path, r map[string]any, allowSubresource bool) field.ErrorList {
	var errs field.ErrorList
	groups, versions := stringList(r["apiGroups"]), stringList(r["apiVersions"])
	if len(groups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(groups) > 1 && contains(groups, "*") {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), groups, "if '*' is present, must not specify other API groups"))
	}
	if len(versions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(versions) > 1 && contains(versions, "*") {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), versions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range versions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	resources := stringList(r["resources"])
	if allowSubresource {
		errs = append(errs, admissionResources(p.Child("resources"), resources)...)
	} else {
		errs = append(errs, admissionResourcesNoSubresources(p.Child("resources"), resources)...)
	}
	if s, ok := r["scope"].(string); ok && s != "Cluster" && s != "Namespaced" && s != "*" {
		errs = append(errs, field.NotSupported(p.Child("scope"), s, []string{"*", "Cluster", "Namespaced"}))
	}
	return errs
}

// admissionResources is validateResources: resources and resource/subresource pairs, with
// the wildcards' exclusions.
func admissionResources(p field.Path, resources []string) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	wildSub, wildRes := map[string]bool{}, map[string]bool{}
	double, single, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		if rs == "*/*" {
			double = true
		}
		if rs == "*" {
			single = true
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && double {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// admissionResourcesNoSubresources is validateResourcesNoSubResources.
func admissionResourcesNoSubresources(p field.Path, resources []string) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	for i, r := range resources {
		if r == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
		}
		if strings.Contains(r, "/") {
			errs = append(errs, field.Invalid(p.Index(i), r, "must not specify subresources"))
		}
	}
	if len(resources) > 1 && contains(resources, "*") {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources"))
	}
	return errs
}
