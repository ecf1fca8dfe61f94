package registry

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// PodSecurity, the validating admission plugin (k8s.io/kubernetes plugin/pkg/admission/security/
// podsecurity over k8s.io/pod-security-admission admission; recorded: pod-security/*), as
// kube-apiserver 1.37 runs it without an admission configuration file: the default policy is
// privileged:latest for enforce, audit and warn, and nothing is exempt. A namespace chooses its
// policy with the labels pod-security.kubernetes.io/{enforce,audit,warn}[-version].
//   - Pods (create, update, and the subresources other than exec, attach, binding, eviction,
//     log, portforward, proxy and status): the enforce level refuses (403), the warn level warns
//     and the audit level annotates the audit event. An update is checked only when it changes
//     what the policy cares to see change: a container's image, the number of containers or
//     init containers, or an ephemeral container added.
//   - The pod templates of workload resources (podtemplates, replicationcontrollers,
//     replicasets, deployments, statefulsets, daemonsets, jobs, cronjobs; main resource only):
//     warnings and audit annotations, never a refusal.
//   - Namespaces: invalid policy labels are a 422; a change that tightens the enforce level
//     warns about the existing pods that would violate it.

const psLabelPrefix = "pod-security.kubernetes.io/"

// psPolicy is a namespace's policy.
type psPolicy struct {
	enforce, audit, warn psLevelVersion
}

func (p psPolicy) fullyPrivileged() bool {
	return p.enforce.level == psPrivileged && p.audit.level == psPrivileged && p.warn.level == psPrivileged
}

// psDefaultPolicy is the policy of a namespace without labels: the default configuration's.
var psDefaultPolicy = psPolicy{
	enforce: psLevelVersion{psPrivileged, psVersion{latest: true}},
	audit:   psLevelVersion{psPrivileged, psVersion{latest: true}},
	warn:    psLevelVersion{psPrivileged, psVersion{latest: true}},
}

var psVersionPattern = regexp.MustCompile(`^v1\.([0-9]|[1-9][0-9]*)$`)

// psParseLevel parses a level label: an invalid one is restricted (enforce fails closed; audit
// and warn are set back to privileged by the caller).
func psParseLevel(s string) (psLevel, string) {
	switch l := psLevel(s); l {
	case psPrivileged, psBaseline, psRestricted:
		return l, ""
	}
	return psRestricted, "must be one of privileged, baseline, restricted"
}

// psParseVersion parses a version label: an invalid one is latest.
func psParseVersion(s string) (psVersion, string) {
	if s == "latest" {
		return psVersion{latest: true}, ""
	}
	m := psVersionPattern.FindStringSubmatch(s)
	if m == nil {
		return psVersion{latest: true}, `must be "latest" or "v1.x"`
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return psVersion{latest: true}, `must be "latest" or "v1.x"`
	}
	return psVersion{minor: n}, ""
}

// psPolicyOf is api.PolicyToEvaluate over the default policy: the namespace's labels and the
// errors of those that do not parse. A warn level that is not set follows an enforce level
// stricter than it (and its version, unless warn-version is set).
func psPolicyOf(labels map[string]any) (psPolicy, field.ErrorList) {
	p := psDefaultPolicy
	var errs field.ErrorList
	label := func(k string) (string, bool) {
		v, ok := labels[psLabelPrefix+k]
		s, _ := v.(string)
		return s, ok
	}
	fail := func(k, v, detail string) {
		if detail != "" {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "labels").Key(psLabelPrefix+k), v, detail))
		}
	}
	var d string
	hasEnforce := false
	if v, ok := label("enforce"); ok {
		p.enforce.level, d = psParseLevel(v)
		hasEnforce = d == ""
		fail("enforce", v, d)
	}
	if v, ok := label("enforce-version"); ok {
		p.enforce.version, d = psParseVersion(v)
		fail("enforce-version", v, d)
	}
	if v, ok := label("audit"); ok {
		if p.audit.level, d = psParseLevel(v); d != "" {
			p.audit.level = psPrivileged
		}
		fail("audit", v, d)
	}
	if v, ok := label("audit-version"); ok {
		p.audit.version, d = psParseVersion(v)
		fail("audit-version", v, d)
	}
	_, hasWarn := label("warn")
	_, hasWarnVersion := label("warn-version")
	if v, ok := label("warn"); ok {
		if p.warn.level, d = psParseLevel(v); d != "" {
			p.warn.level = psPrivileged
		}
		fail("warn", v, d)
	}
	if v, ok := label("warn-version"); ok {
		p.warn.version, d = psParseVersion(v)
		fail("warn-version", v, d)
	}
	if !hasWarn && hasEnforce && psRank(p.enforce.level) > psRank(p.warn.level) {
		p.warn.level = p.enforce.level
		if !hasWarnVersion {
			p.warn.version = p.enforce.version
		}
	}
	return p, errs
}

