package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
	ivalidation "github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// LabelSelectorOptions are apimachinery's LabelSelectorValidationOptions.
type LabelSelectorOptions struct {
	// AllowInvalidLabelValue accepts match expression values that are not label values (an
	// update keeping a stored selector that an older server allowed).
	AllowInvalidLabelValue bool
	// AllowUnknownOperator accepts any match expression operator.
	AllowUnknownOperator bool
}

// ValidateLabelSelector is apimachinery's metav1 ValidateLabelSelector on a selector at p:
// matchLabels as labels, then each match expression. sel nil (no selector) is valid.
func ValidateLabelSelector(p field.Path, sel map[string]any, opts LabelSelectorOptions) field.ErrorList {
	if sel == nil {
		return nil
	}
	errs := schema.ValidateLabels(stringMap(sel["matchLabels"]), p.Child("matchLabels"))
	for i, raw := range listOf(sel["matchExpressions"]) {
		errs = append(errs, labelSelectorRequirement(p.Child("matchExpressions").Index(i), mapOf(raw), opts)...)
	}
	return errs
}

func labelSelectorRequirement(p field.Path, rq map[string]any, opts LabelSelectorOptions) field.ErrorList {
	var errs field.ErrorList
	values := stringList(rq["values"])
	switch op := str(rq, "operator"); op {
	case "In", "NotIn":
		if len(values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case "Exists", "DoesNotExist":
		if len(values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	default:
		if !opts.AllowUnknownOperator {
			errs = append(errs, field.Invalid(p.Child("operator"), op, "not a valid selector operator"))
		}
	}
	errs = append(errs, qualifiedName(p.Child("key"), str(rq, "key"))...)
	if !opts.AllowInvalidLabelValue {
		for i, v := range values {
			for _, m := range ivalidation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, m))
			}
		}
	}
	return errs
}

// selectorHasInvalidLabelValue is LabelSelectorHasInvalidLabelValue.
func selectorHasInvalidLabelValue(sel map[string]any) bool {
	for _, e := range listOf(sel["matchExpressions"]) {
		for _, v := range stringList(mapOf(e)["values"]) {
			if len(ivalidation.IsValidLabelValue(v)) > 0 {
				return true
			}
		}
	}
	return false
}

// podAffinity is validatePodAffinity and validatePodAntiAffinity (the same rules).
func podAffinity(p field.Path, pa map[string]any, allowInvalid bool) field.ErrorList {
	var errs field.ErrorList
	for i, t := range listOf(pa["requiredDuringSchedulingIgnoredDuringExecution"]) {
		errs = append(errs, podAffinityTerm(p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i), mapOf(t), allowInvalid)...)
	}
	for i, raw := range listOf(pa["preferredDuringSchedulingIgnoredDuringExecution"]) {
		w := mapOf(raw)
		ip := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, schedulingWeight(ip, w)...)
		errs = append(errs, podAffinityTerm(ip.Child("podAffinityTerm"), mapOf(w["podAffinityTerm"]), allowInvalid)...)
	}
	return errs
}

// schedulingWeight is the weight of a preferred node scheduling term and of a weighted pod
// affinity term (validatePreferredSchedulingTerms, validateWeightedPodAffinityTerms): 1 to 100.
func schedulingWeight(p field.Path, term map[string]any) field.ErrorList {
	if w, _ := integer(term, "weight"); w <= 0 || w > 100 {
		return field.ErrorList{field.Invalid(p.Child("weight"), w, "must be in the range 1-100")}
	}
	return nil
}

// podAffinityTerm is validatePodAffinityTerm.
func podAffinityTerm(p field.Path, t map[string]any, allowInvalid bool) field.ErrorList {
	so := LabelSelectorOptions{AllowInvalidLabelValue: allowInvalid}
	ls, _ := t["labelSelector"].(map[string]any)
	errs := ValidateLabelSelector(p.Child("labelSelector"), ls, so)
	ns, _ := t["namespaceSelector"].(map[string]any)
	errs = append(errs, ValidateLabelSelector(p.Child("namespaceSelector"), ns, so)...)
	for _, n := range stringList(t["namespaces"]) {
		for _, m := range ivalidation.NameIsDNSLabel(n, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), n, m))
		}
	}
	errs = append(errs, matchLabelKeysAndMismatch(p, stringList(t["matchLabelKeys"]), stringList(t["mismatchLabelKeys"]), ls)...)
	tk := str(t, "topologyKey")
	if tk == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, qualifiedName(p.Child("topologyKey"), tk)...)
}

