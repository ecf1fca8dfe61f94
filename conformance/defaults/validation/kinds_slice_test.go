package validation

import (
	"fmt"
	"math/rand"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
)

// ResourceSlice. The reference ranges over Go maps for a device's attributes and capacities and
// for counters (their keys' errors and each value's, declarative ones too): runs of such lines
// are compared as sets; writepath lists them in key order.

func sliceKinds() []harnessKind {
	s := resourceslice.Strategy
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice"},
			resource: "resourceslices", seed: seedResourceSlice, complete: true, prepare: true,
			create: s, updates: map[string]rest.RESTUpdateStrategy{"": s}, unordered: sliceMapLine},
	}
}

// sliceMapLine: an error about an attribute, a capacity or a counter.
func sliceMapLine(line string) bool {
	return strings.Contains(line, ".attributes") || strings.Contains(line, ".capacity") || strings.Contains(line, ".counters")
}

var (
	sliceDrivers     = []string{"gpu.example.com", "dra.example.com", "a.b"}
	badSliceDrivers  = []string{"", "Bad_Driver", "GPU.example.com", "-x", strings.Repeat("d", 64)}
	slicePools       = []string{"pool-a", "node-1", "a/b", "x.y/z"}
	badSlicePools    = []string{"", "/x", "a//b", "Bad_Pool", strings.Repeat("p", 254)}
	attrNames        = []string{"model", "gpu.example.com/numa", "driverVersion", "example.com/x_y"}
	badAttrNames     = []string{"/model", "gpu.example.com/", "Bad_Domain/x", "a/b/c", "1bad", strings.Repeat("n", 33), "example.com/" + strings.Repeat("z", 90)}
	counterNames     = []string{"memory", "cores", "slice-a"}
	badCounterNames  = []string{"", "Bad_Counter", "a.b", strings.Repeat("c", 64)}
	sliceQuantities  = []string{"0", "1", "2", "4", "8", "10", "16Gi", "100m", "1.5", "-1", "10000Ei"}
	sliceTaintKeys   = []string{"example.com/unhealthy", "gpu", "bad key", "a/b/c", ""}
	sliceTaintEffect = []resourcev1.DeviceTaintEffect{"NoSchedule", "NoExecute", "None", "", "Evict"}
	sliceConditions  = []string{"example.com/ready", "attached", "bad condition", "example.com/failed"}
	sliceVersions    = []string{"1.0.0", "1.2.3-rc.1+build.5", "1.0", "01.0.0", "v1.0.0"}
)

