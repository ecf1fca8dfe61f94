package validation

import (
	"math/rand"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
)

// resource.k8s.io/v1 (dynamic resource allocation). Device selectors are drawn from CEL that
// compiles and that does not (syntax errors, undeclared names, fields device does not have,
// wrong output types, expressions over the cost limit), so that writepath's DRA environment
// (admission.ExpressionCompiler.DeviceSelector) is compared with the apiserver's word for word;
// the generator's words land in them too.

func resourceKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceClass"},
			resource: "deviceclasses", seed: seedDeviceClass, complete: true,
			create: deviceclass.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": deviceclass.Strategy}},
	}
}

var (
	validDeviceSelectors = []string{
		`device.driver == "gpu.example.com"`,
		`device.attributes["gpu.example.com"].model == "a100"`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0`,
		`device.allowMultipleAllocations`,
		`cel.bind(dra, device.attributes["dra.example.com"], dra.oneBool && dra.anotherBool)`,
		`"gpu.example.com" in device.attributes`,
		`device.attributes["dra.example.com"].version.isGreaterThan(semver("1.0.0"))`,
		`true`,
	}
	deviceSelectorExprs = []string{
		`device.driver`, `device.nope == 1`, `params.x`, `1 + 1`, `device.driver == `, `device.attributes["x"]`,
		`device.attributes["x"].y`, `device.attributes`, `object.metadata.name == ""`, `"abc"`, `undefinedVar`,
		`device.capacity["a"]["b"]`, `device.attributes.all(d, device.attributes[d].all(k, device.attributes[d][k] == 1))`,
		`device.attributes.all(d, device.attributes[d].all(k, device.attributes.all(e, device.attributes[e].all(l, device.attributes[e][l] == device.attributes[d][k]))))`,
		`device.driver.matches("^gpu") && device.driver.size() < 10`, `[1, 2].all(x, x > 0)`, `"a".matches("[")`,
		`device.allowMultipleAllocations == "x"`, `  device.driver == "a"  `, `isQuantity("1Gi")`, `ip("10.0.0.1").family() == 4`,
		strings.Repeat("a", 10*1024+1),
	}
	deviceDrivers     = []string{"gpu.example.com", "dra.example.com", "GPU.Example.COM", "example", "-bad", "a_b", strings.Repeat("a", 64)}
	opaqueParameters  = []string{`{"a":1}`, `{}`, `{"count":2,"mode":"shared"}`, `[1]`, `"s"`, `1`, `{"x":"` + strings.Repeat("p", 10*1024) + `"}`}
	extendedResources = []string{"example.com/gpu", "gpu", "kubernetes.io/gpu", "requests.example.com/gpu", "example.com/bad_name!", "example.com/" + strings.Repeat("g", 64)}
)

func seedDeviceSelectors(r *rand.Rand) []resourcev1.DeviceSelector {
	var out []resourcev1.DeviceSelector
	for i, n := 0, r.Intn(3); i < n; i++ {
		if r.Intn(10) == 0 {
			out = append(out, resourcev1.DeviceSelector{})
			continue
		}
		out = append(out, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: mostly(r, validDeviceSelectors, deviceSelectorExprs)}})
	}
	return out
}

// seedOpaqueConfig never gives the raw bytes null (a JSON body cannot store them: a null
// leaves the RawExtension unset).
func seedOpaqueConfig(r *rand.Rand) *resourcev1.OpaqueDeviceConfiguration {
	c := &resourcev1.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: runtime.RawExtension{Raw: []byte(`{"a":1}`)}}
	if r.Intn(4) == 0 {
		c.Driver = pick(r, deviceDrivers)
	}
	if r.Intn(4) == 0 {
		c.Parameters.Raw = []byte(pick(r, opaqueParameters))
	}
	return c
}

func seedDeviceClass(r *rand.Rand) runtime.Object {
	dc := &resourcev1.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}, ObjectMeta: seedMeta(r)}
	dc.Spec.Selectors = seedDeviceSelectors(r)
	for i, n := 0, r.Intn(3); i < n; i++ {
		var c resourcev1.DeviceClassConfiguration
		if r.Intn(8) != 0 {
			c.Opaque = seedOpaqueConfig(r)
		}
		dc.Spec.Config = append(dc.Spec.Config, c)
	}
	if r.Intn(3) == 0 {
		dc.Spec.ExtendedResourceName = ptr(pick(r, extendedResources))
	}
	return dc
}
