package validation

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/validation"
)

// Deployment and ReplicaSet: pkg/registry/apps' strategies over pkg/apis/apps/validation. The
// pod template is validated by ValidatePodTemplateSpec with the options the strategy derives
// from the new and stored templates.

func validateDeployment(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, deploymentSpec(obj, nil)...)
	return distinct(errs)
}

func validateDeploymentUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		errs := coreObjectMetaUpdate(obj, old)
		errs = append(errs, deploymentStatus(mapOf(obj["status"]))...)
		errs = append(errs, collisionCountDecremented(obj, old)...)
		return distinct(errs)
	}
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, deploymentSpec(obj, old)...)
	errs = append(errs, selectorImmutable(obj, old)...)
	return distinct(errs)
}

func deploymentSpec(obj, old map[string]any) field.ErrorList {
	p := field.NewPath("spec")
	spec := mapOf(obj["spec"])
	replicas, _ := integer(spec, "replicas")
	errs := nonNegative(p.Child("replicas"), replicas)
	errs = append(errs, workloadSelectorAndTemplate(p, spec, old)...)
	errs = append(errs, deploymentStrategy(p.Child("strategy"), mapOf(spec["strategy"]))...)
	minReady, _ := integer(spec, "minReadySeconds")
	errs = append(errs, nonNegative(p.Child("minReadySeconds"), minReady)...)
	if v, ok := integer(spec, "revisionHistoryLimit"); ok {
		errs = append(errs, nonNegative(p.Child("revisionHistoryLimit"), v)...)
	}
	if rb, ok := spec["rollbackTo"].(map[string]any); ok {
		v, _ := integer(rb, "revision")
		errs = append(errs, nonNegative(p.Child("rollback", "version"), v)...)
	}
	if v, ok := integer(spec, "progressDeadlineSeconds"); ok {
		errs = append(errs, nonNegative(p.Child("progressDeadlineSeconds"), v)...)
		if v <= minReady {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), v, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// workloadSelectorAndTemplate is the selector and template part shared by ValidateDeploymentSpec
// and ValidateReplicaSetSpec: the selector strictly validated and not empty, then the template
// (ValidatePodTemplateSpecForReplicaSet) when the selector converts.
func workloadSelectorAndTemplate(p field.Path, spec, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	sel, hasSel := spec["selector"].(map[string]any)
	if !hasSel {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, LabelSelectorOptions{})...)
		if len(mapOf(sel["matchLabels"]))+len(listOf(sel["matchExpressions"])) == 0 {
			errs = append(errs, field.Invalid(p.Child("selector"), selectorValue(sel, hasSel), "empty selector is invalid for deployment"))
		}
	}
	selector, err := labels.FromLabelSelector(sel)
	if !hasSel {
		selector, err = labels.Nothing(), nil
	}
	if err != nil {
		return append(errs, field.Invalid(p.Child("selector"), selectorValue(sel, hasSel), "invalid label selector"))
	}
	tmpl := mapOf(spec["template"])
	tp := p.Child("template")
	if !selector.Empty() {
		tl := stringMap(mapOf(tmpl["metadata"])["labels"])
		if !selector.Matches(tl) {
			errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), tl, "`selector` does not match template `labels`"))
		}
	}
	var oldSpec map[string]any
	if old != nil {
		oldSpec = mapOf(mapOf(mapOf(old["spec"])["template"])["spec"])
	}
	podSpec := mapOf(tmpl["spec"])
	errs = append(errs, ValidatePodTemplateSpec(tp, tmpl, NewPodOptions(podSpec, oldSpec))...)
	if rp := str(podSpec, "restartPolicy"); rp != "Always" {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{"Always"}))
	}
	if has(podSpec, "activeDeadlineSeconds") {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// labelSelectorJSON is metav1.LabelSelector's JSON form (field order, omitempty), the way the
// apiserver prints a selector as a bad value.
type labelSelectorJSON struct {
	MatchLabels      map[string]string         `json:"matchLabels,omitempty"`
	MatchExpressions []selectorRequirementJSON `json:"matchExpressions,omitempty"`
}

type selectorRequirementJSON struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// selectorValue is a selector as a bad value: null when absent.
func selectorValue(sel map[string]any, present bool) *labelSelectorJSON {
	if !present {
		return nil
	}
	out := &labelSelectorJSON{MatchLabels: stringMap(sel["matchLabels"])}
	if len(out.MatchLabels) == 0 {
		out.MatchLabels = nil
	}
	for _, x := range listOf(sel["matchExpressions"]) {
		r := mapOf(x)
		req := selectorRequirementJSON{Key: str(r, "key"), Operator: str(r, "operator")}
		if vs := listOf(r["values"]); len(vs) > 0 {
			req.Values = stringList(vs)
		}
		out.MatchExpressions = append(out.MatchExpressions, req)
	}
	return out
}

// selectorImmutable is ValidateImmutableField on spec.selector.
func selectorImmutable(obj, old map[string]any) field.ErrorList {
	sel, ok := mapOf(obj["spec"])["selector"].(map[string]any)
	oldSel, oldOK := mapOf(old["spec"])["selector"].(map[string]any)
	if ok == oldOK && semanticEqual(normalSelector(sel), normalSelector(oldSel)) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), selectorValue(sel, ok), "field is immutable")}
}

