package validation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/validation"
)

// Job: pkg/registry/batch/job over ValidateJobCreate and ValidateJobUpdate
// (pkg/apis/batch/validation), feature gates at their 1.37 defaults: JobManagedBy,
// MutablePodResourcesForSuspendedJobs and MutableSchedulingDirectivesForSuspendedJobs on,
// WorkloadWithJob off (spec.scheduling is dropped before validation, so its rules never run).
// The selector and template labels are the ones PrepareForCreate generated (the registry's
// prepareJobForCreate). Not modelled: the /status strategy's rules (ValidateJobStatusUpdate;
// only its ObjectMeta update check runs), ValidatePodSpecificAnnotations on the template.

const (
	legacyJobNameLabel       = "job-name"
	jobNameLabel             = "batch.kubernetes.io/job-name"
	legacyControllerUIDLabel = "controller-uid"
	controllerUIDLabel       = "batch.kubernetes.io/controller-uid"
)

func validateJob(obj map[string]any, _ Options) field.ErrorList {
	spec := mapOf(obj["spec"])
	popts := NewPodOptions(mapOf(mapOf(spec["template"])["spec"]), nil)
	errs := coreObjectMeta(obj, true, validation.NameIsDNSSubdomain)
	errs = append(errs, generatedSelector(obj, true)...)
	errs = append(errs, jobSpec(field.NewPath("spec"), spec, popts, LabelSelectorOptions{})...)
	errs = append(errs, nameAllowsCompletions(obj)...)
	return distinct(errs)
}

func validateJobUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	if opts.Subresource == "status" {
		return distinct(append(coreObjectMetaUpdate(obj, old), jobStatusUpdate(obj, old)...))
	}
	spec, oldSpec := mapOf(obj["spec"]), mapOf(old["spec"])
	popts := NewPodOptions(mapOf(mapOf(spec["template"])["spec"]), mapOf(mapOf(oldSpec["template"])["spec"]))
	sopts := LabelSelectorOptions{AllowInvalidLabelValue: selectorHasInvalidLabelValue(mapOf(oldSpec["selector"]))}
	mutable := mutablePodTemplate(old)
	p := field.NewPath("spec")
	errs := coreObjectMetaUpdate(obj, old)
	errs = append(errs, jobSpec(p, spec, popts, sopts)...)
	errs = append(errs, jobCompletionsUpdate(p, spec, oldSpec)...)
	errs = append(errs, selectorImmutable(obj, old)...)
	errs = append(errs, jobTemplateUpdate(p, spec, oldSpec, mutable, mutable)...)
	st := goTypeAt("batch", "Job", "spec")
	for _, k := range []string{"completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"} {
		if !goSemanticEqual(st.Field(k), spec[k], oldSpec[k]) {
			errs = append(errs, field.Invalid(p.Child(k), internalGo(st.Field(k), spec[k]), "field is immutable"))
		}
	}
	errs = append(errs, nameAllowsCompletions(obj)...)
	return distinct(errs)
}

// mutablePodTemplate is the strategy's shouldAllowMutablePodTemplate on the stored Job:
// suspended, not started (or suspended again) and with no active pods.
func mutablePodTemplate(old map[string]any) bool {
	suspended, _ := boolean(mapOf(old["spec"]), "suspend")
	st := mapOf(old["status"])
	notStarted := !has(st, "startTime")
	active, _ := integer(st, "active")
	return suspended && (notStarted || jobConditionIs(st, "Suspended", "True")) && active == 0
}

func jobConditionIs(st map[string]any, typ, status string) bool {
	for _, c := range listOf(st["conditions"]) {
		cm := mapOf(c)
		if str(cm, "type") == typ {
			return str(cm, "status") == status
		}
	}
	return false
}

