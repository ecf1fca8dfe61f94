package validation

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// Lease (coordination.k8s.io; apimachinery's ObjectMeta rules, without core's finalizer check)
// and PriorityClass (scheduling.k8s.io).

func validateLease(obj map[string]any, _ Options) field.ErrorList {
	errs := objectMeta(obj, schema.ObjectMetaOptions{Namespaced: true})
	return distinct(append(errs, leaseSpec(mapOf(obj["spec"]))...))
}

func validateLeaseUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := objectMetaUpdate(obj, old, schema.ObjectMetaOptions{Namespaced: true, ResourceVersionSet: true})
	return distinct(append(errs, leaseSpec(mapOf(obj["spec"]))...))
}

func leaseSpec(spec map[string]any) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	if v, ok := integer(spec, "leaseDurationSeconds"); ok && v <= 0 {
		errs = append(errs, field.Invalid(p.Child("leaseDurationSeconds"), v, "must be greater than 0"))
	}
	if v, ok := integer(spec, "leaseTransitions"); ok && v < 0 {
		errs = append(errs, field.Invalid(p.Child("leaseTransitions"), v, "must be greater than or equal to 0"))
	}
	strategy, hasStrategy := spec["strategy"].(string)
	if hasStrategy {
		sp := p.Child("strategy", "strategy")
		if !strings.Contains(strategy, "/") {
			if strategy != "OldestEmulationVersion" {
				errs = append(errs, field.NotSupported(sp, strategy, []string{"OldestEmulationVersion"}))
			}
		} else {
			for _, m := range validation.IsQualifiedName(strategy) {
				errs = append(errs, field.Invalid(sp, strategy, m))
			}
		}
	}
	if ph, ok := spec["preferredHolder"].(string); ok && ph != "" && strategy == "" {
		errs = append(errs, field.Forbidden(p.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// systemPriorityClasses are the priority classes the apiserver creates, by name: value and
// globalDefault.
var systemPriorityClasses = []struct {
	name          string
	value         int64
	globalDefault bool
}{{"system-node-critical", 2000001000, false}, {"system-cluster-critical", 2000000000, false}}

func validatePriorityClass(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	name := str(mapOf(obj["metadata"]), "name")
	v, _ := integer(obj, "value")
	if strings.HasPrefix(name, "system-") {
		gd, _ := boolean(obj, "globalDefault")
		if msg := knownSystemPriorityClass(name, v, gd); msg != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only. error: "+msg))
		}
	} else if v > 1000000000 {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "maximum allowed value of a user defined priority is 1000000000"))
	}
	if pp, ok := obj["preemptionPolicy"].(string); ok {
		switch pp {
		case "PreemptLowerPriority", "Never":
		case "":
			errs = append(errs, field.Required(field.NewPath("preemptionPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), pp, []string{"PreemptLowerPriority", "Never"}))
		}
	}
	return distinct(errs)
}

func knownSystemPriorityClass(name string, v int64, gd bool) string {
	for _, s := range systemPriorityClasses {
		if s.name != name {
			continue
		}
		if s.value != v {
			return fmt.Sprintf("value of %v PriorityClass must be %v", name, s.value)
		}
		if s.globalDefault != gd {
			return fmt.Sprintf("globalDefault of %v PriorityClass must be %v", name, s.globalDefault)
		}
		return ""
	}
	return fmt.Sprintf("%v is not a known system priority class", name)
}

func validatePriorityClassUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	v, _ := integer(obj, "value")
	ov, _ := integer(old, "value")
	if v != ov {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	pp, hasPP := obj["preemptionPolicy"].(string)
	opp, hasOld := old["preemptionPolicy"].(string)
	if hasPP != hasOld || pp != opp {
		var bad any
		if hasPP {
			bad = pp
		}
		errs = append(errs, field.Invalid(field.NewPath("preemptionPolicy"), bad, "field is immutable"))
	}
	return distinct(errs)
}

// pdbSpecJSON is the internal PodDisruptionBudgetSpec as the apiserver prints it.
type pdbSpecJSON struct {
	MinAvailable               any
	Selector                   *labelSelectorJSON
	MaxUnavailable             any
	UnhealthyPodEvictionPolicy *string
}

// validatePodDisruptionBudget is the strategy's Validate and ValidateUpdate (the same rules; an
// update keeps a stored selector's invalid values). The strategy validates no metadata: the
// apiserver's generic ObjectMeta check does; nor does its /status strategy, which validates the
// status alone (pdbStatus).
func validatePodDisruptionBudget(obj map[string]any, _ Options) field.ErrorList {
	return distinct(pdbSpec(mapOf(obj["spec"]), LabelSelectorOptions{}))
}

func validatePodDisruptionBudgetUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	switch opts.Subresource {
	case "status":
		return distinct(pdbStatus(mapOf(obj["status"])))
	case "":
	default:
		return nil
	}
	sel := mapOf(mapOf(old["spec"])["selector"])
	return distinct(pdbSpec(mapOf(obj["spec"]), LabelSelectorOptions{AllowInvalidLabelValue: selectorHasInvalidLabelValue(sel)}))
}

func pdbSpec(spec map[string]any, opts LabelSelectorOptions) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec")
	minA, hasMin := spec["minAvailable"]
	maxU, hasMax := spec["maxUnavailable"]
	hasMin, hasMax = hasMin && minA != nil, hasMax && maxU != nil
	sel, hasSel := spec["selector"].(map[string]any)
	if hasMin && hasMax {
		bad := pdbSpecJSON{MinAvailable: intOrString(minA), MaxUnavailable: intOrString(maxU), Selector: selectorValue(sel, hasSel)}
		if u, ok := spec["unhealthyPodEvictionPolicy"].(string); ok {
			bad.UnhealthyPodEvictionPolicy = &u
		}
		errs = append(errs, field.Invalid(p, bad, "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []struct {
		name    string
		v       any
		present bool
	}{{"minAvailable", minA, hasMin}, {"maxUnavailable", maxU, hasMax}} {
		if !f.present {
			continue
		}
		v := intOrString(f.v)
		errs = append(errs, positiveIntOrPercent(p.Child(f.name), v)...)
		if n, ok := percentValue(v); ok && n > 100 {
			errs = append(errs, field.Invalid(p.Child(f.name), v, "must not be greater than 100%"))
		}
	}
	if hasSel {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, opts)...)
	}
	if u, ok := spec["unhealthyPodEvictionPolicy"].(string); ok && u != "IfHealthyBudget" && u != "AlwaysAllow" {
		errs = append(errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), u, []string{"AlwaysAllow", "IfHealthyBudget"}))
	}
	return errs
}

