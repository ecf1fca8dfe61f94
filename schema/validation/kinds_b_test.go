package validation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// fuzzKindsB are the node, storage, networking, flowcontrol and resource kinds FuzzValidate
// runs too.
var fuzzKindsB = []schema.GroupVersionKind{
	{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSINode"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttributesClass"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "IPAddress"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "ServiceCIDR"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration"},
}

// A CSINode /status update keeps status.storageHealth only when the stored object has some
// (CSIVolumeHealth is off); the main resource's update and other subresources are left alone.
func TestCSINodeStatusDropsStorageHealth(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSINode"}
	health := []any{map[string]any{"name": "d.example.com"}}
	obj := map[string]any{"metadata": map[string]any{"name": "n"}, "status": map[string]any{"storageHealth": health}}
	none := map[string]any{"metadata": map[string]any{"name": "n"}}
	some := map[string]any{"metadata": map[string]any{"name": "n"}, "status": map[string]any{"storageHealth": health}}

	got := validation.PrepareForUpdate(gvk, obj, none, validation.Options{Subresource: "status"})
	assert.Equal(t, map[string]any{"metadata": map[string]any{"name": "n"}, "status": map[string]any{}}, got, "dropped: the stored CSINode has none")
	assert.Equal(t, health, obj["status"].(map[string]any)["storageHealth"], "the request is not modified")
	assert.Equal(t, obj, validation.PrepareForUpdate(gvk, obj, some, validation.Options{Subresource: "status"}), "kept: the stored CSINode has some")
	assert.Equal(t, obj, validation.PrepareForUpdate(gvk, obj, none, validation.Options{}), "the main resource's status is the registry's")
}

// scalingCase is one kind with a huge list: make builds an object with n items.
type scalingCase struct {
	gvk  schema.GroupVersionKind
	make func(n int) map[string]any
}

// TestKindsBScaleLinearly is TestKindsScaleLinearly for the node, storage, networking,
// flowcontrol and resource kinds: each list a client can make huge, with items that are
// duplicates of each other (the duplicate checks are the quadratic risk).
func TestKindsBScaleLinearly(t *testing.T) {
	assertLinear(t, []scalingCase{
		{schema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}, func(n int) map[string]any {
			var tols []any
			for i := 0; i < n; i++ {
				tols = append(tols, map[string]any{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"})
			}
			return map[string]any{"metadata": map[string]any{"name": "rc"}, "handler": "runc",
				"scheduling": map[string]any{"tolerations": tols}}
		}},
		{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"}, func(n int) map[string]any {
			var reqs []any
			for i := 0; i < n; i++ {
				reqs = append(reqs, map[string]any{"audience": "a", "expirationSeconds": int64(1)})
			}
			return map[string]any{"metadata": map[string]any{"name": "d"}, "spec": map[string]any{"tokenRequests": reqs}}
		}},
		{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSINode"}, func(n int) map[string]any {
			var drivers []any
			for i := 0; i < n; i++ {
				// Names differ (a stored CSINode's are unique): the update compares each stored
				// driver with the new drivers of its name.
				drivers = append(drivers, map[string]any{"name": fmt.Sprintf("d%d.example.com", i), "nodeID": "n", "topologyKeys": []any{"k", "k"}})
			}
			return map[string]any{"metadata": map[string]any{"name": "n"}, "spec": map[string]any{"drivers": drivers}}
		}},
		{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity"}, func(n int) map[string]any {
			var exprs []any
			for i := 0; i < n; i++ {
				exprs = append(exprs, map[string]any{"key": "beta.kubernetes.io/os", "operator": "In", "values": []any{"%"}})
			}
			return map[string]any{"metadata": map[string]any{"name": "c", "namespace": "ns"}, "storageClassName": "s",
				"nodeTopology": map[string]any{"matchExpressions": exprs}}
		}},
		{schema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema"}, func(n int) map[string]any {
			var subjects, verbs, conds []any
			for i := 0; i < n; i++ {
				subjects = append(subjects, map[string]any{"kind": "Group", "group": map[string]any{"name": "g"}})
				verbs = append(verbs, "get")
				conds = append(conds, map[string]any{"type": "Dangling"})
			}
			rule := map[string]any{"subjects": subjects, "resourceRules": []any{map[string]any{"verbs": verbs, "apiGroups": []any{"*"},
				"resources": []any{"*"}, "clusterScope": true}}}
			// Named catch-all: the mandatory spec is compared too.
			return map[string]any{"metadata": map[string]any{"name": "catch-all"}, "spec": map[string]any{"matchingPrecedence": int64(10000),
				"priorityLevelConfiguration": map[string]any{"name": "catch-all"}, "rules": []any{rule}}, "status": map[string]any{"conditions": conds}}
		}},
	})
}

// assertLinear checks that doubling the items at most doubles the allocations of Validate and
// ValidateUpdate (allocations count work without timing anything; a quadratic walk would
// quadruple them).
func assertLinear(t *testing.T, cases []scalingCase) {
	for _, c := range cases {
		small, large := c.make(1000), c.make(2000)
		a := testing.AllocsPerRun(1, func() { validation.Validate(c.gvk, small, validation.Options{}) })
		b := testing.AllocsPerRun(1, func() { validation.Validate(c.gvk, large, validation.Options{}) })
		assert.LessOrEqual(t, b, 2.2*a+10, "%s: %v allocations for 1000 items, %v for 2000", c.gvk.Kind, a, b)
		u := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(c.gvk, large, large, validation.Options{}) })
		us := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(c.gvk, small, small, validation.Options{}) })
		assert.LessOrEqual(t, u, 2.2*us+10, "%s update: %v allocations for 1000 items, %v for 2000", c.gvk.Kind, us, u)
	}
}