var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// psIgnoredPodSubresources are the pod subresources PodSecurity lets through unchecked.
var psIgnoredPodSubresources = map[string]bool{"exec": true, "attach": true, "binding": true, "eviction": true,
	"log": true, "portforward": true, "proxy": true, "status": true}

// psTemplateResources are the workload resources whose pod templates PodSecurity checks.
var psTemplateResources = map[status.GroupResource]bool{
	{Resource: "podtemplates"}: true, {Resource: "replicationcontrollers"}: true,
	{Group: "apps", Resource: "replicasets"}: true, {Group: "apps", Resource: "deployments"}: true,
	{Group: "apps", Resource: "statefulsets"}: true, {Group: "apps", Resource: "daemonsets"}: true,
	{Group: "batch", Resource: "jobs"}: true, {Group: "batch", Resource: "cronjobs"}: true,
}

// podSecurity is the PodSecurity plugin on a create or an update (obj is the object after
// mutation and validation, old the stored one on an update); it adds warnings and audit
// annotations to the handler and returns the refusal.
func (h *handler) podSecurity(op admission.Operation, obj, old map[string]any, name string) error {
	if h.pluginDisabled("PodSecurity") || h.ep.crd != nil || obj == nil || (op != admission.Create && op != admission.Update) {
		return nil
	}
	switch gr := h.ep.groupResource(); {
	case gr == status.GroupResource{Resource: "namespaces"}:
		if h.ep.Subresource != "" {
			return nil
		}
		return h.podSecurityNamespace(op, obj, old, name)
	case gr == status.GroupResource{Resource: "pods"}:
		if psIgnoredPodSubresources[h.ep.Subresource] {
			return nil
		}
		if op == admission.Update && !psSignificantPodUpdate(obj, old) {
			return nil
		}
		return h.podSecurityPod(obj, name)
	case psTemplateResources[gr]:
		if h.ep.Subresource != "" {
			return nil
		}
		return h.podSecurityTemplate(gr, obj)
	}
	return nil
}

// psPolicyOfNamespace reads the request's namespace and its policy; ns is nil when there is
// none.
func (h *handler) psPolicyOfNamespace() (ns map[string]any, p psPolicy, errs field.ErrorList, err error) {
	ns, err = h.w.Get(h.ctx, namespacesResource, "", h.ep.Namespace)
	if err != nil || ns == nil {
		return nil, p, nil, err
	}
	labels, _ := metaOf(ns)["labels"].(map[string]any)
	p, errs = psPolicyOf(labels)
	return ns, p, errs, nil
}

func (h *handler) podSecurityPod(obj map[string]any, name string) error {
	ns, p, errs, err := h.psPolicyOfNamespace()
	if err != nil {
		return worldError(err, "Get(namespaces)")
	}
	if ns == nil {
		return status.InternalError(fmt.Errorf("failed to lookup namespace %q", h.ep.Namespace))
	}
	if len(errs) == 0 && p.fullyPrivileged() {
		h.psAudit(map[string]string{"enforce-policy": psLevelVersion{psPrivileged, psVersion{latest: true}}.String()})
		return nil
	}
	spec, _ := obj["spec"].(map[string]any)
	return h.psEvaluate(p, errs, metaOf(obj), spec, name, true)
}

