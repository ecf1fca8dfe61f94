package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
)

// ReplicationController: a workload of core/v1 whose selector is a map.

func rcKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}, resource: "replicationcontrollers", seed: seedRC,
			podSpec: "spec.template.spec.", complete: true, create: replicationcontroller.Strategy,
			updates: map[string]rest.RESTUpdateStrategy{"": replicationcontroller.Strategy, "status": replicationcontroller.StatusStrategy}},
	}
}

func seedRC(r *rand.Rand) runtime.Object {
	_, tmpl := seedWorkload(r)
	rc := &v1.ReplicationController{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"}, ObjectMeta: seedMeta(r),
		Spec: v1.ReplicationControllerSpec{Replicas: ptr(int32(r.Intn(4))), Selector: map[string]string{"app": "web"}, Template: &tmpl}}
	if r.Intn(2) == 0 {
		rc.Spec.MinReadySeconds = 5
	}
	if r.Intn(4) == 0 {
		rc.Name = pick(r, []string{"web.v2", "Web"})
	}
	if r.Intn(6) == 0 {
		if rc.Annotations == nil {
			rc.Annotations = map[string]string{}
		}
		rc.Annotations[pick(r, []string{"non-convertible.kubernetes.io/spec.selector", "non-convertible.kubernetes.io/spec.other"})] = "x"
	}
	if r.Intn(2) == 0 {
		rc.Status = v1.ReplicationControllerStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 1}
	}
	return rc
}