// generatedSelector is validateGeneratedSelector: unless manualSelector, the template carries
// the job-name and controller-uid labels and the selector selects them.
func generatedSelector(obj map[string]any, prefixed bool) field.ErrorList {
	spec := mapOf(obj["spec"])
	if manual, _ := boolean(spec, "manualSelector"); manual {
		return nil
	}
	sel, ok := spec["selector"].(map[string]any)
	if !ok {
		return nil
	}
	md := mapOf(obj["metadata"])
	uid, name := str(md, "uid"), str(md, "name")
	var errs field.ErrorList
	if uid == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"), ""))
	}
	tp := field.NewPath("spec", "template", "metadata")
	tl := stringMap(mapOf(mapOf(spec["template"])["metadata"])["labels"])
	errs = append(errs, hasLabel(tp, tl, legacyControllerUIDLabel, uid)...)
	errs = append(errs, hasLabel(tp, tl, legacyJobNameLabel, name)...)
	expected := map[string]string{legacyControllerUIDLabel: uid, legacyJobNameLabel: name}
	if prefixed {
		errs = append(errs, hasLabel(tp, tl, controllerUIDLabel, uid)...)
		errs = append(errs, hasLabel(tp, tl, jobNameLabel, name)...)
		expected[controllerUIDLabel], expected[jobNameLabel] = uid, name
	}
	if s, err := labels.FromLabelSelector(sel); err == nil && !s.Matches(expected) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), selectorValue(sel, true), "`selector` not auto-generated"))
	}
	return errs
}

// hasLabel is core's ValidateHasLabel.
func hasLabel(p field.Path, l map[string]string, key, want string) field.ErrorList {
	v, ok := l[key]
	lp := p.Child("labels").Key(key)
	if !ok {
		return field.ErrorList{field.Required(lp, fmt.Sprintf("must be '%s'", want))}
	}
	if v != want {
		return field.ErrorList{field.Invalid(lp, l, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// nameAllowsCompletions is validateNameAllowsCompletions: an Indexed Job's last pod hostname
// (name-<completions-1>) must be a DNS label.
func nameAllowsCompletions(obj map[string]any) field.ErrorList {
	spec := mapOf(obj["spec"])
	c, ok := integer(spec, "completions")
	if str(spec, "completionMode") != "Indexed" || !ok || !has(spec, "completions") || c <= 0 {
		return nil
	}
	name := str(mapOf(obj["metadata"]), "name")
	host := fmt.Sprintf("%s-%d", name, c-1)
	if len(validation.IsDNS1123Label(host)) > 0 {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name, "will not able to create pod with invalid DNS label: "+host)}
	}
	return nil
}

// optInt reads an optional integer field (a pointer in the Go type).
func optInt(m map[string]any, key string) (int64, bool) {
	if !has(m, key) {
		return 0, false
	}
	return integer(m, key)
}

// jobSpec is ValidateJobSpec (validateJobSpec, then the selector and its match with the
// template's labels).
func jobSpec(p field.Path, spec map[string]any, popts PodOptions, sopts LabelSelectorOptions) field.ErrorList {
	errs := jobSpecRules(p, spec, popts)
	sel, hasSel := spec["selector"].(map[string]any)
	if !hasSel {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(p.Child("selector"), sel, sopts)...)
	}
	s, err := labels.FromLabelSelector(sel)
	if !hasSel {
		s, err = labels.Nothing(), nil
	}
	tl := stringMap(mapOf(mapOf(spec["template"])["metadata"])["labels"])
	if err == nil && !s.Matches(tl) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), tl, "`selector` does not match template `labels`"))
	}
	return errs
}

