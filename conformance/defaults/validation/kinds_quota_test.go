package validation

import (
	"math/rand"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
)

// Seeds of ResourceQuota and LimitRange. Both walk resource lists (and LimitRange a set of
// resource names) in Go map order: their keyed errors are compared as sets within a run.

// limitRangeKeyed matches the errors about one resource of a limit (spec.limits[0].max[cpu]).
var limitRangeKeyed = regexp.MustCompile(`^\S+ spec\.limits\[\d+\]\.\w+\[`)

func quotaKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}, resource: "resourcequotas", seed: seedQuota, complete: true,
			unordered: func(l string) bool { return strings.Contains(l, ".hard[") || strings.Contains(l, ".used[") },
			stored:    quotaStatus,
			create:    resourcequota.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": resourcequota.Strategy, "status": resourcequota.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "LimitRange"}, resource: "limitranges", seed: seedLimitRange, complete: true,
			unordered: limitRangeKeyed.MatchString,
			create:    limitrange.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": limitrange.Strategy}},
	}
}

func seedQuota(r *rand.Rand) runtime.Object {
	q := &v1.ResourceQuota{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"}, ObjectMeta: seedMeta(r),
		Spec: v1.ResourceQuotaSpec{Hard: v1.ResourceList{}}}
	for _, k := range []string{"pods", "requests.cpu", "limits.cpu", "requests.memory", "limits.memory", "cpu", "requests.storage",
		"persistentvolumeclaims", "count/deployments.apps", "example.com/gpu", "services.loadbalancers", "hugepages-2Mi"} {
		if r.Intn(4) == 0 {
			q.Spec.Hard[v1.ResourceName(k)] = resource.MustParse(pick(r, []string{"1", "10", "500m", "2Gi", "4"}))
		}
	}
	switch r.Intn(5) {
	case 0:
		q.Spec.Scopes = []v1.ResourceQuotaScope{pick(r, []v1.ResourceQuotaScope{v1.ResourceQuotaScopeNotTerminating, v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopePriorityClass})}
	case 1:
		q.Spec.ScopeSelector = &v1.ScopeSelector{MatchExpressions: []v1.ScopedResourceSelectorRequirement{
			{ScopeName: v1.ResourceQuotaScopePriorityClass, Operator: v1.ScopeSelectorOpIn, Values: []string{"high"}}}}
	case 2:
		q.Spec.ScopeSelector = &v1.ScopeSelector{MatchExpressions: []v1.ScopedResourceSelectorRequirement{
			{ScopeName: pick(r, []v1.ResourceQuotaScope{v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeCrossNamespacePodAffinity}), Operator: v1.ScopeSelectorOpExists}}}
	}
	return q
}

// quotaStatus gives most stored quotas the status the quota controller writes.
func quotaStatus(r *rand.Rand, obj runtime.Object) {
	q := obj.(*api.ResourceQuota)
	if r.Intn(3) == 0 {
		return
	}
	q.Status.Hard = api.ResourceList{}
	q.Status.Used = api.ResourceList{}
	for k, v := range q.Spec.Hard {
		q.Status.Hard[k] = v
		q.Status.Used[k] = resource.MustParse("0")
	}
}

func seedLimitRange(r *rand.Rand) runtime.Object {
	l := &v1.LimitRange{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"}, ObjectMeta: seedMeta(r)}
	q := func(s string) resource.Quantity { return resource.MustParse(s) }
	switch r.Intn(3) {
	case 0:
		l.Spec.Limits = []v1.LimitRangeItem{{Type: v1.LimitTypeContainer,
			Max: v1.ResourceList{v1.ResourceCPU: q("2")}, Min: v1.ResourceList{v1.ResourceCPU: q("100m")},
			Default: v1.ResourceList{v1.ResourceCPU: q("500m")}, DefaultRequest: v1.ResourceList{v1.ResourceCPU: q("200m")},
			MaxLimitRequestRatio: v1.ResourceList{v1.ResourceCPU: q("4")}}}
	case 1:
		l.Spec.Limits = []v1.LimitRangeItem{{Type: v1.LimitTypePod, Max: v1.ResourceList{v1.ResourceMemory: q("1Gi")}, Min: v1.ResourceList{v1.ResourceMemory: q("64Mi")}},
			{Type: v1.LimitTypePersistentVolumeClaim, Max: v1.ResourceList{v1.ResourceStorage: q("10Gi")}}}
	default:
		l.Spec.Limits = []v1.LimitRangeItem{{Type: v1.LimitTypeContainer, Default: v1.ResourceList{v1.ResourceMemory: q("256Mi"), "example.com/gpu": q("1")},
			DefaultRequest: v1.ResourceList{v1.ResourceMemory: q("128Mi"), "example.com/gpu": q("1")}}}
	}
	return l
}
