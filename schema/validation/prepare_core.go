package validation

import "github.com/writepath/writepath/internal/value"

// The PrepareForCreate and PrepareForUpdate steps of the Pod, Namespace and Job strategies that
// change what is stored. Each returns a new object sharing the unchanged parts with its input,
// which is not modified; a subresource write is returned as it is (its strategy is another).

// preparePodCreate is the pod strategy's PrepareForCreate (pkg/registry/core/pod/strategy.go):
// the status is replaced by phase Pending, a Pod with scheduling gates gets the
// PodScheduled=False SchedulingGated condition, pod-level resources are defaulted from the
// containers' (DefaultPodLevelResources) and the QoS class is computed. The affinity and
// topology-spread label keys (MatchLabelKeysInPodAffinity,
// MatchLabelKeysInPodTopologySpreadSelectorMerge) and the AppArmor annotation sync are not
// modelled.
func preparePodCreate(obj map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	out := copyMap(obj)
	st := map[string]any{"phase": "Pending"}
	out["status"] = st
	spec, _ := out["spec"].(map[string]any)
	if spec == nil {
		st["qosClass"] = PodQOS(out)
		return out
	}
	if gates, _ := spec["schedulingGates"].([]any); len(gates) > 0 {
		st["conditions"] = []any{map[string]any{"type": "PodScheduled", "status": "False",
			"reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates",
			"lastProbeTime": nil, "lastTransitionTime": nil}}
	}
	if _, ok := spec["resources"]; ok {
		if c, err := value.DeepCopyMap(spec); err == nil {
			out["spec"] = c
			DefaultPodLevelResources(c)
		}
	}
	st["qosClass"] = PodQOS(out)
	return out
}

// prepareNamespaceCreate is the namespace strategy's PrepareForCreate
// (pkg/registry/core/namespace/strategy.go): the phase is Active and spec.finalizers holds
// "kubernetes", which the namespace controller removes once the namespace's content is gone.
func prepareNamespaceCreate(obj map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	out := copyMap(obj)
	out["status"] = map[string]any{"phase": "Active"}
	spec, _ := out["spec"].(map[string]any)
	fins, _ := spec["finalizers"].([]any)
	for _, f := range fins {
		if f == "kubernetes" {
			return out
		}
	}
	ns := copyMap(spec)
	ns["finalizers"] = append(append([]any(nil), fins...), "kubernetes")
	out["spec"] = ns
	return out
}

// prepareNamespaceUpdate is the namespace strategy's PrepareForUpdate beside its reset of the
// status: spec.finalizers stays the stored one (only namespaces/finalize changes it).
func prepareNamespaceUpdate(obj, old map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	spec, _ := obj["spec"].(map[string]any)
	oldSpec, _ := old["spec"].(map[string]any)
	f, had := oldSpec["finalizers"]
	if _, has := spec["finalizers"]; !had && !has {
		return obj
	}
	ns := copyMap(spec)
	if had {
		ns["finalizers"] = f
	} else {
		delete(ns, "finalizers")
	}
	if len(ns) == 0 && spec == nil {
		return obj
	}
	out := copyMap(obj)
	out["spec"] = ns
	return out
}

// prepareJobCreate is the Job strategy's PrepareForCreate (pkg/registry/batch/job): unless
// spec.manualSelector is true, the template gets the job-name and controller-uid labels (legacy
// and batch.kubernetes.io/ keys, each unless already set) and the selector matchLabels the
// batch.kubernetes.io/controller-uid one, from the uid storage just gave the object. A Job
// without labels then reads the template's: the defaulting that copies them runs again when the
// apiserver decodes what it stored.
func prepareJobCreate(obj map[string]any, opts Options) map[string]any {
	if opts.Subresource != "" {
		return obj
	}
	spec, _ := obj["spec"].(map[string]any)
	if manual, _ := spec["manualSelector"].(bool); manual {
		return obj
	}
	out := copyMap(obj)
	md := copyMap(mapOf(out["metadata"]))
	out["metadata"] = md
	name, _ := md["name"].(string)
	uid, _ := md["uid"].(string)
	ns := copyMap(spec)
	tmpl := copyMap(mapOf(spec["template"]))
	tmd := copyMap(mapOf(tmpl["metadata"]))
	tl := copyMap(mapOf(tmd["labels"]))
	for _, k := range []string{"job-name", "batch.kubernetes.io/job-name"} {
		if _, ok := tl[k]; !ok {
			tl[k] = name
		}
	}
	for _, k := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
		if _, ok := tl[k]; !ok {
			tl[k] = uid
		}
	}
	tmd["labels"] = tl
	tmpl["metadata"] = tmd
	ns["template"] = tmpl
	sel := copyMap(mapOf(spec["selector"]))
	ml := copyMap(mapOf(sel["matchLabels"]))
	if _, ok := ml["batch.kubernetes.io/controller-uid"]; !ok {
		ml["batch.kubernetes.io/controller-uid"] = uid
	}
	sel["matchLabels"] = ml
	ns["selector"] = sel
	out["spec"] = ns
	if l, _ := md["labels"].(map[string]any); len(l) == 0 {
		md["labels"] = copyMap(tl)
	}
	return out
}