// matchLabelKeysAndMismatch is ValidateMatchLabelKeysAndMismatchLabelKeys (the selector-key
// clash is reported at p[i], as the apiserver does).
func matchLabelKeysAndMismatch(p field.Path, match, mismatch []string, sel map[string]any) field.ErrorList {
	errs := labelKeys(p.Child("matchLabelKeys"), match, sel)
	errs = append(errs, labelKeys(p.Child("mismatchLabelKeys"), mismatch, sel)...)
	if sel != nil {
		idx := map[string]int{}
		for i, k := range match {
			idx[k] = i
		}
		keys := map[string]bool{}
		for k := range mapOf(sel["matchLabels"]) {
			keys[k] = true
		}
		for _, e := range listOf(sel["matchExpressions"]) {
			k := str(mapOf(e), "key")
			if i, ok := idx[k]; ok && keys[k] {
				errs = append(errs, field.Invalid(p.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
			}
			keys[k] = true
		}
	}
	mm := map[string]bool{}
	for _, k := range mismatch {
		mm[k] = true
	}
	for i, k := range match {
		if mm[k] {
			errs = append(errs, field.Invalid(p.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return errs
}

func labelKeys(p field.Path, keys []string, sel map[string]any) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(p, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, qualifiedName(p.Index(i), k)...)
	}
	return errs
}

// matchLabelKeysLegacy is ValidateMatchLabelKeysInTopologySpread.
func matchLabelKeysLegacy(p field.Path, keys []string, sel map[string]any) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	var errs field.ErrorList
	selKeys := map[string]bool{}
	if sel != nil {
		for k := range mapOf(sel["matchLabels"]) {
			selKeys[k] = true
		}
		for _, e := range listOf(sel["matchExpressions"]) {
			selKeys[str(mapOf(e), "key")] = true
		}
	} else {
		errs = append(errs, field.Forbidden(p, "must not be specified when labelSelector is not set"))
	}
	for i, k := range keys {
		errs = append(errs, qualifiedName(p.Index(i), k)...)
		if selKeys[k] {
			errs = append(errs, field.Invalid(p.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return errs
}

// topologySpreadConstraints is validateTopologySpreadConstraints (MatchLabelKeysInPodTopologySpread
// and its SelectorMerge on).
func topologySpreadConstraints(p field.Path, cs []any, opts PodOptions) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range cs {
		c := mapOf(raw)
		ip := p.Index(i)
		if ms, _ := integer(c, "maxSkew"); ms <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), ms, "must be greater than zero"))
		}
		tk, wu := str(c, "topologyKey"), str(c, "whenUnsatisfiable")
		if tk == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		}
		if wu != "DoNotSchedule" && wu != "ScheduleAnyway" {
			errs = append(errs, field.NotSupported(ip.Child("whenUnsatisfiable"), wu, []string{"DoNotSchedule", "ScheduleAnyway"}))
		}
		for _, rest := range cs[i+1:] {
			if str(mapOf(rest), "topologyKey") == tk && str(mapOf(rest), "whenUnsatisfiable") == wu {
				errs = append(errs, field.Duplicate(ip.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", tk, wu)))
				break
			}
		}
		if md, ok := integer(c, "minDomains"); ok {
			if md <= 0 {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), md, "must be greater than zero"))
			}
			if wu != "DoNotSchedule" {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), md, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not %s", wu)))
			}
		}
		for _, key := range []string{"nodeAffinityPolicy", "nodeTaintsPolicy"} {
			if v, ok := c[key].(string); ok && v != "Honor" && v != "Ignore" {
				errs = append(errs, field.NotSupported(ip.Child(key), v, []string{"Honor", "Ignore"}))
			}
		}
		ls, _ := c["labelSelector"].(map[string]any)
		if opts.oldViolatesMatchLabelKeys {
			errs = append(errs, matchLabelKeysLegacy(ip.Child("matchLabelKeys"), stringList(c["matchLabelKeys"]), ls)...)
		} else {
			errs = append(errs, matchLabelKeysAndMismatch(ip, stringList(c["matchLabelKeys"]), nil, ls)...)
		}
		if !opts.allowInvalidTopologySelector {
			errs = append(errs, ValidateLabelSelector(ip.Child("labelSelector"), ls, LabelSelectorOptions{})...)
		}
	}
	return errs
}

// oldTopologyRules derives the topology spread and affinity options from the stored spec.
func oldTopologyRules(o *PodOptions, oldSpec map[string]any) {
	for _, raw := range listOf(oldSpec["topologySpreadConstraints"]) {
		c := mapOf(raw)
		ls, _ := c["labelSelector"].(map[string]any)
		if len(matchLabelKeysAndMismatch(field.Path{}, stringList(c["matchLabelKeys"]), nil, ls)) > 0 {
			o.oldViolatesMatchLabelKeys = true
		}
		if len(ValidateLabelSelector(field.Path{}, ls, LabelSelectorOptions{})) > 0 {
			o.allowInvalidTopologySelector = true
		}
	}
	aff := mapOf(oldSpec["affinity"])
	for _, key := range []string{"podAffinity", "podAntiAffinity"} {
		pa := mapOf(aff[key])
		for _, t := range listOf(pa["requiredDuringSchedulingIgnoredDuringExecution"]) {
			if selectorHasInvalidLabelValue(mapOf(mapOf(t)["labelSelector"])) || selectorHasInvalidLabelValue(mapOf(mapOf(t)["namespaceSelector"])) {
				o.allowInvalidLabelValueInSelector = true
			}
		}
		for _, w := range listOf(pa["preferredDuringSchedulingIgnoredDuringExecution"]) {
			t := mapOf(mapOf(w)["podAffinityTerm"])
			if selectorHasInvalidLabelValue(mapOf(t["labelSelector"])) || selectorHasInvalidLabelValue(mapOf(t["namespaceSelector"])) {
				o.allowInvalidLabelValueInSelector = true
			}
		}
	}
}
