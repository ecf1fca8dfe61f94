package validation

import (
	"slices"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// DeviceTaintRule (resource.k8s.io) as ValidateDeviceTaintRule(Update, StatusUpdate) with its
// strategy: the selector's driver (a CSI driver name), pool (a DNS subdomain per "/"-separated
// part, at most 253 characters) and device (a DNS label), the taint's key (a qualified name),
// value (a label value) and effect, which 1.37's enforced (beta) declarative rules check
// (required, one of None, NoExecute, NoSchedule; after the hand-written errors, and on update
// only when the effect changed); /status the conditions (at most 8). On update the strategy
// bumps taint.timeAdded to the request's time when the effect changes and the client left the
// time as it was.

var deviceTaintEffects = []string{"NoExecute", "NoSchedule", "None"}

func validateDeviceTaintRule(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	hand, decl := deviceTaintRuleSpec(mapOf(obj["spec"]), nil)
	return withDeclarative(append(errs, hand...), decl)
}

func validateDeviceTaintRuleUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	switch opts.Subresource {
	case "status":
		conds := listOf(mapOf(obj["status"])["conditions"])
		p := field.NewPath("status", "conditions")
		errs = append(errs, MetaConditions(p, conds)...)
		if len(conds) > 8 {
			errs = append(errs, field.TooMany(p, len(conds), 8))
		}
		return withDeclarative(errs, nil)
	case "":
	default:
		return nil
	}
	oldSpec := mapOf(old["spec"])
	hand, decl := deviceTaintRuleSpec(mapOf(obj["spec"]), oldSpec)
	return withDeclarative(append(errs, hand...), decl)
}

// deviceTaintRuleSpec is validateDeviceTaintRuleSpec (old nil on create): the hand-written
// errors and the declarative effect errors that replace the covered hand-written ones.
func deviceTaintRuleSpec(spec, oldSpec map[string]any) (hand, decl field.ErrorList) {
	p := field.NewPath("spec")
	if sel, ok := spec["deviceSelector"].(map[string]any); ok {
		sp := p.Child("deviceSelector")
		if d, ok := sel["driver"].(string); ok {
			hand = append(hand, csiDriverName(sp.Child("driver"), d)...)
		}
		if pool, ok := sel["pool"].(string); ok {
			hand = append(hand, resourcePoolName(sp.Child("pool"), pool)...)
		}
		if d, ok := sel["device"].(string); ok {
			hand = append(hand, invalids(sp.Child("device"), d, validation.IsDNS1123Label(d))...)
		}
	}
	taint := mapOf(spec["taint"])
	tp := p.Child("taint")
	hand = append(hand, qualifiedName(tp.Child("key"), str(taint, "key"))...)
	if v := str(taint, "value"); v != "" {
		hand = append(hand, invalids(tp.Child("value"), v, validation.IsValidLabelValue(v))...)
	}
	eff := str(taint, "effect")
	if oldSpec != nil && str(mapOf(oldSpec["taint"]), "effect") == eff {
		return hand, nil
	}
	switch {
	case eff == "":
		decl = field.ErrorList{field.Required(tp.Child("effect"), "")}
	case !slices.Contains(deviceTaintEffects, eff):
		decl = field.ErrorList{field.NotSupported(tp.Child("effect"), eff, deviceTaintEffects)}
	}
	return hand, decl
}

// resourcePoolName is resource.k8s.io's validatePoolName: required, at most 253 characters,
// each "/"-separated part a DNS subdomain.
func resourcePoolName(p field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 253 {
		errs = append(errs, field.TooLong(p, "", 253))
	}
	for _, part := range strings.Split(name, "/") {
		errs = append(errs, invalids(p, part, validation.IsDNS1123Subdomain(part))...)
	}
	return errs
}

// prepareDeviceTaintRuleUpdate is the strategy's PrepareForUpdate beyond the status reset: a
// changed effect whose timeAdded the client left as stored gets the request's time, to the
// second.
func prepareDeviceTaintRuleUpdate(obj, old map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	taint, oldTaint := mapOf(mapOf(obj["spec"])["taint"]), mapOf(mapOf(old["spec"])["taint"])
	if str(taint, "effect") == str(oldTaint, "effect") || !sameTimePtr(taint["timeAdded"], oldTaint["timeAdded"]) {
		return obj
	}
	spec := copyMap(mapOf(obj["spec"]))
	t := copyMap(taint)
	t["timeAdded"] = opts.Now.Truncate(time.Second).UTC().Format(time.RFC3339)
	spec["taint"] = t
	out := copyMap(obj)
	out["spec"] = spec
	return out
}

// sameTimePtr is metav1.Time.Equal on two *metav1.Time: both unset, or the same instant.
func sameTimePtr(a, b any) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return a == nil || sameTime2(a, b)
}