// rarely picks from invalid one time in 25: a seed has many fields, and its mutation is what
// should make most cases invalid.
func rarely(r *rand.Rand, valid, invalid []string) string {
	if r.Intn(25) == 0 {
		return pick(r, invalid)
	}
	return pick(r, valid)
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func qp(s string) *resource.Quantity { v := q(s); return &v }

func seedAttribute(r *rand.Rand) resourcev1.DeviceAttribute {
	switch r.Intn(5) {
	case 0:
		return resourcev1.DeviceAttribute{IntValue: ptr(int64(r.Intn(8) - 1))}
	case 1:
		return resourcev1.DeviceAttribute{BoolValue: ptr(r.Intn(2) == 0)}
	case 2:
		return resourcev1.DeviceAttribute{VersionValue: ptr(rarely(r, sliceVersions[:2], sliceVersions[2:]))}
	case 3:
		if r.Intn(6) == 0 {
			return resourcev1.DeviceAttribute{StringValue: ptr(strings.Repeat("s", 65))}
		}
	}
	return resourcev1.DeviceAttribute{StringValue: ptr(pick(r, []string{"a100", "", "x"}))}
}

func seedRequestPolicy(r *rand.Rand) *resourcev1.CapacityRequestPolicy {
	switch r.Intn(3) {
	case 0:
		vals := []resource.Quantity{q("1"), q("2"), q("4")}[:1+r.Intn(3)]
		if r.Intn(4) == 0 {
			vals = append(vals, q(pick(r, sliceQuantities)))
		}
		return &resourcev1.CapacityRequestPolicy{Default: qp(vals[r.Intn(len(vals))].String()), ValidValues: vals}
	case 1:
		rng := &resourcev1.CapacityRequestPolicyRange{Min: qp(rarely(r, []string{"2"}, sliceQuantities))}
		if r.Intn(2) == 0 {
			rng.Max = qp(rarely(r, []string{"8"}, sliceQuantities))
		}
		if r.Intn(2) == 0 {
			rng.Step = qp(rarely(r, []string{"2"}, sliceQuantities))
		}
		return &resourcev1.CapacityRequestPolicy{Default: qp(rarely(r, []string{"4"}, sliceQuantities)), ValidRange: rng}
	}
	return &resourcev1.CapacityRequestPolicy{Default: qp("1")}
}

func seedSliceDevice(r *rand.Rand, i int, perDevice bool) resourcev1.Device {
	d := resourcev1.Device{Name: fmt.Sprintf("dev-%d", i)}
	if r.Intn(20) == 0 {
		d.Name = "dev-0"
	}
	if r.Intn(4) != 0 {
		d.Attributes = map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{}
		for j, n := 0, 1+r.Intn(3); j < n; j++ {
			d.Attributes[resourcev1.QualifiedName(rarely(r, attrNames, badAttrNames))] = seedAttribute(r)
		}
	}
	if r.Intn(2) == 0 {
		d.AllowMultipleAllocations = ptr(r.Intn(4) != 0)
	}
	if r.Intn(2) == 0 {
		d.Capacity = map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{}
		for j, n := 0, 1+r.Intn(2); j < n; j++ {
			c := resourcev1.DeviceCapacity{Value: q(rarely(r, []string{"8", "10", "16Gi"}, sliceQuantities))}
			if c.Value.Cmp(q("8")) < 0 {
				c.Value = q("16Gi")
			}
			if d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations && r.Intn(2) == 0 {
				c.RequestPolicy = seedRequestPolicy(r)
			}
			d.Capacity[resourcev1.QualifiedName(rarely(r, []string{"memory", "gpu.example.com/cores"}, badAttrNames))] = c
		}
	}
	if r.Intn(3) == 0 {
		for j, n := 0, 1+r.Intn(2); j < n; j++ {
			d.ConsumesCounters = append(d.ConsumesCounters, resourcev1.DeviceCounterConsumption{
				CounterSet: rarely(r, counterNames, badCounterNames),
				Counters:   map[string]resourcev1.Counter{rarely(r, counterNames, badCounterNames): {Value: q("1")}}})
		}
	}
	if r.Intn(3) == 0 {
		for j, n := 0, 1+r.Intn(2); j < n; j++ {
			t := resourcev1.DeviceTaint{Key: "example.com/unhealthy", Effect: "NoSchedule"}
			if r.Intn(12) == 0 {
				t.Key, t.Value, t.Effect = pick(r, sliceTaintKeys), pick(r, []string{"", "v", "bad value!"}), pick(r, sliceTaintEffect)
			}
			if r.Intn(3) == 0 {
				t.TimeAdded = &metav1.Time{Time: metav1.Unix(1_700_000_000, 0).Time}
			}
			d.Taints = append(d.Taints, t)
		}
	}
	if r.Intn(4) == 0 {
		d.BindsToNode = ptr(r.Intn(2) == 0)
		d.BindingConditions = []string{rarely(r, sliceConditions[:1], sliceConditions)}
		d.BindingFailureConditions = []string{rarely(r, sliceConditions[3:], sliceConditions)}
	}
	if perDevice {
		switch r.Intn(3) {
		case 0:
			d.NodeName = ptr(rarely(r, []string{"node-1", "worker.example.com"}, []string{"", "Bad_Node"}))
		case 1:
			d.NodeSelector = seedSliceNodeSelector(r)
		default:
			d.AllNodes = ptr(r.Intn(12) != 0)
		}
	}
	return d
}

func seedSliceNodeSelector(r *rand.Rand) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: rarely(r, []string{"zone", "example.com/rack"}, []string{"bad key", ""}), Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
}

func seedResourceSlice(r *rand.Rand) runtime.Object {
	s := &resourcev1.ResourceSlice{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}, ObjectMeta: seedMeta(r)}
	s.Spec.Driver = rarely(r, sliceDrivers, badSliceDrivers)
	s.Spec.Pool = resourcev1.ResourcePool{Name: rarely(r, slicePools, badSlicePools), Generation: int64(r.Intn(3)), ResourceSliceCount: int64(1 + r.Intn(2))}
	perDevice := false
	switch r.Intn(4) {
	case 0:
		s.Spec.NodeName = ptr(rarely(r, []string{"node-1", "worker.example.com"}, []string{"Bad_Node", "-n"}))
	case 1:
		s.Spec.NodeSelector = seedSliceNodeSelector(r)
	case 2:
		s.Spec.AllNodes = ptr(true)
	default:
		s.Spec.PerDeviceNodeSelection = ptr(true)
		perDevice = true
	}
	if r.Intn(5) == 0 {
		for i, n := 0, 1+r.Intn(2); i < n; i++ {
			cs := resourcev1.CounterSet{Name: rarely(r, counterNames, badCounterNames), Counters: map[string]resourcev1.Counter{}}
			for j, m := 0, 1+r.Intn(2); j < m; j++ {
				cs.Counters[rarely(r, counterNames, badCounterNames)] = resourcev1.Counter{Value: q(pick(r, []string{"1", "16Gi", "4"}))}
			}
			s.Spec.SharedCounters = append(s.Spec.SharedCounters, cs)
		}
		return s
	}
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		s.Spec.Devices = append(s.Spec.Devices, seedSliceDevice(r, i, perDevice))
	}
	return s
}