func (h *handler) podSecurityTemplate(gr status.GroupResource, obj map[string]any) error {
	ns, p, errs, err := h.psPolicyOfNamespace()
	if err != nil {
		return worldError(err, "Get(namespaces)")
	}
	if ns == nil {
		h.psAudit(map[string]string{"error": fmt.Sprintf("failed to lookup namespace %q: namespaces %q not found", h.ep.Namespace, h.ep.Namespace)})
		return nil
	}
	if len(errs) == 0 && p.warn.level == psPrivileged && p.audit.level == psPrivileged {
		return nil
	}
	var tmpl map[string]any
	spec, _ := obj["spec"].(map[string]any)
	switch gr.Resource {
	case "podtemplates":
		tmpl, _ = obj["template"].(map[string]any)
	case "cronjobs":
		tmpl = psMap(spec, "jobTemplate", "spec", "template")
	case "replicationcontrollers":
		// The only template that is a pointer: a controller without one has nothing to check.
		var ok bool
		if tmpl, ok = spec["template"].(map[string]any); !ok {
			return nil
		}
	default:
		tmpl, _ = spec["template"].(map[string]any)
	}
	meta, _ := tmpl["metadata"].(map[string]any)
	podSpec, _ := tmpl["spec"].(map[string]any)
	return h.psEvaluate(p, errs, meta, podSpec, "", false)
}

// psEvaluate is Admission.EvaluatePod: with enforce, the enforce level's violations are a 403;
// the audit level's go to the audit event, the warn level's (of an allowed request) to a
// warning.
func (h *handler) psEvaluate(p psPolicy, policyErrs field.ErrorList, meta, spec map[string]any, name string, enforce bool) error {
	ann := map[string]string{}
	if len(policyErrs) > 0 {
		ann["error"] = "Failed to parse policy: " + policyErrs.ToAggregate().Error()
	}
	cached := map[psLevelVersion][]psResult{}
	var refusal error
	if enforce {
		ann["enforce-policy"] = p.enforce.String()
		r := psEvaluate(p.enforce, meta, spec)
		if len(r) > 0 {
			refusal = status.Forbidden(h.ep.groupResource(), name, fmt.Errorf("violates PodSecurity %q: %s", p.enforce.String(), psDetail(r)))
		}
		cached[p.enforce] = r
	}
	audit, ok := cached[p.audit]
	if !ok {
		audit = psEvaluate(p.audit, meta, spec)
		cached[p.audit] = audit
	}
	if len(audit) > 0 {
		ann["audit-violations"] = fmt.Sprintf("would violate PodSecurity %q: %s", p.audit.String(), psDetail(audit))
	}
	if refusal == nil {
		warn, ok := cached[p.warn]
		if !ok {
			warn = psEvaluate(p.warn, meta, spec)
		}
		if len(warn) > 0 {
			h.warnings = append(h.warnings, fmt.Sprintf("would violate PodSecurity %q: %s", p.warn.String(), psDetail(warn)))
		}
	}
	h.psAudit(ann)
	return refusal
}

// psAudit adds the plugin's audit annotations, prefixed pod-security.kubernetes.io/.
func (h *handler) psAudit(ann map[string]string) {
	for k, v := range ann {
		if h.audit.Annotations == nil {
			h.audit.Annotations = map[string]string{}
		}
		h.audit.Annotations[psLabelPrefix+k] = v
	}
}

// podSecurityNamespace is ValidateNamespace: labels that do not parse are a 422 (on an update,
// unless the stored namespace had the same errors); an update that makes the enforce level
// stricter warns about the existing pods that violate it.
func (h *handler) podSecurityNamespace(op admission.Operation, obj, old map[string]any, name string) error {
	labels, _ := metaOf(obj)["labels"].(map[string]any)
	p, errs := psPolicyOf(labels)
	invalid := func() error {
		return status.Invalid(status.GroupKind{Kind: "Namespace"}, name, errs)
	}
	if op == admission.Create {
		if len(errs) > 0 {
			return invalid()
		}
		return nil
	}
	oldLabels, _ := metaOf(old)["labels"].(map[string]any)
	oldP, oldErrs := psPolicyOf(oldLabels)
	if len(errs) > 0 && (len(oldErrs) == 0 || !psSameErrors(errs, oldErrs)) {
		return invalid()
	}
	switch {
	case p.enforce == oldP.enforce, p.enforce.level == psPrivileged,
		p.enforce.version == oldP.enforce.version && psRank(p.enforce.level) <= psRank(oldP.enforce.level):
		return nil
	}
	warnings, err := h.psExistingPods(metaString(obj, "name"), p.enforce)
	if err != nil {
		return err
	}
	h.warnings = append(h.warnings, warnings...)
	return nil
}

