package validation

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
)

// StatefulSet: pkg/registry/apps/statefulset over ValidateStatefulSet, ValidateStatefulSetUpdate
// and ValidateStatefulSetStatusUpdate (pkg/apis/apps/validation), with the options the strategy
// passes: a new StatefulSet's serviceName must be a DNS label and its volumeClaimTemplates valid
// claims; an update tolerates both as stored (they are immutable) and skips the pod template's
// validation when the stored spec itself fails the rules. StatefulSetRecreateStrategy is off in
// 1.37 (alpha), so a Recreate update strategy is refused unless the stored one is Recreate. The
// declarative rules of apps/v1 StatefulSet are alpha (shadowed): the hand-written errors are the
// answer.

// statefulSetOptions are validation.StatefulSetValidationOptions.
type statefulSetOptions struct {
	allowInvalidServiceName bool
	skipPodTemplate         bool
	skipClaimTemplates      bool
	allowRecreate           bool
}

func validateStatefulSet(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSLabel)
	spec := mapOf(obj["spec"])
	opts := NewPodOptions(mapOf(mapOf(spec["template"])["spec"]), nil)
	errs = append(errs, statefulSetSpec(field.NewPath("spec"), spec, opts, statefulSetOptions{})...)
	return distinct(errs)
}

func validateStatefulSetUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		errs := statefulSetStatus(mapOf(obj["status"]))
		errs = append(errs, coreObjectMetaUpdate(obj, old)...)
		errs = append(errs, collisionCountDecremented(obj, old)...)
		return distinct(errs)
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	sopts := statefulSetOptions{
		allowInvalidServiceName: true,
		skipClaimTemplates:      true,
		allowRecreate:           str(mapOf(oldSpec["updateStrategy"]), "type") == "Recreate",
	}
	popts := NewPodOptions(mapOf(mapOf(spec["template"])["spec"]), mapOf(mapOf(oldSpec["template"])["spec"]))
	errs := coreObjectMetaUpdate(obj, old)
	// A stored StatefulSet that fails today's rules keeps its pod template unvalidated.
	if len(statefulSetSpec(field.NewPath("spec"), oldSpec, popts, sopts)) > 0 {
		sopts.skipPodTemplate = true
	}
	p := field.NewPath("spec")
	errs = append(errs, statefulSetSpec(p, spec, popts, sopts)...)
	errs = append(errs, selectorImmutable(obj, old)...)
	if !goSemanticEqual(goTypeAt("apps", "StatefulSet", "spec", "volumeClaimTemplates"), spec["volumeClaimTemplates"], oldSpec["volumeClaimTemplates"]) {
		errs = append(errs, field.Invalid(p.Child("volumeClaimTemplates"), internalClaims(listOf(spec["volumeClaimTemplates"])), "field is immutable"))
	}
	for _, k := range []string{"serviceName", "podManagementPolicy"} {
		if v := str(spec, k); v != str(oldSpec, k) {
			errs = append(errs, field.Invalid(p.Child(k), v, "field is immutable"))
		}
	}
	return distinct(errs)
}

// rollingUpdateStatefulSetJSON is the internal RollingUpdateStatefulSetStrategy as a bad value.
type rollingUpdateStatefulSetJSON struct {
	Partition      int64
	MaxUnavailable any
}

type statefulSetStrategyJSON struct {
	Type          string
	RollingUpdate *rollingUpdateStatefulSetJSON
}

func rollingUpdateStatefulSetValue(ru map[string]any) *rollingUpdateStatefulSetJSON {
	part, _ := integer(ru, "partition")
	out := &rollingUpdateStatefulSetJSON{Partition: int64(int32(part))}
	if has(ru, "maxUnavailable") {
		out.MaxUnavailable = intOrString(ru["maxUnavailable"])
	}
	return out
}

