package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/core/node"
)

// Node: a registered node with taints, pod CIDRs, a provider ID and the status a kubelet
// writes (a Node may carry its status on create); some with the scheduler annotations whose
// JSON the apiserver decodes, well-formed or not.

func nodeKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Node"}, resource: "nodes", seed: seedNode, complete: true, prepare: true,
			unordered: func(l string) bool { return containsAny(l, " status.capacity.", " status.allocatable.") },
			create:    node.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": node.Strategy, "status": node.StatusStrategy}},
	}
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		for i := 0; i+len(x) <= len(s); i++ {
			if s[i:i+len(x)] == x {
				return true
			}
		}
	}
	return false
}

var nodeAnnotationValues = []string{
	`[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]`, `[{"key":"a","effect":"Bad"},{"key":"a","effect":"Bad"}]`,
	`[{"key":1}]`, `{"key":"a"}`, `[{"key":"a","effect":"NoExecute","timeAdded":"2026-01-01T00:00:00Z"}]`, `[{"timeAdded":5}]`,
	`[{"timeAdded":"yesterday"}]`, `[{`, `null`, `[]`,
}

var avoidPodsValues = []string{
	`{"preferAvoidPods":[{"podSignature":{"podController":{"apiVersion":"v1","kind":"ReplicationController","name":"rc","uid":"u","controller":true}},"reason":"r"}]}`,
	`{"preferAvoidPods":[{"podSignature":{"podController":{"apiVersion":"v1","kind":"ReplicationController","name":"rc","uid":"u","controller":false}}}]}`,
	`{"preferAvoidPods":[{"podSignature":{}}]}`, `{"preferAvoidPods":{}}`, `{"preferAvoidPods":[{"evictionTime":3}]}`, `x`,
	`{"preferAvoidPods":[{"podSignature":{"podController":{"uid":7}}}]}`,
}

func seedNode(r *rand.Rand) runtime.Object {
	n := &v1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: seedMeta(r)}
	if r.Intn(2) == 0 {
		n.Spec.Taints = []v1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: v1.TaintEffectNoSchedule}}
	}
	switch r.Intn(3) {
	case 0:
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.1.0/24", []string{"10.244.1.0/24"}
	case 1:
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.1.0/24", []string{"10.244.1.0/24", "fd00:10:244:1::/64"}
	}
	if r.Intn(2) == 0 {
		n.Spec.ProviderID = "kind://docker/kind/node-1"
	}
	if r.Intn(2) == 0 {
		n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
		n.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("3800m"), v1.ResourcePods: resource.MustParse("110")}
		n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.5"}, {Type: v1.NodeHostName, Address: "node-1"}}
		n.Status.NodeInfo = v1.NodeSystemInfo{KubeletVersion: "v1.37.2", Swap: &v1.NodeSwapStatus{Capacity: ptr(int64(1024))}}
		n.Status.DeclaredFeatures = []string{"GuaranteedQoSPodCPUResize", "MyFeature/sub"}
	}
	if r.Intn(4) == 0 {
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		if r.Intn(2) == 0 {
			n.Annotations["scheduler.alpha.kubernetes.io/taints"] = pick(r, nodeAnnotationValues)
		} else {
			n.Annotations["scheduler.alpha.kubernetes.io/preferAvoidPods"] = pick(r, avoidPodsValues)
		}
	}
	return n
}
