package validation

import (
	"math/rand"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
)

func appsKinds() []harnessKind {
	gvk := func(kind string) kschema.GroupVersionKind {
		return kschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}
	}
	return []harnessKind{
		{gvk: gvk("Deployment"), resource: "deployments", seed: seedDeployment,
			podSpec: "spec.template.spec.", complete: true, create: deployment.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": deployment.Strategy, "status": deployment.StatusStrategy}},
		{gvk: gvk("ReplicaSet"), resource: "replicasets", seed: seedReplicaSet,
			podSpec: "spec.template.spec.", complete: true, create: replicaset.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": replicaset.Strategy, "status": replicaset.StatusStrategy}},
		{gvk: gvk("DaemonSet"), resource: "daemonsets", seed: seedDaemonSet,
			podSpec: "spec.template.spec.", complete: true, create: daemonset.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": daemonset.Strategy, "status": daemonset.StatusStrategy}},
		{gvk: gvk("ControllerRevision"), resource: "controllerrevisions", seed: seedControllerRevision, complete: true,
			create: controllerrevision.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": controllerrevision.Strategy}},
	}
}

// seedControllerRevision is a revision whose data is a JSON object (as the workload controllers
// write it, compact), or, rarely, some other JSON value; never the bytes null, which a JSON body
// cannot give a RawExtension (a null leaves it unset).
func seedControllerRevision(r *rand.Rand) runtime.Object {
	data := pick(r, []string{`{"spec":{"template":{"metadata":{"labels":{"app":"web"}}}}}`, `{}`, `{"a":[1,2],"b":null}`, `[1]`, `"x"`})
	return &appsv1.ControllerRevision{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}, ObjectMeta: seedMeta(r),
		Data: runtime.RawExtension{Raw: []byte(data)}, Revision: int64(r.Intn(5))}
}

func seedDaemonSet(r *rand.Rand) runtime.Object {
	sel, tmpl := seedWorkload(r)
	ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}, ObjectMeta: seedMeta(r),
		Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}}
	switch r.Intn(3) {
	case 0:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	case 1:
		mu, ms := intstr.FromInt32(0), intstr.FromString("10%")
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms}}
	}
	if r.Intn(2) == 0 {
		ds.Spec.MinReadySeconds = 5
		ds.Spec.RevisionHistoryLimit = ptr(int32(3))
	}
	if r.Intn(2) == 0 {
		ds.Status = appsv1.DaemonSetStatus{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2, NumberReady: 1, ObservedGeneration: 1, CollisionCount: ptr(int32(1))}
	}
	return ds
}

func ptr[T any](v T) *T { return &v }

// seedWorkload is a selector and a template whose labels it matches.
func seedWorkload(r *rand.Rand) (*metav1.LabelSelector, v1.PodTemplateSpec) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	if r.Intn(3) == 0 {
		sel.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
			{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist}}
	}
	tmpl := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "a"}}, Spec: seedPodSpec(r)}
	return sel, tmpl
}

func seedDeployment(r *rand.Rand) runtime.Object {
	sel, tmpl := seedWorkload(r)
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: seedMeta(r),
		Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(r.Intn(4))), Selector: sel, Template: tmpl}}
	switch r.Intn(3) {
	case 0:
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	case 1:
		mu, ms := intstr.FromString("25%"), intstr.FromInt32(1)
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &mu, MaxSurge: &ms}}
	}
	if r.Intn(2) == 0 {
		d.Spec.MinReadySeconds = 5
		d.Spec.ProgressDeadlineSeconds = ptr(int32(60))
		d.Spec.RevisionHistoryLimit = ptr(int32(3))
	}
	if r.Intn(2) == 0 {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, CollisionCount: ptr(int32(1))}
	}
	return d
}

func seedReplicaSet(r *rand.Rand) runtime.Object {
	sel, tmpl := seedWorkload(r)
	rs := &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, ObjectMeta: seedMeta(r),
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(r.Intn(4))), Selector: sel, Template: tmpl}}
	if r.Intn(2) == 0 {
		rs.Spec.MinReadySeconds = 5
	}
	if r.Intn(2) == 0 {
		rs.Status = appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 1}
	}
	return rs
}
