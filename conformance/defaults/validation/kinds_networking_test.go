package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
)

// Seeds of networking.k8s.io: Ingress, IngressClass, NetworkPolicy.

func networkingKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, resource: "ingresses", seed: seedIngress, complete: true,
			create: ingress.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": ingress.Strategy, "status": ingress.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass"}, resource: "ingressclasses", seed: seedIngressClass, complete: true,
			create: ingressclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": ingressclass.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}, resource: "networkpolicies", seed: seedNetworkPolicy, complete: true,
			create: networkpolicy.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": networkpolicy.Strategy}},
	}
}

func seedIngress(r *rand.Rand) runtime.Object {
	prefix, exact, impl := networkingv1.PathTypePrefix, networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific
	ing := &networkingv1.Ingress{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"}, ObjectMeta: seedMeta(r)}
	svc := func(name string, port networkingv1.ServiceBackendPort) networkingv1.IngressBackend {
		return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name, Port: port}}
	}
	ing.Spec.Rules = []networkingv1.IngressRule{{Host: pick(r, []string{"example.com", "*.example.com", ""}),
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
			{Path: "/", PathType: &prefix, Backend: svc("web", networkingv1.ServiceBackendPort{Number: 80})},
			{Path: "/api/v1", PathType: &exact, Backend: svc("api", networkingv1.ServiceBackendPort{Name: "http"})},
		}}}}}
	switch r.Intn(4) {
	case 0:
		ing.Spec.DefaultBackend = ptr(svc("default", networkingv1.ServiceBackendPort{Number: 8080}))
	case 1:
		ing.Spec.Rules = nil
		ing.Spec.DefaultBackend = &networkingv1.IngressBackend{Resource: &v1.TypedLocalObjectReference{APIGroup: ptr("example.com"), Kind: "Bucket", Name: "static"}}
	case 2:
		ing.Spec.Rules[0].HTTP.Paths = append(ing.Spec.Rules[0].HTTP.Paths, networkingv1.HTTPIngressPath{PathType: &impl, Backend: svc("web", networkingv1.ServiceBackendPort{Number: 443})})
	}
	if r.Intn(2) == 0 {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"example.com", "*.example.com"}, SecretName: "tls-cert"}}
	}
	if r.Intn(2) == 0 {
		ing.Spec.IngressClassName = ptr("nginx")
	}
	if r.Intn(4) == 0 {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations["kubernetes.io/ingress.class"] = "nginx"
	}
	return ing
}

func seedIngressClass(r *rand.Rand) runtime.Object {
	ic := &networkingv1.IngressClass{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"}, ObjectMeta: seedMeta(r),
		Spec: networkingv1.IngressClassSpec{Controller: pick(r, []string{"example.com/ingress-controller", "k8s.io/ingress-nginx"})}}
	switch r.Intn(3) {
	case 0:
		ic.Spec.Parameters = &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external-lb",
			Scope: ptr(networkingv1.IngressClassParametersReferenceScopeCluster)}
	case 1:
		ic.Spec.Parameters = &networkingv1.IngressClassParametersReference{Kind: "ConfigMap", Name: "params",
			Scope: ptr(networkingv1.IngressClassParametersReferenceScopeNamespace), Namespace: ptr("ingress")}
	}
	return ic
}

func seedNetworkPolicy(r *rand.Rand) runtime.Object {
	tcp, udp := v1.ProtocolTCP, v1.ProtocolUDP
	np := &networkingv1.NetworkPolicy{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"}, ObjectMeta: seedMeta(r),
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if r.Intn(3) != 0 {
		np.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: ptr(intstr.FromInt32(80))}, {Port: ptr(intstr.FromString("http"))}},
			From: []networkingv1.NetworkPolicyPeer{
				{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "frontend"}}},
				{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}}},
				{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.0.1.0/24"}}},
			},
		}}
	}
	if r.Intn(2) == 0 {
		np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: ptr(intstr.FromInt32(53)), EndPort: ptr(int32(60))}},
			To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: pick(r, []string{"0.0.0.0/0", "2001:db8::/32"})}}},
		}}
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
	}
	return np
}
