package resourcequota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/internal/podresources"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/schema"
	kindvalidation "github.com/writepath/writepath/schema/validation"
)

// --- pods (core pods.go, component-helpers resource.PodRequests and PodLimits with the 1.37
// gates: InPlacePodVerticalScaling and PodLevelResources on) ---

var podResources = []string{"count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods"}

// validationSet are the resources a quota requires every container to set.
var validationSet = []string{"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}

const deviceClassPrefix = "deviceclass.resource.kubernetes.io/"

var podEvaluator = &evaluator{
	gr: schema.GroupVersionResource{Resource: "pods"},
	matching: func(in []string) []string {
		out := intersection(in, podResources)
		for _, r := range in {
			if strings.HasPrefix(r, "hugepages-") || strings.HasPrefix(r, "requests.hugepages-") {
				out = append(out, r)
			}
			if isExtendedResourceNameForQuota(r) {
				out = append(out, r)
			}
		}
		return out
	},
	scope:       podMatchesScope,
	usage:       podUsage,
	constraints: podConstraints,
	handles: func(op Operation, sub string, obj, old map[string]any) bool {
		switch sub {
		case "":
			if op == Update && obj != nil && old != nil && isTerminating(old) != isTerminating(obj) {
				return true
			}
			return op == Create
		case "resize":
			return op == Update
		}
		return false
	},
}

// isNativeResource is helper.IsNativeResource: unqualified, or in *kubernetes.io/.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// isExtendedResourceName is helper.IsExtendedResourceName.
func isExtendedResourceName(name string) bool {
	if isNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+name)) == 0
}

func isExtendedResourceNameForQuota(name string) bool {
	nonNative := !isNativeResource(name)
	implicit := strings.HasPrefix(name, "requests."+deviceClassPrefix)
	return (nonNative || implicit) && strings.HasPrefix(name, "requests.")
}

func podSpec(pod map[string]any) map[string]any {
	s, _ := pod["spec"].(map[string]any)
	return s
}

func podStatus(pod map[string]any) map[string]any {
	s, _ := pod["status"].(map[string]any)
	return s
}

func isTerminating(pod map[string]any) bool {
	switch v := podSpec(pod)["activeDeadlineSeconds"].(type) {
	case int64:
		return v >= 0
	case float64:
		return v >= 0
	}
	return false
}

// containers reads a Pod's containers or init containers (podresources.Containers).
func containers(pod map[string]any, key string) []podresources.Container {
	return podresources.Containers(pod, key)
}

// podComputeUsage is podComputeUsageHelper.
func podComputeUsage(requests, limits ResourceList) ResourceList {
	out := ResourceList{"pods": parsedOne}
	if q, ok := requests["cpu"]; ok {
		out["cpu"], out["requests.cpu"] = q, q
	}
	if q, ok := limits["cpu"]; ok {
		out["limits.cpu"] = q
	}
	if q, ok := requests["memory"]; ok {
		out["memory"], out["requests.memory"] = q, q
	}
	if q, ok := limits["memory"]; ok {
		out["limits.memory"] = q
	}
	if q, ok := requests["ephemeral-storage"]; ok {
		out["ephemeral-storage"], out["requests.ephemeral-storage"] = q, q
	}
	if q, ok := limits["ephemeral-storage"]; ok {
		out["limits.ephemeral-storage"] = q
	}
	for name, q := range requests {
		if strings.HasPrefix(name, "hugepages-") {
			out[name] = q
			out["requests."+name] = q
		}
		if isExtendedResourceName(name) || strings.HasPrefix(name, deviceClassPrefix) {
			out["requests."+name] = q
		}
	}
	return out
}

// parsedOne is resource.MustParse("1"), the pods entry of podComputeUsageHelper.
var parsedOne = quantity.MustParse("1")