// normalSelector drops empty lists and maps, which the Go type does not tell from absent ones.
func normalSelector(sel map[string]any) map[string]any {
	if sel == nil {
		return nil
	}
	out := map[string]any{}
	if ml := mapOf(sel["matchLabels"]); len(ml) > 0 {
		out["matchLabels"] = ml
	}
	var exprs []any
	for _, x := range listOf(sel["matchExpressions"]) {
		r := mapOf(x)
		e := map[string]any{"key": str(r, "key"), "operator": str(r, "operator")}
		if vs := listOf(r["values"]); len(vs) > 0 {
			e["values"] = vs
		}
		exprs = append(exprs, e)
	}
	if len(exprs) > 0 {
		out["matchExpressions"] = exprs
	}
	return out
}

// intOrStringJSON is an intstr.IntOrString as the apiserver prints it (a number or a string).
func intOrString(v any) any {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return int64(0)
}

type rollingUpdateJSON struct {
	MaxUnavailable any
	MaxSurge       any
}

type deploymentStrategyJSON struct {
	Type          string
	RollingUpdate *rollingUpdateJSON
}

func deploymentStrategy(p field.Path, s map[string]any) field.ErrorList {
	ru, hasRU := s["rollingUpdate"].(map[string]any)
	switch t := str(s, "type"); t {
	case "Recreate":
		if hasRU {
			return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case "RollingUpdate":
		if !hasRU {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return rollingUpdateDeployment(p.Child("rollingUpdate"), ru)
	default:
		bad := deploymentStrategyJSON{Type: t}
		if hasRU {
			bad.RollingUpdate = &rollingUpdateJSON{MaxUnavailable: intOrString(ru["maxUnavailable"]), MaxSurge: intOrString(ru["maxSurge"])}
		}
		return field.ErrorList{field.NotSupported(p, &bad, []string{"Recreate", "RollingUpdate"})}
	}
	return nil
}

func rollingUpdateDeployment(p field.Path, ru map[string]any) field.ErrorList {
	mu, ms := intOrString(ru["maxUnavailable"]), intOrString(ru["maxSurge"])
	errs := positiveIntOrPercent(p.Child("maxUnavailable"), mu)
	errs = append(errs, positiveIntOrPercent(p.Child("maxSurge"), ms)...)
	if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
	}
	if v, ok := percentValue(mu); ok && v > 100 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), mu, "must not be greater than 100%"))
	}
	return errs
}

// positiveIntOrPercent is ValidatePositiveIntOrPercent.
func positiveIntOrPercent(p field.Path, v any) field.ErrorList {
	switch x := v.(type) {
	case string:
		var errs field.ErrorList
		for _, m := range validation.IsValidPercent(x) {
			errs = append(errs, field.Invalid(p, x, m))
		}
		return errs
	case int64:
		return nonNegative(p, x)
	}
	return nil
}

// percentValue is getPercentValue: the number of a valid percentage.
func percentValue(v any) (int, bool) {
	s, ok := v.(string)
	if !ok || len(validation.IsValidPercent(s)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(s[:len(s)-1])
	return n, true
}

// intOrPercentValue is getIntOrPercentValue: a percentage's number, an integer, or for any
// other string the number it parses as (intstr's IntValue: 0 when it does not).
func intOrPercentValue(v any) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	switch x := v.(type) {
	case int64:
		return int(int32(x))
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}

// nonNegative is ValidateNonnegativeField.
func nonNegative(p field.Path, v int64) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, "must be greater than or equal to 0")}
	}
	return nil
}

