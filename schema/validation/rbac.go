package validation

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/validation"
)

// Role, ClusterRole, RoleBinding and ClusterRoleBinding: pkg/registry/rbac's strategies over
// pkg/apis/rbac/validation, with 1.37's declarative validation (beta, enforced): a rule's verbs,
// a roleRef's name and a subject's name are required, reported after the hand-written errors
// with no detail (the hand-written Required errors they cover are dropped).

// rbacName is ValidateRBACName: a path segment.
var rbacName = validation.NameIsPathSegment

func validateRole(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(roleRules(obj, true), rulesDeclarative(obj))
}

func validateRoleUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := append(roleRules(obj, true), coreObjectMetaUpdate(obj, old)...)
	return withDeclarative(errs, rulesDeclarative(obj))
}

func validateClusterRole(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(clusterRoleRules(obj, LabelSelectorOptions{}), rulesDeclarative(obj))
}

func validateClusterRoleUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	opts := LabelSelectorOptions{}
	for _, sel := range listOf(mapOf(old["aggregationRule"])["clusterRoleSelectors"]) {
		if selectorHasInvalidLabelValue(mapOf(sel)) {
			opts.AllowInvalidLabelValue = true
		}
	}
	errs := append(clusterRoleRules(obj, opts), coreObjectMetaUpdate(obj, old)...)
	return withDeclarative(errs, rulesDeclarative(obj))
}

// roleRules is ValidateRole (namespaced) and the first part of ValidateClusterRole.
func roleRules(obj map[string]any, namespaced bool) field.ErrorList {
	errs := coreObjectMeta(obj, namespaced, rbacName)
	for i, rule := range listOf(obj["rules"]) {
		errs = append(errs, policyRule(field.NewPath("rules").Index(i), mapOf(rule), namespaced)...)
	}
	return errs
}

func clusterRoleRules(obj map[string]any, opts LabelSelectorOptions) field.ErrorList {
	errs := roleRules(obj, false)
	agg, ok := obj["aggregationRule"].(map[string]any)
	if !ok {
		return errs
	}
	p := field.NewPath("aggregationRule", "clusterRoleSelectors")
	sels := listOf(agg["clusterRoleSelectors"])
	if len(sels) == 0 {
		errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	for i, sel := range sels {
		errs = append(errs, ValidateLabelSelector(p.Index(i), mapOf(sel), opts)...)
		if _, err := labels.FromLabelSelector(mapOf(sel)); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), nil, "invalid label selector."))
		}
	}
	return errs
}

// policyRule is ValidatePolicyRule without its verbs check (declarative, see rulesDeclarative).
func policyRule(p field.Path, rule map[string]any, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	if urls := listOf(rule["nonResourceURLs"]); len(urls) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), stringList(urls), "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(listOf(rule["apiGroups"])) > 0 || len(listOf(rule["resources"])) > 0 || len(listOf(rule["resourceNames"])) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), stringList(urls), "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(listOf(rule["apiGroups"])) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(listOf(rule["resources"])) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// rulesDeclarative is the declarative rule of PolicyRule: verbs required.
func rulesDeclarative(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range listOf(obj["rules"]) {
		if len(listOf(mapOf(rule)["verbs"])) == 0 {
			errs = append(errs, field.Required(field.NewPath("rules").Index(i).Child("verbs"), ""))
		}
	}
	return errs
}

func validateRoleBinding(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(roleBindingRules(obj, true, false), bindingDeclarative(obj, true))
}

func validateRoleBindingUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	return bindingUpdate(obj, old, true)
}

func validateClusterRoleBinding(obj map[string]any, _ Options) field.ErrorList {
	return withDeclarative(roleBindingRules(obj, false, false), bindingDeclarative(obj, true))
}

func validateClusterRoleBindingUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	return bindingUpdate(obj, old, false)
}

// bindingUpdate is Validate(Cluster)RoleBindingUpdate. When roleRef changes, the declarative
// roleRef rules stop at their (alpha, not enforced) immutability check, so roleRef.name's
// hand-written Required error stays where ValidateRoleBinding put it.
func bindingUpdate(obj, old map[string]any, namespaced bool) field.ErrorList {
	changed := roleRefValue(obj) != roleRefValue(old)
	errs := append(roleBindingRules(obj, namespaced, changed), coreObjectMetaUpdate(obj, old)...)
	if changed {
		errs = append(errs, field.Invalid(field.NewPath("roleRef"), roleRefValue(obj), "field is immutable"))
	}
	return withDeclarative(errs, bindingDeclarative(obj, !changed))
}

// roleRefValue is a roleRef as the Go struct holds it (every field, empty ones too), which is
// what the apiserver prints as the bad value of "field is immutable".
type roleRef struct{ APIGroup, Kind, Name string }

func roleRefValue(obj map[string]any) roleRef {
	rr := mapOf(obj["roleRef"])
	return roleRef{APIGroup: str(rr, "apiGroup"), Kind: str(rr, "kind"), Name: str(rr, "name")}
}

// roleBindingRules is ValidateRoleBinding / ValidateClusterRoleBinding without the Required
// names (declarative), but roleRef.name's when roleRefName says so.
func roleBindingRules(obj map[string]any, namespaced, roleRefName bool) field.ErrorList {
	errs := coreObjectMeta(obj, namespaced, rbacName)
	rr := mapOf(obj["roleRef"])
	if g := str(rr, "apiGroup"); g != "rbac.authorization.k8s.io" {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "apiGroup"), g, []string{"rbac.authorization.k8s.io"}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if k := str(rr, "kind"); k != "ClusterRole" && (!namespaced || k != "Role") {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "kind"), k, kinds))
	}
	if n := str(rr, "name"); n == "" {
		if roleRefName {
			errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
		}
	} else {
		for _, m := range rbacName(n, false) {
			errs = append(errs, field.Invalid(field.NewPath("roleRef", "name"), n, m))
		}
	}
	for i, s := range listOf(obj["subjects"]) {
		errs = append(errs, subject(field.NewPath("subjects").Index(i), mapOf(s), namespaced)...)
	}
	return errs
}

// subject is ValidateRoleBindingSubject without the Required name (declarative).
func subject(p field.Path, s map[string]any, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	name, group := str(s, "name"), str(s, "apiGroup")
	switch kind := str(s, "kind"); kind {
	case "ServiceAccount":
		if name != "" {
			for _, m := range validation.NameIsDNSSubdomain(name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), name, m))
			}
		}
		if group != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), group, []string{""}))
		}
		if !namespaced && str(s, "namespace") == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case "User", "Group":
		if group != "rbac.authorization.k8s.io" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), group, []string{"rbac.authorization.k8s.io"}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), kind, []string{"ServiceAccount", "User", "Group"}))
	}
	return errs
}

// bindingDeclarative is the declarative rules of a binding, in the Go type's field order:
// each subject's name, then (with roleRefName) roleRef's name, required.
func bindingDeclarative(obj map[string]any, roleRefName bool) field.ErrorList {
	var errs field.ErrorList
	for i, s := range listOf(obj["subjects"]) {
		if str(mapOf(s), "name") == "" {
			errs = append(errs, field.Required(field.NewPath("subjects").Index(i).Child("name"), ""))
		}
	}
	if roleRefName && str(mapOf(obj["roleRef"]), "name") == "" {
		errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
	}
	return errs
}

// withDeclarative is rest.ValidateDeclarativelyWithMigrationChecks' result: the hand-written
// errors (repeats dropped, see distinct) followed by the enforced declarative ones.
func withDeclarative(handwritten, declarative field.ErrorList) field.ErrorList {
	return append(distinct(handwritten), declarative...)
}