func psSameErrors(a, b field.ErrorList) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Error() != b[i].Error() {
			return false
		}
	}
	return true
}

// psMaxPodsToCheck is how many existing pods a namespace update checks.
const psMaxPodsToCheck = 3000

// psExistingPods is EvaluatePodsInNamespace: the namespace's pods are checked against the new
// enforce level, one pod per controller first; pods failing alike share one warning, named by
// the first of them by name with a count of the others.
func (h *handler) psExistingPods(namespace string, enforce psLevelVersion) ([]string, error) {
	pods, err := h.w.List(h.ctx, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, namespace)
	if err != nil {
		return nil, worldError(err, "List(pods)")
	}
	var first, duplicates []map[string]any
	seen := map[any]bool{}
	for _, pod := range pods {
		uid, ok := psControllerUID(pod)
		switch {
		case !ok:
			first = append(first, pod)
		case seen[uid]:
			duplicates = append(duplicates, pod)
		default:
			seen[uid] = true
			first = append(first, pod)
		}
	}
	ordered := append(first, duplicates...)
	total := len(ordered)
	if len(ordered) > psMaxPodsToCheck {
		ordered = ordered[:psMaxPodsToCheck]
	}
	type group struct {
		pod   string
		count int
	}
	groups := map[string]*group{}
	var reasons []string
	for _, pod := range ordered {
		spec, _ := pod["spec"].(map[string]any)
		r := psEvaluate(enforce, metaOf(pod), spec)
		if len(r) == 0 {
			continue
		}
		reason, podName := psReasons(r), metaString(pod, "name")
		g, ok := groups[reason]
		if !ok {
			g = &group{pod: podName}
			groups[reason] = g
			reasons = append(reasons, reason)
		} else if podName < g.pod {
			g.pod = podName
		}
		g.count++
	}
	var out []string
	if len(ordered) < total {
		out = append(out, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", len(ordered), total))
	}
	if len(reasons) > 0 {
		out = append(out, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	podWarnings := make([]string, len(reasons))
	for i, reason := range reasons {
		g := groups[reason]
		switch g.count {
		case 1:
			podWarnings[i] = fmt.Sprintf("%s: %s", g.pod, reason)
		case 2:
			podWarnings[i] = fmt.Sprintf("%s (and 1 other pod): %s", g.pod, reason)
		default:
			podWarnings[i] = fmt.Sprintf("%s (and %d other pods): %s", g.pod, g.count-1, reason)
		}
	}
	sort.Strings(podWarnings)
	return append(out, podWarnings...), nil
}

// psControllerUID is the uid of the pod's controller (the ownerReference with controller
// true).
func psControllerUID(pod map[string]any) (any, bool) {
	refs, _ := metaOf(pod)["ownerReferences"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if m["controller"] == true {
			return m["uid"], true
		}
	}
	return nil, false
}

// psSignificantPodUpdate is isSignificantPodUpdate: only a changed image, a different number of
// containers or init containers, or an added (or changed) ephemeral container is checked again;
// the other fields the policy looks at cannot change on a Pod.
func psSignificantPodUpdate(obj, old map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	oldSpec, _ := old["spec"].(map[string]any)
	list := func(s map[string]any, k string) []any { l, _ := s[k].([]any); return l }
	image := func(c any) string { m, _ := c.(map[string]any); return psString(m, "image") }
	for _, k := range []string{"containers", "initContainers"} {
		if len(list(spec, k)) != len(list(oldSpec, k)) {
			return true
		}
	}
	for _, k := range []string{"containers", "initContainers"} {
		cur, prev := list(spec, k), list(oldSpec, k)
		for i := range cur {
			if image(cur[i]) != image(prev[i]) {
				return true
			}
		}
	}
	for _, c := range list(spec, "ephemeralContainers") {
		m, _ := c.(map[string]any)
		var found any
		for _, oc := range list(oldSpec, "ephemeralContainers") {
			if om, _ := oc.(map[string]any); psName(om) == psName(m) {
				found = oc
				break
			}
		}
		if found == nil || image(c) != image(found) {
			return true
		}
	}
	return false
}