func jobSpecRules(p field.Path, spec map[string]any, popts PodOptions) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished", "backoffLimitPerIndex"} {
		if v, ok := optInt(spec, k); ok {
			errs = append(errs, nonNegative(p.Child(k), v)...)
		}
	}
	parallelism, hasPar := optInt(spec, "parallelism")
	completions, hasComp := optInt(spec, "completions")
	_, hasBLPI := optInt(spec, "backoffLimitPerIndex")
	maxFailed, hasMax := optInt(spec, "maxFailedIndexes")
	if hasMax {
		errs = append(errs, nonNegative(p.Child("maxFailedIndexes"), maxFailed)...)
		if !hasBLPI {
			errs = append(errs, field.Required(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if mb, ok := spec["managedBy"].(string); ok {
		errs = append(errs, domainPrefixedPath(p.Child("managedBy"), mb)...)
		if len(mb) > 63 {
			errs = append(errs, field.TooLong(p.Child("managedBy"), "", 63))
		}
	}
	mode, hasMode := spec["completionMode"].(string)
	if hasMode {
		if mode != "NonIndexed" && mode != "Indexed" {
			errs = append(errs, field.NotSupported(p.Child("completionMode"), mode, []string{"NonIndexed", "Indexed"}))
		}
		if mode == "Indexed" {
			if !hasComp {
				errs = append(errs, field.Required(p.Child("completions"), "when completion mode is Indexed"))
			}
			if hasPar && parallelism > 100000 {
				errs = append(errs, field.Invalid(p.Child("parallelism"), parallelism, "must be less than or equal to 100000 when completion mode is Indexed"))
			}
			if hasComp && hasMax && maxFailed > completions {
				errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), maxFailed, "must be less than or equal to completions"))
			}
			if hasMax && maxFailed > 100_000 {
				errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), maxFailed, "must be less than or equal to 100000"))
			}
			if hasComp && completions > 100_000 && hasBLPI {
				if !hasMax {
					errs = append(errs, field.Required(p.Child("maxFailedIndexes"), "must be specified when completions is above 100000"))
				}
				if hasPar && parallelism > 10_000 {
					errs = append(errs, field.Invalid(p.Child("parallelism"), parallelism, "must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"))
				}
				if hasMax && maxFailed > 10_000 {
					errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), maxFailed, "must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"))
				}
			}
		}
	}
	if !hasMode || mode == "NonIndexed" {
		if v, ok := optInt(spec, "backoffLimitPerIndex"); ok {
			errs = append(errs, field.Invalid(p.Child("backoffLimitPerIndex"), v, "requires indexed completion mode"))
		}
		if hasMax {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), maxFailed, "requires indexed completion mode"))
		}
	}
	pfp, hasPFP := spec["podFailurePolicy"].(map[string]any)
	if hasPFP {
		errs = append(errs, podFailurePolicy(p.Child("podFailurePolicy"), pfp, spec, hasBLPI)...)
	}
	if sp, ok := spec["successPolicy"].(map[string]any); ok {
		if mode != "Indexed" {
			errs = append(errs, field.Invalid(p.Child("successPolicy"), internalGo(goTypeAt("batch", "Job", "spec", "successPolicy").Deref(), sp), "requires indexed completion mode"))
		} else {
			errs = append(errs, successPolicy(p.Child("successPolicy"), sp, completions)...)
		}
	}
	if rp, ok := spec["podReplacementPolicy"].(string); ok {
		pp := p.Child("podReplacementPolicy")
		if hasPFP {
			if rp != "Failed" {
				errs = append(errs, field.NotSupported(pp, rp, []string{"Failed"}))
			}
		} else if rp != "Failed" && rp != "TerminatingOrFailed" {
			errs = append(errs, field.NotSupported(pp, rp, []string{"Failed", "TerminatingOrFailed"}))
		}
	}
	tp := p.Child("template")
	tmpl := mapOf(spec["template"])
	errs = append(errs, ValidatePodTemplateSpec(tp, tmpl, popts)...)
	rpp := tp.Child("spec", "restartPolicy")
	switch rp := str(mapOf(tmpl["spec"]), "restartPolicy"); {
	case rp == "Always" || rp == "":
		errs = append(errs, field.Required(rpp, `valid values: "OnFailure", "Never"`))
	case rp != "OnFailure" && rp != "Never":
		errs = append(errs, field.NotSupported(rpp, rp, []string{"OnFailure", "Never"}))
	case hasPFP && rp != "Never":
		errs = append(errs, field.Invalid(rpp, rp, `only "Never" is supported when podFailurePolicy is specified`))
	}
	return errs
}