func deploymentStatus(st map[string]any) field.ErrorList {
	p := field.NewPath("status")
	get := func(k string) int64 { v, _ := integer(st, k); return v }
	var errs field.ErrorList
	for _, k := range []string{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"} {
		errs = append(errs, nonNegative(p.Child(k), get(k))...)
	}
	for _, k := range []string{"terminatingReplicas", "collisionCount"} {
		if v, ok := integer(st, k); ok {
			errs = append(errs, nonNegative(p.Child(k), v)...)
		}
	}
	errs = append(errs, replicaCounts(p, get("replicas"), get("readyReplicas"), get("availableReplicas"), "updatedReplicas", get("updatedReplicas"))...)
	return errs
}

// replicaCounts: the named count, readyReplicas and availableReplicas not above replicas,
// availableReplicas not above readyReplicas.
func replicaCounts(p field.Path, replicas, ready, available int64, name string, count int64) field.ErrorList {
	const msg = "cannot be greater than status.replicas"
	var errs field.ErrorList
	if count > replicas {
		errs = append(errs, field.Invalid(p.Child(name), count, msg))
	}
	if ready > replicas {
		errs = append(errs, field.Invalid(p.Child("readyReplicas"), ready, msg))
	}
	if available > replicas {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), available, msg))
	}
	if available > ready {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), available, "cannot be greater than readyReplicas"))
	}
	return errs
}

// collisionCountDecremented: status.collisionCount may not go down (nor be removed).
func collisionCountDecremented(obj, old map[string]any) field.ErrorList {
	oldV, oldOK := integer(mapOf(old["status"]), "collisionCount")
	if !oldOK {
		return nil
	}
	v, ok := integer(mapOf(obj["status"]), "collisionCount")
	if ok && v >= oldV {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("status", "collisionCount"), v, "cannot be decremented")}
}

func validateReplicaSet(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, replicaSetSpec(obj, nil)...)
	return distinct(errs)
}

func validateReplicaSetUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if opts.Subresource == "status" {
		errs = append(errs, replicaSetStatus(mapOf(obj["status"]))...)
		return distinct(errs)
	}
	errs = append(errs, replicaSetSpec(obj, old)...)
	errs = append(errs, selectorImmutable(obj, old)...)
	return distinct(errs)
}

func replicaSetSpec(obj, old map[string]any) field.ErrorList {
	p := field.NewPath("spec")
	spec := mapOf(obj["spec"])
	replicas, _ := integer(spec, "replicas")
	minReady, _ := integer(spec, "minReadySeconds")
	errs := nonNegative(p.Child("replicas"), replicas)
	errs = append(errs, nonNegative(p.Child("minReadySeconds"), minReady)...)
	return append(errs, workloadSelectorAndTemplate(p, spec, old)...)
}

func replicaSetStatus(st map[string]any) field.ErrorList {
	p := field.NewPath("status")
	get := func(k string) int64 { v, _ := integer(st, k); return v }
	var errs field.ErrorList
	for _, k := range []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"} {
		errs = append(errs, nonNegative(p.Child(k), get(k))...)
	}
	if v, ok := integer(st, "terminatingReplicas"); ok {
		errs = append(errs, nonNegative(p.Child("terminatingReplicas"), v)...)
	}
	return append(errs, replicaCounts(p, get("replicas"), get("readyReplicas"), get("availableReplicas"), "fullyLabeledReplicas", get("fullyLabeledReplicas"))...)
}

// workloadNameWarning is the Deployment strategy's warning for a name that is not a DNS label.
func workloadNameWarning(obj map[string]any) []string {
	if msgs := validation.IsDNS1123Label(str(mapOf(obj["metadata"]), "name")); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

// deploymentWarnings is the Deployment and ReplicaSet strategies' WarningsOnCreate (the name,
// then the pod template's) and WarningsOnUpdate (the pod template's when the generation moved,
// that is when the spec changed); their /status strategies warn about nothing.
func deploymentWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	if old == nil {
		return append(workloadNameWarning(obj), templateWarnings(obj, nil)...)
	}
	if generationMoved(obj, old) {
		return templateWarnings(obj, old)
	}
	return nil
}

// templateWarnings is GetWarningsForPodTemplate on spec.template (old nil on create).
func templateWarnings(obj, old map[string]any) []string {
	var oldTmpl map[string]any
	if old != nil {
		oldTmpl = mapOf(mapOf(old["spec"])["template"])
	}
	return PodTemplateWarnings(field.NewPath("spec", "template"), mapOf(mapOf(obj["spec"])["template"]), oldTmpl)
}

