package resourcequota

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Input is what one sync of a ResourceQuota reads.
type Input struct {
	// Quota is the ResourceQuota (v1) being synced.
	Quota map[string]any
	// Resources are the namespaced resources the cluster serves with the create, list, watch
	// and delete verbs (the quota monitor's quotable resources): each that has no evaluator of
	// its own is counted as count/<resource>[.<group>]. Pods, services, persistentvolumeclaims,
	// resourceclaims, configmaps, secrets, replicationcontrollers and resourcequotas are always
	// evaluated.
	Resources []schema.GroupVersionResource
	// Objects lists the objects of a resource in the quota's namespace, in any order (the
	// sync's sums do not depend on it).
	Objects func(r schema.GroupVersionResource) ([]map[string]any, error)
}

// Options are a sync's inputs besides the objects.
type Options struct {
	// Now is the controller's clock: a Pod being deleted past its grace period is not charged.
	Now time.Time
}

// Result is what a sync writes.
type Result struct {
	// Quota is the ResourceQuota with the status the controller computed (status.hard the
	// spec's, status.used the namespace's usage of each hard resource it can measure, a
	// previous observation kept for the others); nil when nothing changed (the controller
	// writes nothing).
	Quota map[string]any
}

// registered are the evaluators kube-controller-manager registers besides the quota monitor's
// object counts (core NewEvaluators).
func registered() []*evaluator {
	out := []*evaluator{podEvaluator, serviceEvaluator, pvcEvaluator, claimEvaluator}
	for _, r := range []string{"configmaps", "replicationcontrollers", "resourcequotas", "secrets"} {
		out = append(out, objectCount("", r, legacyAliases[r]))
	}
	return out
}

// Sync is one syncResourceQuota of kube-controller-manager's resource quota controller
// (pkg/controller/resourcequota): the quota's usage recomputed from the namespace's objects
// (quota.CalculateUsage over the evaluators), masked to spec.hard, written with
// status.hard = spec.hard when it differs from the stored status (or the status has no hard
// or used yet). An evaluator whose usage cannot be computed keeps its resources' previous
// values and its error is returned with the result (the controller writes what it has and
// requeues). The input is not modified.
func Sync(in Input, opts Options) (Result, error) {
	q := in.Quota
	if k, _ := q["kind"].(string); k != "ResourceQuota" {
		return Result{}, fmt.Errorf("resourcequota: syncing needs a ResourceQuota, got kind %q", k)
	}
	spec, st := specOf(q), statusOf(q)
	hardSpec := readList(spec["hard"])
	statusHard, hasHard := st["hard"].(map[string]any)
	statusUsedRaw, hasUsed := st["used"].(map[string]any)
	statusUsed := readList(statusUsedRaw)
	dirty := !equal(hardSpec, readList(statusHard)) || !hasHard || !hasUsed

	used := ResourceList{}
	for k, v := range statusUsed {
		used[k] = v
	}
	newUsage, usageErr := calculateUsage(q, hardSpec, in, opts.Now)
	for k, v := range newUsage {
		used[k] = v
	}
	used = mask(used, hardSpec.names())
	dirty = dirty || !equal(used, statusUsed)
	if !dirty {
		return Result{}, usageErr
	}
	out, err := value.DeepCopyMap(q)
	if err != nil {
		return Result{}, err
	}
	status := map[string]any{}
	if len(hardSpec) > 0 {
		status["hard"] = hardSpec.JSON()
	}
	if len(used) > 0 {
		status["used"] = used.JSON()
	}
	out["status"] = status
	return Result{Quota: out}, usageErr
}

// calculateUsage is quota.CalculateUsage for one quota.
func calculateUsage(q map[string]any, hard ResourceList, in Input, now time.Time) (ResourceList, error) {
	evaluators := registered()
	have := map[[2]string]bool{}
	for _, e := range evaluators {
		have[[2]string{e.gr.Group, e.gr.Resource}] = true
	}
	extra := append([]schema.GroupVersionResource(nil), in.Resources...)
	sort.Slice(extra, func(i, j int) bool {
		if extra[i].Group != extra[j].Group {
			return extra[i].Group < extra[j].Group
		}
		return extra[i].Resource < extra[j].Resource
	})
	for _, r := range extra {
		k := [2]string{r.Group, r.Resource}
		if have[k] || Ignored(r.Group, r.Resource) {
			continue
		}
		have[k] = true
		evaluators = append(evaluators, objectCount(r.Group, r.Resource, ""))
	}
	hardNames := hard.names()
	var potential []string
	for _, e := range evaluators {
		potential = append(potential, e.matching(hardNames)...)
	}
	matched := intersection(hardNames, potential)
	scopes := quotaScopes(q)
	var errs []error
	usage := ResourceList{}
	for _, e := range evaluators {
		names := e.matching(matched)
		if len(names) == 0 {
			continue
		}
		stats, err := usageStats(e, names, scopes, in, now)
		if err != nil {
			errs = append(errs, err)
			matched = difference(matched, names)
			continue
		}
		if usage, err = add(usage, stats); err != nil {
			errs = append(errs, err)
			matched = difference(matched, names)
		}
	}
	return mask(usage, matched), errors.Join(errs...)
}

// usageStats is generic.CalculateUsageStats: every tracked resource from zero, plus the usage
// of each object matching all of the quota's scopes. A scope the evaluator cannot decide on
// an object ends the count there, without error, as the reference does.
func usageStats(e *evaluator, names []string, scopes []ScopeSelector, in Input, now time.Time) (ResourceList, error) {
	used := ResourceList{}
	for _, n := range names {
		used[n] = zero
	}
	if in.Objects == nil {
		return used, nil
	}
	items, err := in.Objects(schema.GroupVersionResource{Group: e.gr.Group, Version: "", Resource: e.gr.Resource})
	if err != nil {
		return used, fmt.Errorf("failed to list content: %v", err)
	}
	for _, item := range items {
		ok := true
		for _, s := range scopes {
			m, err := e.matchesScope(s, item)
			if err != nil {
				return used, nil
			}
			ok = ok && m
		}
		if !ok {
			continue
		}
		u, err := e.usage(item, now)
		if err != nil {
			return used, err
		}
		if used, err = add(used, u); err != nil {
			return used, err
		}
	}
	return used, nil
}