func podFailurePolicy(p field.Path, pfp, spec map[string]any, hasBLPI bool) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("rules")
	rules := listOf(pfp["rules"])
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(rp, len(rules), 20))
	}
	names := map[string]bool{}
	podSpec := mapOf(mapOf(spec["template"])["spec"])
	for _, k := range []string{"containers", "initContainers"} {
		for _, c := range listOf(podSpec[k]) {
			names[str(mapOf(c), "name")] = true
		}
	}
	for i, r := range rules {
		errs = append(errs, podFailurePolicyRule(rp.Index(i), mapOf(r), hasBLPI, names)...)
	}
	return errs
}

func podFailurePolicyRule(p field.Path, rule map[string]any, hasBLPI bool, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	ap := p.Child("action")
	actions := []string{"Count", "FailIndex", "FailJob", "Ignore"}
	switch a := str(rule, "action"); {
	case a == "":
		errs = append(errs, field.Required(ap, `valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`))
	case a == "FailIndex":
		if !hasBLPI {
			errs = append(errs, field.Invalid(ap, a, "requires the backoffLimitPerIndex to be set"))
		}
	case !contains(actions, a):
		errs = append(errs, field.NotSupported(ap, a, actions))
	}
	oec, hasOEC := rule["onExitCodes"].(map[string]any)
	conds := listOf(rule["onPodConditions"])
	if hasOEC {
		errs = append(errs, onExitCodes(p.Child("onExitCodes"), oec, names)...)
	}
	if len(conds) > 0 {
		cp := p.Child("onPodConditions")
		if len(conds) > 20 {
			errs = append(errs, field.TooMany(cp, len(conds), 20))
		}
		for j, c := range conds {
			pp := cp.Index(j)
			cm := mapOf(c)
			errs = append(errs, qualifiedName(pp.Child("type"), str(cm, "type"))...)
			switch s := str(cm, "status"); {
			case s == "":
				errs = append(errs, field.Required(pp.Child("status"), `valid values: ["False" "True" "Unknown"]`))
			case s != "False" && s != "True" && s != "Unknown":
				errs = append(errs, field.NotSupported(pp.Child("status"), s, []string{"False", "True", "Unknown"}))
			}
		}
	}
	if hasOEC && len(conds) > 0 {
		errs = append(errs, field.Invalid(p, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if !hasOEC && len(conds) == 0 {
		errs = append(errs, field.Invalid(p, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

// int32List is a []int32 bad value: null when absent.
func int32List(v any) any {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]int64, len(l))
	for i, x := range l {
		n, _ := x.(int64)
		out[i] = int64(int32(n))
	}
	return out
}

func onExitCodes(p field.Path, oec map[string]any, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	op := str(oec, "operator")
	switch {
	case op == "":
		errs = append(errs, field.Required(p.Child("operator"), `valid values: ["In" "NotIn"]`))
	case op != "In" && op != "NotIn":
		errs = append(errs, field.NotSupported(p.Child("operator"), op, []string{"In", "NotIn"}))
	}
	if cn, ok := oec["containerName"].(string); ok && !names[cn] {
		errs = append(errs, field.Invalid(p.Child("containerName"), cn, "must be one of the container or initContainer names in the pod template"))
	}
	vp := p.Child("values")
	values := listOf(oec["values"])
	if len(values) == 0 {
		errs = append(errs, field.Invalid(vp, int32List(oec["values"]), "at least one value is required"))
	} else if len(values) > 255 {
		errs = append(errs, field.TooMany(vp, len(values), 255))
	}
	ordered := true
	seen := make(map[int64]bool, len(values))
	var prev int64
	for j, x := range values {
		n, _ := x.(int64)
		n = int64(int32(n))
		if op == "In" && n == 0 {
			errs = append(errs, field.Invalid(vp.Index(j), n, "must not be 0 for the In operator"))
		}
		if seen[n] {
			errs = append(errs, field.Duplicate(vp.Index(j), n))
		} else {
			seen[n] = true
		}
		if j > 0 && prev > n {
			ordered = false
		}
		prev = n
	}
	if !ordered {
		errs = append(errs, field.Invalid(vp, int32List(oec["values"]), "must be ordered"))
	}
	return errs
}

func successPolicy(p field.Path, sp map[string]any, completions int64) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("rules")
	rules := listOf(sp["rules"])
	if len(rules) == 0 {
		errs = append(errs, field.Required(rp, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(rp, len(rules), 20))
	}
	for i, r := range rules {
		rule := mapOf(r)
		pp := rp.Index(i)
		idx, hasIdx := rule["succeededIndexes"].(string)
		count, hasCount := optInt(rule, "succeededCount")
		if !hasIdx && !hasCount {
			errs = append(errs, field.Required(pp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int64
		if hasIdx {
			ip := pp.Child("succeededIndexes")
			if len(idx) > 64*1024 {
				errs = append(errs, field.TooLong(ip, "", 64*1024))
			}
			var err error
			if total, err = indexesTotal(idx, int64(int32(completions))); err != nil {
				errs = append(errs, field.Invalid(ip, idx, "error parsing succeededIndexes: "+err.Error()))
			}
		}
		if hasCount {
			cp := pp.Child("succeededCount")
			count = int64(int32(count))
			errs = append(errs, nonNegative(cp, count)...)
			if count > completions {
				errs = append(errs, field.Invalid(cp, count, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if hasIdx && count > total {
				errs = append(errs, field.Invalid(cp, count, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// indexesTotal is validateIndexesFormat: the number of indexes in a list of intervals
// ("1,3-5"), each below completions, in increasing order.
func indexesTotal(s string, completions int64) (int64, error) {
	if s == "" {
		return 0, nil
	}
	var total int64
	var last int64
	haveLast := false
	for _, iv := range strings.Split(s, ",") {
		x, y, err := indexInterval(iv, completions)
		if err != nil {
			return 0, err
		}
		if haveLast && last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		total = int64(int32(total + y - x + 1))
		last, haveLast = y, true
	}
	return total, nil
}

func indexInterval(s string, completions int64) (int64, int64, error) {
	parts := strings.Split(s, "-")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	x, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", parts[0])
	}
	if int64(x) >= completions {
		return 0, 0, fmt.Errorf("too large index: %q", parts[0])
	}
	if len(parts) == 1 {
		return int64(int32(x)), int64(int32(x)), nil
	}
	y, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", parts[1])
	}
	if int64(y) >= completions {
		return 0, 0, fmt.Errorf("too large index: %q", parts[1])
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return int64(int32(x)), int64(int32(y)), nil
}

// jobCompletionsUpdate is validateCompletions: completions is immutable, but an Indexed Job
// may change it together with parallelism.
func jobCompletionsUpdate(p field.Path, spec, oldSpec map[string]any) field.ErrorList {
	cp := p.Child("completions")
	c, hasC := optInt(spec, "completions")
	oc, hasOC := optInt(oldSpec, "completions")
	same := hasC == hasOC && c == oc
	bad := any(nil)
	if hasC {
		bad = c
	}
	if str(spec, "completionMode") != "Indexed" {
		if !same {
			return field.ErrorList{field.Invalid(cp, bad, "field is immutable")}
		}
		return nil
	}
	if same || !hasC {
		return nil
	}
	if par, _ := optInt(spec, "parallelism"); par != c {
		return field.ErrorList{field.Invalid(cp, c, "can only be modified in tandem with spec.parallelism")}
	}
	return nil
}

// jobTemplateUpdate is validatePodTemplateUpdate: the template is immutable, but a suspended
// Job that has not started may change its scheduling directives (node affinity, node selector,
// tolerations, labels, annotations, scheduling gates) and its containers' resources.
func jobTemplateUpdate(p field.Path, spec, oldSpec map[string]any, mutableScheduling, mutableResources bool) field.ErrorList {
	tmpl, oldTmpl := mapOf(spec["template"]), mapOf(oldSpec["template"])
	if mutableScheduling {
		oldTmpl = withSchedulingDirectives(oldTmpl, tmpl)
	}
	tt := goTypeAt("batch", "Job", "spec", "template")
	suspended, _ := boolean(oldSpec, "suspend")
	if !suspended || !mutableResources {
		if !goSemanticEqual(tt, tmpl, oldTmpl) {
			return field.ErrorList{field.Invalid(p.Child("template"), internalGo(tt, tmpl), "field is immutable")}
		}
		return nil
	}
	ps, ops := mapOf(tmpl["spec"]), withResources(mapOf(oldTmpl["spec"]), mapOf(tmpl["spec"]))
	if st := tt.Field("spec"); !goSemanticEqual(st, ps, ops) {
		return field.ErrorList{field.Invalid(p.Child("template.spec"), internalGo(st, ps), "field is immutable")}
	}
	return nil
}

// withSchedulingDirectives is the stored template with the new one's scheduling directives.
func withSchedulingDirectives(old, tmpl map[string]any) map[string]any {
	out := shallowMap(old)
	md := shallowMap(mapOf(old["metadata"]))
	nmd := mapOf(tmpl["metadata"])
	setOrDelete(md, "labels", nmd["labels"])
	setOrDelete(md, "annotations", nmd["annotations"])
	out["metadata"] = md
	spec := shallowMap(mapOf(old["spec"]))
	nspec := mapOf(tmpl["spec"])
	na, hasNA := nspec["affinity"].(map[string]any)
	oa, hasOA := spec["affinity"].(map[string]any)
	switch {
	case !hasNA && hasOA:
		a := shallowMap(oa)
		delete(a, "nodeAffinity")
		empty := true
		for _, v := range a {
			if v != nil {
				empty = false
			}
		}
		if empty {
			delete(spec, "affinity")
		} else {
			spec["affinity"] = a
		}
	case hasNA && !hasOA:
		a := map[string]any{}
		setOrDelete(a, "nodeAffinity", na["nodeAffinity"])
		spec["affinity"] = a
	case hasNA && hasOA:
		a := shallowMap(oa)
		setOrDelete(a, "nodeAffinity", na["nodeAffinity"])
		spec["affinity"] = a
	}
	for _, k := range []string{"nodeSelector", "tolerations", "schedulingGates"} {
		setOrDelete(spec, k, nspec[k])
	}
	out["spec"] = spec
	return out
}

// withResources is validatePodResourceUpdatesOnly's copy of the stored spec: each container
// (and init container) at the same index with the same name takes the new one's resources,
// when the lists have the same length.
func withResources(old, spec map[string]any) map[string]any {
	out := shallowMap(old)
	for _, k := range []string{"containers", "initContainers"} {
		nl, ol := listOf(spec[k]), listOf(old[k])
		if len(nl) != len(ol) {
			continue
		}
		cl := make([]any, len(ol))
		for i := range ol {
			cl[i] = ol[i]
			if str(mapOf(ol[i]), "name") == str(mapOf(nl[i]), "name") {
				c := shallowMap(mapOf(ol[i]))
				setOrDelete(c, "resources", mapOf(nl[i])["resources"])
				cl[i] = c
			}
		}
		if ol != nil {
			out[k] = cl
		}
	}
	return out
}

func shallowMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// jobWarnings: on create the name's warning and WarningsForJobSpec, on update
// WarningsForJobSpec when the generation moved; none on /status.
func jobWarnings(obj, old map[string]any, opts Options) []string {
	if opts.Subresource != "" {
		return nil
	}
	if old == nil {
		return append(workloadNameWarning(obj), jobSpecWarnings(field.NewPath("spec"), mapOf(obj["spec"]), nil)...)
	}
	if generationMoved(obj, old) {
		return jobSpecWarnings(field.NewPath("spec"), mapOf(obj["spec"]), mapOf(old["spec"]))
	}
	return nil
}

// jobSpecWarnings is WarningsForJobSpec.
func jobSpecWarnings(p field.Path, spec, oldSpec map[string]any) []string {
	var ws []string
	if str(spec, "completionMode") == "Indexed" {
		c, _ := optInt(spec, "completions")
		par, _ := optInt(spec, "parallelism")
		if c > 100_000 && par > 10_000 {
			ws = append(ws, p.String()+": In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")
		}
	}
	var oldTmpl map[string]any
	if oldSpec != nil {
		oldTmpl = mapOf(oldSpec["template"])
	}
	return append(ws, PodTemplateWarnings(p.Child("template"), mapOf(spec["template"]), oldTmpl)...)
}
