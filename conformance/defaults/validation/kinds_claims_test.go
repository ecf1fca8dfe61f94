package validation

import (
	"fmt"
	"math/rand"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"

	"github.com/writepath/writepath/schema/validation"
)

// ResourceClaimTemplate and ResourceClaim. Their strategies read the namespace when a request
// asks for admin access (AuthorizedForAdmin): the rows run in the harness's namespace, which
// carries the admin-access label, and again (".plain") in one whose label is not "true";
// writepath reads the same namespaces through Options.Namespace. Opaque parameters are drawn with their
// keys sorted: the reference prints a RawExtension's bytes as the client sent them (a spec's
// immutable error quotes them), writepath's object model keeps no key order and prints them
// sorted, as Go clients marshal maps.

// claimNamespaces are the namespaces the strategies read: the harness's, labelled for admin
// access, and a plain one whose label says "yes".
var claimNamespaces = []*corev1.Namespace{
	{ObjectMeta: metav1.ObjectMeta{Name: "validation-pod", Labels: map[string]string{"resource.kubernetes.io/admin-access": "true"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "validation-plain", Labels: map[string]string{"resource.kubernetes.io/admin-access": "yes"}}},
}

var adminNamespaces = fake.NewClientset(claimNamespaces[0], claimNamespaces[1]).CoreV1().Namespaces()

// withNamespace gives writepath the object's namespace as v1 JSON, as registry's World would
// (the reference's strategy reads the namespace the object names).
func withNamespace(o *validation.Options, obj map[string]any) {
	name, _ := obj["metadata"].(map[string]any)["namespace"].(string)
	o.Namespace = func() (map[string]any, error) {
		for _, ns := range claimNamespaces {
			if ns.Name == name {
				labels := map[string]any{}
				for k, v := range ns.Labels {
					labels[k] = v
				}
				return map[string]any{"metadata": map[string]any{"name": ns.Name, "labels": labels}}, nil
			}
		}
		return nil, nil
	}
}

func claimKinds() []harnessKind {
	rct := resourceclaimtemplate.NewStrategy(adminNamespaces)
	rc := resourceclaim.NewStrategy(adminNamespaces, nil)
	var out []harnessKind
	for _, ns := range []string{"validation-pod", "validation-plain"} {
		suffix := ""
		if ns != "validation-pod" {
			suffix = ".plain"
		}
		out = append(out,
			harnessKind{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate"},
				resource: "resourceclaimtemplates", seed: seedResourceClaimTemplate, complete: true, prepare: true,
				create: rct, updates: map[string]rest.RESTUpdateStrategy{"": rct}, namespace: ns, options: withNamespace,
				name: "ResourceClaimTemplate" + suffix},
			harnessKind{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"},
				resource: "resourceclaims", seed: seedResourceClaim, complete: true, prepare: true,
				create: rc, updates: map[string]rest.RESTUpdateStrategy{"": rc}, namespace: ns, options: withNamespace,
				name: "ResourceClaim" + suffix})
	}
	return out
}

var (
	deviceClassNames   = []string{"gpu.example.com", "fpga", "a.b.c"}
	badDeviceClasses   = []string{"", "Bad_Class", "-x", "gpu.example.com."}
	deviceAttributes   = []string{"gpu.example.com/model", "dra.example.com/numa", "example.com/x_y"}
	badAttributes      = []string{"model", "/model", "gpu.example.com/", "Bad_Domain/x", "a/b/c", "example.com/1bad", "example.com/abcdefghijabcdefghijabcdefghijabc", "Example.COM/x"}
	tolerationKeys     = []string{"", "example.com/unhealthy", "gpu", "bad key", "a/b/c"}
	tolerationValues   = []string{"", "v", "bad value!"}
	tolerationOps      = []resourcev1.DeviceTolerationOperator{"Equal", "Exists", "", "Maybe"}
	tolerationEffects  = []resourcev1.DeviceTaintEffect{"", "NoSchedule", "NoExecute", "None", "Evict"}
	allocationModeVals = []resourcev1.DeviceAllocationMode{"ExactCount", "All", "", "Some"}
)

func seedTolerations(r *rand.Rand) []resourcev1.DeviceToleration {
	var out []resourcev1.DeviceToleration
	for i, n := 0, r.Intn(3); i < n; i++ {
		t := resourcev1.DeviceToleration{Key: "example.com/unhealthy", Operator: "Exists", Effect: "NoSchedule"}
		if r.Intn(6) == 0 {
			t.Key, t.Value, t.Operator, t.Effect = pick(r, tolerationKeys), pick(r, tolerationValues), pick(r, tolerationOps), pick(r, tolerationEffects)
		}
		if r.Intn(4) == 0 {
			t.TolerationSeconds = ptr(int64(r.Intn(100)))
		}
		out = append(out, t)
	}
	return out
}

func seedAllocation(r *rand.Rand) (resourcev1.DeviceAllocationMode, int64) {
	if r.Intn(6) != 0 {
		return "ExactCount", int64(1 + r.Intn(3))
	}
	return pick(r, allocationModeVals), int64(r.Intn(3) - 1)
}

func seedDerived(r *rand.Rand) []resourcev1.DeviceDerivedAttribute {
	if r.Intn(10) != 0 {
		return nil
	}
	return []resourcev1.DeviceDerivedAttribute{{Name: "numa", Expression: `device.attributes["dra.example.com"].numa`}}
}

func seedClaimSpec(r *rand.Rand) resourcev1.ResourceClaimSpec {
	var spec resourcev1.ResourceClaimSpec
	var refs []string
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		name := fmt.Sprintf("req-%d", i)
		if r.Intn(12) == 0 {
			name = "req-0"
		}
		req := resourcev1.DeviceRequest{Name: name}
		if r.Intn(3) != 0 {
			mode, count := seedAllocation(r)
			req.Exactly = &resourcev1.ExactDeviceRequest{DeviceClassName: mostly(r, deviceClassNames, badDeviceClasses),
				Selectors: seedDeviceSelectors(r), AllocationMode: mode, Count: count, Tolerations: seedTolerations(r), DerivedAttributes: seedDerived(r)}
			if r.Intn(8) == 0 {
				req.Exactly.AdminAccess = ptr(r.Intn(2) == 0)
			}
			refs = append(refs, name)
		} else {
			for j, m := 0, 1+r.Intn(3); j < m; j++ {
				mode, count := seedAllocation(r)
				sub := resourcev1.DeviceSubRequest{Name: fmt.Sprintf("sub-%d", j), DeviceClassName: mostly(r, deviceClassNames, badDeviceClasses),
					Selectors: seedDeviceSelectors(r), AllocationMode: mode, Count: count, Tolerations: seedTolerations(r), DerivedAttributes: seedDerived(r)}
				if r.Intn(12) == 0 {
					sub.Name = "sub-0"
				}
				req.FirstAvailable = append(req.FirstAvailable, sub)
				refs = append(refs, name+"/"+sub.Name)
			}
			refs = append(refs, name)
		}
		spec.Devices.Requests = append(spec.Devices.Requests, req)
	}
	someRefs := func() []string {
		var out []string
		for i, n := 0, r.Intn(3); i < n; i++ {
			if r.Intn(8) == 0 {
				out = append(out, pick(r, []string{"nope", "req-0/nope", "a/b/c", "Bad_Ref", "req-0/Bad"}))
				continue
			}
			out = append(out, pick(r, refs))
		}
		return out
	}
	for i, n := 0, r.Intn(3); i < n; i++ {
		c := resourcev1.DeviceConstraint{Requests: someRefs()}
		attr := mostly(r, deviceAttributes, badAttributes)
		switch r.Intn(5) {
		case 0:
			c.DistinctAttribute = ptr(resourcev1.FullyQualifiedName(attr))
		case 1:
		default:
			c.MatchAttribute = ptr(resourcev1.FullyQualifiedName(attr))
		}
		spec.Devices.Constraints = append(spec.Devices.Constraints, c)
	}
	for i, n := 0, r.Intn(3); i < n; i++ {
		c := resourcev1.DeviceClaimConfiguration{Requests: someRefs()}
		if r.Intn(8) != 0 {
			c.Opaque = seedOpaqueConfig(r)
		}
		spec.Devices.Config = append(spec.Devices.Config, c)
	}
	return spec
}

func seedResourceClaimTemplate(r *rand.Rand) runtime.Object {
	t := &resourcev1.ResourceClaimTemplate{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"}, ObjectMeta: seedMeta(r)}
	if r.Intn(3) == 0 {
		t.Spec.ObjectMeta.Labels = map[string]string{"app": "gpu"}
	}
	if r.Intn(4) == 0 {
		t.Spec.ObjectMeta.Annotations = map[string]string{"example.com/note": "x"}
	}
	t.Spec.Spec = seedClaimSpec(r)
	return t
}

func seedResourceClaim(r *rand.Rand) runtime.Object {
	c := &resourcev1.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"}, ObjectMeta: seedMeta(r)}
	c.Spec = seedClaimSpec(r)
	return c
}
