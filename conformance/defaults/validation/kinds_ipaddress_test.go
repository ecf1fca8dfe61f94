package validation

import (
	"math/rand"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/networking"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
)

// IPAddress and ServiceCIDR (networking.k8s.io/v1).
func ipKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "IPAddress"}, resource: "ipaddresses", seed: seedIPAddress, complete: true,
			create: ipaddress.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": ipaddress.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "ServiceCIDR"}, resource: "servicecidrs", seed: seedServiceCIDR, complete: true,
			stored: serviceCIDRReady,
			create: servicecidr.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": servicecidr.Strategy, "status": servicecidr.StatusStrategy}},
	}
}

func seedIPAddress(r *rand.Rand) runtime.Object {
	a := &networkingv1.IPAddress{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IPAddress"}, ObjectMeta: seedMeta(r)}
	a.Name = pick(r, []string{"10.96.0.1", "192.168.1.10", "2001:db8::1", "fd00::a"})
	a.GenerateName = ""
	a.Spec.ParentRef = &networkingv1.ParentReference{Resource: "services", Name: "kubernetes", Namespace: "default"}
	if r.Intn(3) == 0 {
		a.Spec.ParentRef.Group = pick(r, []string{"gateway.networking.k8s.io", "example.com"})
		a.Spec.ParentRef.Resource = "gateways"
	}
	return a
}

func seedServiceCIDR(r *rand.Rand) runtime.Object {
	c := &networkingv1.ServiceCIDR{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "ServiceCIDR"}, ObjectMeta: seedMeta(r)}
	switch r.Intn(3) {
	case 0:
		c.Spec.CIDRs = []string{"10.96.0.0/16"}
	case 1:
		c.Spec.CIDRs = []string{"fd00:10:96::/112"}
	default:
		c.Spec.CIDRs = []string{"10.96.0.0/16", "fd00:10:96::/112"}
	}
	return c
}

// serviceCIDRReady gives most stored ServiceCIDRs the Ready condition the controller writes.
func serviceCIDRReady(r *rand.Rand, obj runtime.Object) {
	c := obj.(*networking.ServiceCIDR)
	if r.Intn(4) == 0 {
		return
	}
	c.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ServiceCIDRReady", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}
}