func podConstraints(required []string, pod map[string]any) error {
	if podLevelResourcesSet(pod) {
		return nil
	}
	req := intersection(required, validationSet)
	missing := map[string][]string{}
	check := func(c podresources.Container) {
		have := toSet(podComputeUsage(ResourceList(c.Requests), ResourceList(c.Limits)).names())
		for _, r := range req {
			if !have[r] {
				missing[r] = append(missing[r], c.Name)
			}
		}
	}
	for _, c := range containers(pod, "containers") {
		check(c)
	}
	for _, c := range containers(pod, "initContainers") {
		check(c)
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(missing))
	for r := range missing {
		names = append(names, r)
	}
	sort.Strings(names)
	msgs := make([]string, 0, len(names))
	for _, r := range names {
		msgs = append(msgs, fmt.Sprintf("%s for: %s", r, strings.Join(sortedUnique(missing[r]), ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

func sortedUnique(in []string) []string {
	set := toSet(in)
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// podLevelResourcesSet is resourcehelper.IsPodLevelResourcesSet.
func podLevelResourcesSet(pod map[string]any) bool { return podresources.PodLevelResourcesSet(pod) }

func podMatchesScope(sel ScopeSelector, pod map[string]any) (bool, error) {
	switch sel.ScopeName {
	case "Terminating":
		return isTerminating(pod), nil
	case "NotTerminating":
		return !isTerminating(pod), nil
	case "BestEffort":
		return kindvalidation.PodQOS(pod) == "BestEffort", nil
	case "NotBestEffort":
		return kindvalidation.PodQOS(pod) != "BestEffort", nil
	case "PriorityClass":
		pc, _ := podSpec(pod)["priorityClassName"].(string)
		if sel.Operator == "Exists" {
			return pc != "", nil
		}
		req, err := scopeRequirement(sel)
		if err != nil {
			return false, err
		}
		m := map[string]string{}
		if pc != "" {
			m["PriorityClass"] = pc
		}
		return req.Matches(m), nil
	case "CrossNamespacePodAffinity":
		return crossNamespaceAffinity(pod), nil
	}
	return false, nil
}

func crossNamespaceTerm(t map[string]any) bool {
	ns, _ := t["namespaces"].([]any)
	_, hasSel := t["namespaceSelector"].(map[string]any)
	return len(ns) != 0 || hasSel
}

func crossNamespaceAffinity(pod map[string]any) bool {
	aff, _ := podSpec(pod)["affinity"].(map[string]any)
	for _, kind := range []string{"podAffinity", "podAntiAffinity"} {
		a, _ := aff[kind].(map[string]any)
		req, _ := a["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
		for _, x := range req {
			if t, _ := x.(map[string]any); crossNamespaceTerm(t) {
				return true
			}
		}
		pref, _ := a["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
		for _, x := range pref {
			w, _ := x.(map[string]any)
			if t, _ := w["podAffinityTerm"].(map[string]any); crossNamespaceTerm(t) {
				return true
			}
		}
	}
	return false
}

// chargeable is QuotaV1Pod: not terminal, and not being deleted past its grace period at now.
func chargeable(pod map[string]any, now time.Time) bool {
	switch podStatus(pod)["phase"] {
	case "Failed", "Succeeded":
		return false
	}
	meta, _ := pod["metadata"].(map[string]any)
	ts, _ := meta["deletionTimestamp"].(string)
	if ts == "" {
		return true
	}
	var grace int64
	switch v := meta["deletionGracePeriodSeconds"].(type) {
	case int64:
		grace = v
	case float64:
		grace = int64(v)
	default:
		return true
	}
	del, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return true
	}
	return !now.After(del.Add(time.Duration(grace) * time.Second))
}

// Chargeable reports whether a Pod is charged compute resources at now (QuotaV1Pod): it is not
// Succeeded or Failed, and not being deleted past its grace period.
func Chargeable(pod map[string]any, now time.Time) bool { return chargeable(pod, now) }

// Terminating reports whether a Pod is in the Terminating scope (activeDeadlineSeconds >= 0).
func Terminating(pod map[string]any) bool { return isTerminating(pod) }

func podUsage(pod map[string]any, now time.Time) (ResourceList, error) {
	out := ResourceList{"count/pods": one}
	if !chargeable(pod, now) {
		return out, nil
	}
	requests, err := podRequests(pod)
	if err != nil {
		return nil, err
	}
	limits, err := podLimits(pod)
	if err != nil {
		return nil, err
	}
	return add(out, podComputeUsage(requests, limits))
}

// podRequests is resourcehelper.PodRequests with UseStatusResources (InPlacePodVerticalScaling
// is on).
func podRequests(pod map[string]any) (ResourceList, error) {
	l, err := podresources.Requests(pod, podresources.Options{UseStatusResources: true})
	return ResourceList(l), err
}

// podLimits is resourcehelper.PodLimits with UseStatusResources.
func podLimits(pod map[string]any) (ResourceList, error) {
	l, err := podresources.Limits(pod, podresources.Options{UseStatusResources: true})
	return ResourceList(l), err
}
