package validation

import (
	"math/rand"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
)

// Seeds of Endpoints and EndpointSlice.

func endpointKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, resource: "endpointslices", seed: seedEndpointSlice, complete: true, prepare: true,
			create: endpointslice.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": endpointslice.Strategy}},
		{gvk: kschema.GroupVersionKind{Version: "v1", Kind: "Endpoints"}, resource: "endpoints", seed: seedEndpoints, complete: true,
			create: endpoint.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": endpoint.Strategy}},
	}
}

func seedEndpointSlice(r *rand.Rand) runtime.Object {
	eps := &discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"}, ObjectMeta: seedMeta(r)}
	if r.Intn(3) == 0 {
		eps.Labels = map[string]string{"endpointslice.kubernetes.io/managed-by": pick(r, []string{"endpointslice-controller.k8s.io", "me"})}
	}
	ep := discoveryv1.Endpoint{Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}, NodeName: ptr("node-1"), Zone: ptr("zone-a"),
		Hints:     &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}, ForNodes: []discoveryv1.ForNode{{Name: "node-1"}}},
		TargetRef: &v1.ObjectReference{Kind: "Pod", Name: "web-1", Namespace: "validation-pod"}}
	switch r.Intn(3) {
	case 0:
		eps.AddressType = discoveryv1.AddressTypeIPv4
		ep.Addresses = []string{"10.1.2.3", "10.1.2.4"}
	case 1:
		eps.AddressType = discoveryv1.AddressTypeIPv6
		ep.Addresses = []string{"2001:db8::1"}
	default:
		eps.AddressType = discoveryv1.AddressTypeFQDN
		ep.Addresses = []string{"web.example.com"}
		ep.Hostname = ptr("web")
	}
	if r.Intn(3) == 0 {
		// What v1 drops (dropTopologyOnV1); the hostname becomes nodeName only for a node the
		// stored slice named so.
		ep.DeprecatedTopology = map[string]string{"kubernetes.io/hostname": "node-2", "example.com/rack": "r1"}
		if r.Intn(2) == 0 {
			ep.NodeName = nil
		}
	}
	eps.Endpoints = []discoveryv1.Endpoint{ep}
	eps.Ports = []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(80)), Protocol: ptr(v1.ProtocolTCP), AppProtocol: ptr("kubernetes.io/h2c")}}
	if r.Intn(2) == 0 {
		eps.Ports = append(eps.Ports, discoveryv1.EndpointPort{Name: ptr("dns"), Port: ptr(int32(53)), Protocol: ptr(v1.ProtocolUDP)})
	}
	return eps
}

func seedEndpoints(r *rand.Rand) runtime.Object {
	e := &v1.Endpoints{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Endpoints"}, ObjectMeta: seedMeta(r)}
	if r.Intn(3) == 0 {
		e.Labels = map[string]string{"endpoints.kubernetes.io/managed-by": pick(r, []string{"endpoint-controller", "me"})}
	}
	ss := v1.EndpointSubset{
		Addresses:         []v1.EndpointAddress{{IP: "10.1.2.3", Hostname: "web-1", NodeName: ptr("node-1"), TargetRef: &v1.ObjectReference{Kind: "Pod", Name: "web-1"}}},
		NotReadyAddresses: []v1.EndpointAddress{{IP: pick(r, []string{"10.1.2.4", "2001:db8::4"})}},
		Ports:             []v1.EndpointPort{{Name: "http", Port: 80, Protocol: v1.ProtocolTCP}},
	}
	if r.Intn(2) == 0 {
		ss.Ports = append(ss.Ports, v1.EndpointPort{Name: "dns", Port: 53, Protocol: v1.ProtocolUDP, AppProtocol: ptr("dns")})
	}
	if r.Intn(4) != 0 {
		e.Subsets = []v1.EndpointSubset{ss}
	}
	return e
}