func statefulSetSpec(p field.Path, spec map[string]any, opts PodOptions, sopts statefulSetOptions) field.ErrorList {
	var errs field.ErrorList
	switch pmp := str(spec, "podManagementPolicy"); pmp {
	case "":
		errs = append(errs, field.Required(p.Child("podManagementPolicy"), ""))
	case "OrderedReady", "Parallel":
	default:
		errs = append(errs, field.Invalid(p.Child("podManagementPolicy"), pmp, "must be 'OrderedReady' or 'Parallel'"))
	}

	us := mapOf(spec["updateStrategy"])
	ru, hasRU := us["rollingUpdate"].(map[string]any)
	switch t := str(us, "type"); {
	case t == "":
		errs = append(errs, field.Required(p.Child("updateStrategy"), ""))
	case t == "OnDelete" || (t == "Recreate" && sopts.allowRecreate):
		if hasRU {
			errs = append(errs, field.Invalid(p.Child("updateStrategy", "rollingUpdate"), rollingUpdateStatefulSetValue(ru), "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case t == "RollingUpdate":
		if hasRU {
			errs = append(errs, rollingUpdateStatefulSet(p.Child("updateStrategy", "rollingUpdate"), ru)...)
		}
	default:
		bad := statefulSetStrategyJSON{Type: t}
		if hasRU {
			bad.RollingUpdate = rollingUpdateStatefulSetValue(ru)
		}
		msg := "must be 'RollingUpdate' or 'OnDelete'"
		if sopts.allowRecreate {
			msg = "must be 'RollingUpdate', 'OnDelete', or 'Recreate'"
		}
		errs = append(errs, field.Invalid(p.Child("updateStrategy"), &bad, msg))
	}

	if pol, ok := spec["persistentVolumeClaimRetentionPolicy"].(map[string]any); ok {
		pp := p.Child("persistentVolumeClaimRetentionPolicy")
		for _, k := range []string{"whenDeleted", "whenScaled"} {
			if v := str(pol, k); v != "Retain" && v != "Delete" {
				errs = append(errs, field.NotSupported(pp.Child(k), v, []string{"Retain", "Delete"}))
			}
		}
	}
	claims := listOf(spec["volumeClaimTemplates"])
	if !sopts.skipClaimTemplates {
		cp := p.Child("volumeClaimTemplates")
		for i, c := range claims {
			errs = append(errs, PersistentVolumeClaimSpec(cp.Index(i).Child("spec"), mapOf(mapOf(c)["spec"]), ClaimSpecOptions{})...)
		}
	}

	replicas, _ := integer(spec, "replicas")
	errs = append(errs, nonNegative(p.Child("replicas"), int64(int32(replicas)))...)
	minReady, _ := integer(spec, "minReadySeconds")
	errs = append(errs, nonNegative(p.Child("minReadySeconds"), minReady)...)
	if ord, ok := spec["ordinals"].(map[string]any); ok {
		start, _ := integer(ord, "start")
		errs = append(errs, nonNegative(p.Child("ordinals.start"), start)...)
	}
	if sn := str(spec, "serviceName"); !sopts.allowInvalidServiceName && sn != "" {
		errs = append(errs, dns1123Label(p.Child("serviceName"), sn)...)
	}

	sel, hasSel := spec["selector"].(map[string]any)
	if !hasSel {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, LabelSelectorOptions{})...)
		if len(mapOf(sel["matchLabels"]))+len(listOf(sel["matchExpressions"])) == 0 {
			errs = append(errs, field.Invalid(p.Child("selector"), selectorValue(sel, true), "empty selector is invalid for statefulset"))
		}
	}
	selector, err := labels.FromLabelSelector(sel)
	if !hasSel {
		selector, err = labels.Nothing(), nil
	}
	tmpl := mapOf(spec["template"])
	podSpec := mapOf(tmpl["spec"])
	tp := p.Child("template")
	if err != nil {
		errs = append(errs, field.Invalid(p.Child("selector"), selectorValue(sel, hasSel), ""))
	} else {
		if !selector.Empty() {
			tl := stringMap(mapOf(tmpl["metadata"])["labels"])
			if !selector.Matches(tl) {
				errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), tl, "`selector` does not match template `labels`"))
			}
		}
		if !sopts.skipPodTemplate {
			errs = append(errs, ValidatePodTemplateSpec(tp, statefulSetPodTemplate(tmpl, claims), opts)...)
		}
		// ValidatePodTemplateSpecForStatefulSet checks the template's labels and annotations
		// again at the same paths: those errors print alike and are listed once (distinct).
		md := mapOf(tmpl["metadata"])
		errs = append(errs, validateLabelsAt(tp.Child("labels"), md["labels"])...)
		errs = append(errs, validateAnnotationsAt(tp.Child("annotations"), md["annotations"])...)
	}
	if rp := str(podSpec, "restartPolicy"); rp != "Always" {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{"Always"}))
	}
	if has(podSpec, "activeDeadlineSeconds") {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return errs
}