// generationMoved reports whether metadata.generation differs between obj and old (the
// strategy's PrepareForUpdate bumped it).
func generationMoved(obj, old map[string]any) bool {
	g, _ := integer(mapOf(obj["metadata"]), "generation")
	og, _ := integer(mapOf(old["metadata"]), "generation")
	return g != og
}

// daemonSetWarnings: the pod template's on create, and on update when templateGeneration moved.
func daemonSetWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	if old == nil {
		return templateWarnings(obj, nil)
	}
	if templateGeneration(obj) != templateGeneration(old) {
		return templateWarnings(obj, old)
	}
	return nil
}

// DaemonSet: pkg/registry/apps/daemonset over ValidateDaemonSet, ValidateDaemonSetUpdate and
// ValidateDaemonSetStatusUpdate; its warnings are the pod template's.

func validateDaemonSet(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	return distinct(append(errs, daemonSetSpec(obj, nil, LabelSelectorOptions{})...))
}

func validateDaemonSetUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	if opts.Subresource == "status" {
		errs = append(errs, daemonSetStatus(mapOf(obj["status"]))...)
		errs = append(errs, collisionCountDecremented(obj, old)...)
		return distinct(errs)
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	p := field.NewPath("spec")
	tg, otg := templateGeneration(obj), templateGeneration(old)
	if tg < otg {
		errs = append(errs, field.Invalid(p.Child("templateGeneration"), tg, "must not be decremented"))
	}
	changed := !goSemanticEqual(goTypeAt("apps", "DaemonSet", "spec", "template"), spec["template"], oldSpec["template"])
	if tg == otg && changed {
		errs = append(errs, field.Invalid(p.Child("templateGeneration"), tg, "must be incremented upon template update"))
	} else if tg > otg && !changed {
		errs = append(errs, field.Invalid(p.Child("templateGeneration"), tg, "must not be incremented without template update"))
	}
	errs = append(errs, selectorImmutable(obj, old)...)
	sopts := LabelSelectorOptions{AllowInvalidLabelValue: selectorHasInvalidLabelValue(mapOf(oldSpec["selector"]))}
	return distinct(append(errs, daemonSetSpec(obj, old, sopts)...))
}

func daemonSetSpec(obj, old map[string]any, sopts LabelSelectorOptions) field.ErrorList {
	p := field.NewPath("spec")
	spec := mapOf(obj["spec"])
	sel, hasSel := spec["selector"].(map[string]any)
	var errs field.ErrorList
	if hasSel {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, sopts)...)
	}
	tmpl := mapOf(spec["template"])
	tl := stringMap(mapOf(tmpl["metadata"])["labels"])
	if hasSel {
		if s, err := labels.FromLabelSelector(sel); err == nil && !s.Matches(tl) {
			errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), tl, "`selector` does not match template `labels`"))
		}
		if len(mapOf(sel["matchLabels"]))+len(listOf(sel["matchExpressions"])) == 0 {
			errs = append(errs, field.Invalid(p.Child("selector"), selectorValue(sel, true), "empty selector is invalid for daemonset"))
		}
	} else {
		// LabelSelectorAsSelector(nil) is Nothing, which matches no labels.
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), tl, "`selector` does not match template `labels`"))
	}
	var oldPodSpec map[string]any
	if old != nil {
		oldPodSpec = mapOf(mapOf(mapOf(old["spec"])["template"])["spec"])
	}
	podSpec := mapOf(tmpl["spec"])
	tp := p.Child("template")
	errs = append(errs, ValidatePodTemplateSpec(tp, tmpl, NewPodOptions(podSpec, oldPodSpec))...)
	if rp := str(podSpec, "restartPolicy"); rp != "Always" {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{"Always"}))
	}
	if has(podSpec, "activeDeadlineSeconds") {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	minReady, _ := integer(spec, "minReadySeconds")
	errs = append(errs, nonNegative(p.Child("minReadySeconds"), minReady)...)
	errs = append(errs, nonNegative(p.Child("templateGeneration"), templateGeneration(obj))...)
	errs = append(errs, daemonSetUpdateStrategy(p.Child("updateStrategy"), mapOf(spec["updateStrategy"]))...)
	if v, ok := integer(spec, "revisionHistoryLimit"); ok {
		errs = append(errs, nonNegative(p.Child("revisionHistoryLimit"), v)...)
	}
	return errs
}