// pdbStatus is ValidatePodDisruptionBudgetStatusUpdate for policy/v1 (policy/v1beta1 is not
// served in 1.37): the conditions, then the counters not negative.
func pdbStatus(st map[string]any) field.ErrorList {
	p := field.NewPath("status")
	errs := MetaConditions(p.Child("conditions"), listOf(st["conditions"]))
	for _, k := range []string{"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"} {
		v, _ := integer(st, k)
		errs = append(errs, nonNegative(p.Child(k), v)...)
	}
	return errs
}

var conditionReason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// conditionReasonMessage is apimachinery's IsValidConditionReason message.
var conditionReasonMessage = validation.RegexError(
	"a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
	"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?", "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")

// MetaConditions is apimachinery's ValidateConditions over a list of metav1.Condition at p:
// no two of a type, and each one's type, status, observedGeneration, lastTransitionTime,
// reason and message.
func MetaConditions(p field.Path, conds []any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, raw := range conds {
		c := mapOf(raw)
		ip := p.Index(i)
		typ := str(c, "type")
		if seen[typ] {
			errs = append(errs, field.Duplicate(ip, typ))
		}
		seen[typ] = true
		if typ == "" {
			errs = append(errs, field.Required(ip.Child("type"), "is required"))
		} else {
			errs = append(errs, invalids(ip.Child("type"), typ, validation.IsQualifiedName(typ))...)
		}
		switch s := str(c, "status"); s {
		case "":
			errs = append(errs, field.Required(ip.Child("status"), ""))
		case "True", "False", "Unknown":
		default:
			errs = append(errs, field.NotSupported(ip.Child("status"), s, []string{"False", "True", "Unknown"}))
		}
		if g, _ := integer(c, "observedGeneration"); g < 0 {
			errs = append(errs, field.Invalid(ip.Child("observedGeneration"), g, "must be greater than or equal to zero"))
		}
		if isZeroTime(c["lastTransitionTime"]) {
			errs = append(errs, field.Required(ip.Child("lastTransitionTime"), ""))
		}
		reason := str(c, "reason")
		if reason == "" {
			errs = append(errs, field.Required(ip.Child("reason"), ""))
		} else {
			if !conditionReason.MatchString(reason) {
				errs = append(errs, field.Invalid(ip.Child("reason"), reason, conditionReasonMessage))
			}
			if len(reason) > 1024 {
				errs = append(errs, field.TooLong(ip.Child("reason"), "", 1024))
			}
		}
		if len(str(c, "message")) > 32*1024 {
			errs = append(errs, field.TooLong(ip.Child("message"), "", 32*1024))
		}
	}
	return errs
}