// statefulSetPodTemplate is the template ValidateStatefulSetSpec validates: hostname and
// subdomain cleared (the controller sets them per pod), and a volume for each claim template
// (a persistentVolumeClaim source of the claim's name) in place of a template volume of the
// same name. The apiserver puts the claims' volumes first in Go map order; here they keep the
// claim templates' order.
func statefulSetPodTemplate(tmpl map[string]any, claims []any) map[string]any {
	spec := mapOf(tmpl["spec"])
	if str(spec, "subdomain") == "" && str(spec, "hostname") == "" && len(claims) == 0 {
		return tmpl
	}
	ns := make(map[string]any, len(spec))
	for k, v := range spec {
		ns[k] = v
	}
	delete(ns, "subdomain")
	delete(ns, "hostname")
	if len(claims) > 0 {
		byName := make(map[string]bool, len(claims))
		var vols []any
		for _, c := range claims {
			name := str(mapOf(mapOf(c)["metadata"]), "name")
			if byName[name] {
				continue
			}
			byName[name] = true
			vols = append(vols, map[string]any{"name": name, "persistentVolumeClaim": map[string]any{"claimName": name}})
		}
		for _, v := range listOf(spec["volumes"]) {
			if !byName[str(mapOf(v), "name")] {
				vols = append(vols, v)
			}
		}
		ns["volumes"] = vols
	}
	nt := make(map[string]any, len(tmpl))
	for k, v := range tmpl {
		nt[k] = v
	}
	nt["spec"] = ns
	return nt
}

func rollingUpdateStatefulSet(p field.Path, ru map[string]any) field.ErrorList {
	part, _ := integer(ru, "partition")
	errs := nonNegative(p.Child("partition"), int64(int32(part)))
	if has(ru, "maxUnavailable") {
		mp := p.Child("maxUnavailable")
		mu := intOrString(ru["maxUnavailable"])
		errs = append(errs, positiveIntOrPercent(mp, mu)...)
		if intOrPercentValue(mu) == 0 {
			errs = append(errs, field.Invalid(mp, mu, "cannot be 0"))
		}
		if v, ok := percentValue(mu); ok && v > 100 {
			errs = append(errs, field.Invalid(mp, mu, "must not be greater than 100%"))
		}
	}
	return errs
}

func statefulSetStatus(st map[string]any) field.ErrorList {
	p := field.NewPath("status")
	get := func(k string) int64 { v, _ := integer(st, k); return v }
	var errs field.ErrorList
	for _, k := range []string{"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"} {
		errs = append(errs, nonNegative(p.Child(k), get(k))...)
	}
	for _, k := range []string{"observedGeneration", "collisionCount"} {
		if v, ok := integer(st, k); ok && st[k] != nil {
			errs = append(errs, nonNegative(p.Child(k), v)...)
		}
	}
	const msg = "cannot be greater than status.replicas"
	replicas := get("replicas")
	for _, k := range []string{"readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"} {
		if v := get(k); v > replicas {
			errs = append(errs, field.Invalid(p.Child(k), v, msg))
		}
	}
	if a, r := get("availableReplicas"), get("readyReplicas"); a > r {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), a, "cannot be greater than status.readyReplicas"))
	}
	return errs
}

// statefulSetWarnings: on create the pod template's, each claim template's and a negative
// revisionHistoryLimit's; on update the pod template's when the generation moved, the claim
// templates' (at spec.volumeClaimTemplates[i].Spec, as the apiserver writes the path) and the
// revisionHistoryLimit's.
func statefulSetWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	spec := mapOf(obj["spec"])
	var ws []string
	if old == nil {
		ws = templateWarnings(obj, nil)
	} else if generationMoved(obj, old) {
		ws = templateWarnings(obj, old)
	}
	cp := field.NewPath("spec", "volumeClaimTemplates")
	for i, c := range listOf(spec["volumeClaimTemplates"]) {
		at := cp.Index(i)
		if old != nil {
			at = at.Child("Spec")
		}
		ws = append(ws, ClaimSpecWarnings(at, mapOf(mapOf(c)["spec"]))...)
	}
	if v, ok := integer(spec, "revisionHistoryLimit"); ok && spec["revisionHistoryLimit"] != nil && v < 0 {
		ws = append(ws, "spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended")
	}
	return ws
}

func validateLabelsAt(p field.Path, v any) field.ErrorList {
	return schema.ValidateLabels(stringMap(v), p)
}

func validateAnnotationsAt(p field.Path, v any) field.ErrorList {
	return schema.ValidateAnnotations(stringMap(v), p)
}