// prepareDaemonSetCreate is the DaemonSet strategy's PrepareForCreate beside the status reset and
// generation: templateGeneration (apps/v1's deprecated.daemonset.template.generation annotation)
// is at least 1.
func prepareDaemonSetCreate(obj map[string]any, _ Options) map[string]any {
	if templateGeneration(obj) >= 1 {
		return obj
	}
	return withTemplateGeneration(obj, 1)
}

// prepareDaemonSetUpdate is its PrepareForUpdate on the main resource: the client cannot set
// templateGeneration; it is the stored one, plus one when the pod template changed
// (Semantic.DeepEqual over the Go type). /status keeps the stored one too.
func prepareDaemonSetUpdate(obj, old map[string]any, opts Options) map[string]any {
	g := templateGeneration(old)
	if opts.Subresource == "" && !goSemanticEqual(goTypeAt("apps", "DaemonSet", "spec", "template"), mapOf(obj["spec"])["template"], mapOf(old["spec"])["template"]) {
		g++
	}
	if templateGeneration(obj) == g && hasTemplateGeneration(obj) == hasTemplateGeneration(old) {
		return obj
	}
	return withTemplateGeneration(obj, g)
}

func hasTemplateGeneration(obj map[string]any) bool {
	_, ok := mapOf(mapOf(obj["metadata"])["annotations"])["deprecated.daemonset.template.generation"]
	return ok
}

// withTemplateGeneration is obj (copied along the path it changes) with the annotation set to g.
func withTemplateGeneration(obj map[string]any, g int64) map[string]any {
	out := maps.Clone(obj)
	md := maps.Clone(mapOf(obj["metadata"]))
	if md == nil {
		md = map[string]any{}
	}
	ann := maps.Clone(mapOf(md["annotations"]))
	if ann == nil {
		ann = map[string]any{}
	}
	ann["deprecated.daemonset.template.generation"] = strconv.FormatInt(g, 10)
	md["annotations"] = ann
	out["metadata"] = md
	return out
}

// templateGeneration is the internal spec.templateGeneration, which apps/v1 carries in the
// deprecated.daemonset.template.generation annotation.
func templateGeneration(obj map[string]any) int64 {
	v := str(mapOf(mapOf(obj["metadata"])["annotations"]), "deprecated.daemonset.template.generation")
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

func daemonSetUpdateStrategy(p field.Path, s map[string]any) field.ErrorList {
	ru, hasRU := s["rollingUpdate"].(map[string]any)
	switch t := str(s, "type"); t {
	case "OnDelete":
	case "RollingUpdate":
		if !hasRU {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "")}
		}
		rp := p.Child("rollingUpdate")
		mu, ms := intOrString(ru["maxUnavailable"]), intOrString(ru["maxSurge"])
		errs := positiveIntOrPercent(rp.Child("maxUnavailable"), mu)
		errs = append(errs, positiveIntOrPercent(rp.Child("maxSurge"), ms)...)
		if v, ok := percentValue(mu); ok && v > 100 {
			errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), mu, "must not be greater than 100%"))
		}
		if v, ok := percentValue(ms); ok && v > 100 {
			errs = append(errs, field.Invalid(rp.Child("maxSurge"), ms, "must not be greater than 100%"))
		}
		hasU, hasS := intOrPercentValue(mu) != 0, intOrPercentValue(ms) != 0
		switch {
		case hasU && hasS:
			errs = append(errs, field.Invalid(rp.Child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
		case !hasU && !hasS:
			errs = append(errs, field.Required(rp.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
		return errs
	default:
		bad := deploymentStrategyJSON{Type: t}
		if hasRU {
			bad.RollingUpdate = &rollingUpdateJSON{MaxUnavailable: intOrString(ru["maxUnavailable"]), MaxSurge: intOrString(ru["maxSurge"])}
		}
		return field.ErrorList{field.NotSupported(p, &bad, []string{"RollingUpdate", "OnDelete"})}
	}
	return nil
}

func daemonSetStatus(st map[string]any) field.ErrorList {
	p := field.NewPath("status")
	var errs field.ErrorList
	for _, k := range []string{"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable"} {
		v, _ := integer(st, k)
		errs = append(errs, nonNegative(p.Child(k), v)...)
	}
	if v, ok := integer(st, "collisionCount"); ok {
		errs = append(errs, nonNegative(p.Child("collisionCount"), v)...)
	}
	return errs
}
