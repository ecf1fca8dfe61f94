package validation

import (
	"math/rand"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

func miscKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, resource: "leases", seed: seedLease, complete: true,
			create: lease.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": lease.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"}, resource: "priorityclasses", seed: seedPriorityClass, complete: true,
			create: priorityclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": priorityclass.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}, resource: "poddisruptionbudgets", seed: seedPDB, complete: true,
			stored: pdbStatus, create: poddisruptionbudget.Strategy,
			updates: map[string]rest.RESTUpdateStrategy{"": poddisruptionbudget.Strategy, "status": poddisruptionbudget.StatusStrategy}},
	}
}

func seedPDB(r *rand.Rand) runtime.Object {
	pdb := &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"}, ObjectMeta: seedMeta(r),
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	switch r.Intn(3) {
	case 0:
		pdb.Spec.MinAvailable = ptr(intstr.FromString("50%"))
	case 1:
		pdb.Spec.MaxUnavailable = ptr(intstr.FromInt32(1))
		pdb.Spec.UnhealthyPodEvictionPolicy = ptr(policyv1.AlwaysAllow)
	}
	if r.Intn(3) == 0 {
		pdb.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}}
	}
	return pdb
}

// pdbStatus gives most stored budgets the status the disruption controller writes.
func pdbStatus(r *rand.Rand, obj runtime.Object) {
	pdb := obj.(*policy.PodDisruptionBudget)
	if r.Intn(4) == 0 {
		return
	}
	pdb.Status = policy.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
		Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: metav1.ConditionTrue, Reason: "SufficientPods", Message: "ok",
			LastTransitionTime: metav1.Unix(1_700_000_000, 0), ObservedGeneration: 1}}}
}

func seedLease(r *rand.Rand) runtime.Object {
	l := &coordinationv1.Lease{TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}, ObjectMeta: seedMeta(r),
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1"), LeaseDurationSeconds: ptr(int32(40)), LeaseTransitions: ptr(int32(2))}}
	if r.Intn(3) == 0 {
		l.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
		l.Spec.PreferredHolder = ptr("node-2")
	}
	return l
}

func seedPriorityClass(r *rand.Rand) runtime.Object {
	pc := &schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"}, ObjectMeta: seedMeta(r),
		Value: int32(r.Intn(1000)), Description: "d"}
	switch r.Intn(4) {
	case 0:
		pc.ObjectMeta.Name, pc.Value = "system-cluster-critical", 2000000000
	case 1:
		pc.PreemptionPolicy = ptr(v1.PreemptNever)
	}
	return pc
}
