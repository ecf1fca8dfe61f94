package validation

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// ReplicationController: pkg/registry/core/replicationcontroller over
// ValidateReplicationController(Update) and ValidateReplicationControllerStatusUpdate, with
// 1.37's enforced (beta) declarative rules, which replace the hand-written ones they cover and
// come after them: metadata.name a DNS subdomain (the hand-written ObjectMeta check then
// validates no name, and no generateName), spec.replicas required and not negative,
// spec.minReadySeconds not negative; on update each only when its value changed. The /scale
// subresource is the registry's (ValidateScale on the Scale, the main strategy's rules on the
// parent, which a change of replicas alone cannot break).

// noNameRule is the name function of an ObjectMeta check whose name rule is declarative.
func noNameRule(string, bool) []string { return nil }

func validateReplicationController(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, noNameRule)
	errs = append(errs, rcSpec(field.NewPath("spec"), mapOf(obj["spec"]), nil)...)
	return withDeclarative(errs, rcDeclarative(obj, nil))
}

func validateReplicationControllerUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	switch opts.Subresource {
	case "status":
		errs = append(errs, rcStatus(field.NewPath("status"), mapOf(obj["status"]))...)
		return withDeclarative(errs, rcDeclarative(obj, old))
	case "":
	default:
		return nil
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	errs = append(errs, rcSpec(field.NewPath("spec"), spec, oldSpec)...)
	ann := stringMap(mapOf(old["metadata"])["annotations"])
	for _, k := range sortedStringKeys(ann) {
		if !strings.HasPrefix(k, "non-convertible.kubernetes.io") {
			continue
		}
		parts := strings.Split(k, "/")
		if len(parts) != 2 {
			continue
		}
		if strings.Contains(parts[1], "selector") {
			if !semanticEqual(emptyToNilMap(spec["selector"]), emptyToNilMap(oldSpec["selector"])) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), stringMap(spec["selector"]), "cannot update non-convertible selector"))
			}
			continue
		}
		errs = append(errs, &field.Error{Type: field.ErrorTypeNotFound, Field: parts[1], BadValue: ann[k], Detail: "unknown non-convertible field"})
	}
	return withDeclarative(errs, rcDeclarative(obj, old))
}

// rcSpec is ValidateReplicationControllerSpec without the rules the declarative ones cover.
func rcSpec(p field.Path, spec, oldSpec map[string]any) field.ErrorList {
	var errs field.ErrorList
	sel := stringMap(spec["selector"])
	if len(sel) == 0 {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	}
	tmpl, ok := spec["template"].(map[string]any)
	tp := p.Child("template")
	if !ok {
		return append(errs, field.Required(tp, ""))
	}
	labels := stringMap(mapOf(tmpl["metadata"])["labels"])
	if len(sel) > 0 {
		for k, v := range sel {
			if lv, ok := labels[k]; !ok || lv != v {
				errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), labels, "`selector` does not match template `labels`"))
				break
			}
		}
	}
	podSpec := mapOf(tmpl["spec"])
	var oldPodSpec map[string]any
	if oldSpec != nil {
		oldPodSpec = mapOf(mapOf(oldSpec["template"])["spec"])
	}
	errs = append(errs, ValidatePodTemplateSpec(tp, tmpl, NewPodOptions(podSpec, oldPodSpec))...)
	if rp := str(podSpec, "restartPolicy"); rp != "Always" {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{"Always"}))
	}
	if has(podSpec, "activeDeadlineSeconds") {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// rcDeclarative is the enforced declarative rules (old nil on create).
func rcDeclarative(obj, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	// The name is checked as a subfield, which is skipped on update when it is unchanged.
	name := str(mapOf(obj["metadata"]), "name")
	if old == nil || name != str(mapOf(old["metadata"]), "name") {
		if name != "" {
			errs = append(errs, invalids(field.NewPath("metadata", "name"), name, validation.DNS1123Subdomain(name, validation.ContentMaxLenError))...)
		}
	}
	spec := mapOf(obj["spec"])
	var oldSpec map[string]any
	if old != nil {
		oldSpec = mapOf(old["spec"])
		if semanticEqual(spec, oldSpec) {
			return errs
		}
	}
	p := field.NewPath("spec")
	r, hasR := optInt(spec, "replicas")
	oldR, oldHasR := optInt(oldSpec, "replicas")
	if old == nil || hasR != oldHasR || r != oldR {
		if !hasR {
			errs = append(errs, field.Required(p.Child("replicas"), ""))
		} else {
			errs = append(errs, nonNegative(p.Child("replicas"), r)...)
		}
	}
	mrs, _ := integer(spec, "minReadySeconds")
	oldMRS, _ := integer(oldSpec, "minReadySeconds")
	if old == nil || mrs != oldMRS {
		errs = append(errs, nonNegative(p.Child("minReadySeconds"), mrs)...)
	}
	return errs
}

// rcStatus is ValidateReplicationControllerStatus.
func rcStatus(p field.Path, st map[string]any) field.ErrorList {
	var errs field.ErrorList
	n := map[string]int64{}
	for _, k := range []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"} {
		n[k], _ = integer(st, k)
		errs = append(errs, nonNegative(p.Child(k), n[k])...)
	}
	const msg = "cannot be greater than status.replicas"
	for _, k := range []string{"fullyLabeledReplicas", "readyReplicas", "availableReplicas"} {
		if n[k] > n["replicas"] {
			errs = append(errs, field.Invalid(p.Child(k), n[k], msg))
		}
	}
	if n["availableReplicas"] > n["readyReplicas"] {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), n["availableReplicas"], "cannot be greater than readyReplicas"))
	}
	return errs
}

// rcWarnings is WarningsOnCreate (a name that is no DNS label, the pod template's warnings) and
// WarningsOnUpdate, which, when the generation changed, warns about the stored template (the
// strategy hands GetWarningsForPodTemplate the old template where the new one belongs).
func rcWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	p := field.NewPath("spec", "template")
	if old == nil {
		var out []string
		if msgs := validation.IsDNS1123Label(str(mapOf(obj["metadata"]), "name")); len(msgs) != 0 {
			out = append(out, fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
		}
		if tmpl, ok := mapOf(obj["spec"])["template"].(map[string]any); ok {
			out = append(out, PodTemplateWarnings(p, tmpl, nil)...)
		}
		return out
	}
	g, _ := integer(mapOf(obj["metadata"]), "generation")
	oldG, _ := integer(mapOf(old["metadata"]), "generation")
	if g == oldG {
		return nil
	}
	tmpl, ok := mapOf(old["spec"])["template"].(map[string]any)
	if !ok {
		return nil
	}
	return PodTemplateWarnings(p, tmpl, mapOf(mapOf(obj["spec"])["template"]))
}
