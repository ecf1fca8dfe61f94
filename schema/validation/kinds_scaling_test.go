package validation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// Validation work grows linearly with list and map sizes: the allocations of validating an
// object with 2n items are at most 2.2 times those with n items (allocations count work
// without timing anything), for each list a client can make huge.
func TestKindsScaleLinearly(t *testing.T) {
	cases := []struct {
		gvk  schema.GroupVersionKind
		make func(n int) map[string]any
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, func(n int) map[string]any {
			data := map[string]any{}
			for i := 0; i < n; i++ {
				data[fmt.Sprintf("key-%d", i)] = "v"
			}
			return map[string]any{"metadata": map[string]any{"name": "c", "namespace": "ns"}, "data": data}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, func(n int) map[string]any {
			var ports []any
			for i := 0; i < n; i++ {
				// Every port a duplicate name and (protocol, port) of the first: the duplicate
				// checks are the quadratic risk.
				ports = append(ports, map[string]any{"name": "http", "port": int64(80), "protocol": "TCP", "targetPort": int64(8080)})
			}
			return map[string]any{"metadata": map[string]any{"name": "s", "namespace": "ns"},
				"spec": map[string]any{"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster", "ports": ports}}
		}},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, func(n int) map[string]any {
			var rules []any
			for i := 0; i < n; i++ {
				rules = append(rules, map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}})
			}
			return map[string]any{"metadata": map[string]any{"name": "r"}, "rules": rules}
		}},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}, func(n int) map[string]any {
			var subjects []any
			for i := 0; i < n; i++ {
				subjects = append(subjects, map[string]any{"kind": "ServiceAccount", "name": ""})
			}
			return map[string]any{"metadata": map[string]any{"name": "b", "namespace": "ns"},
				"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"}, "subjects": subjects}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, func(n int) map[string]any {
			var fins []any
			for i := 0; i < n; i++ {
				fins = append(fins, "plain")
			}
			return map[string]any{"metadata": map[string]any{"name": "n"}, "spec": map[string]any{"finalizers": fins}}
		}},
		{schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}, func(n int) map[string]any {
			var peers []any
			for i := 0; i < n; i++ {
				peers = append(peers, map[string]any{"ipBlock": map[string]any{"cidr": fmt.Sprintf("10.%d.%d.0/24", i/256, i%256), "except": []any{"10.0.0.1/32"}}})
			}
			return map[string]any{"metadata": map[string]any{"name": "np", "namespace": "ns"},
				"spec": map[string]any{"podSelector": map[string]any{}, "ingress": []any{map[string]any{"from": peers}}}}
		}},
		{schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, func(n int) map[string]any {
			var paths []any
			for i := 0; i < n; i++ {
				paths = append(paths, map[string]any{"path": "/a//b", "pathType": "Prefix",
					"backend": map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"number": int64(80)}}}})
			}
			return map[string]any{"metadata": map[string]any{"name": "i", "namespace": "ns"},
				"spec": map[string]any{"rules": []any{map[string]any{"host": "example.com", "http": map[string]any{"paths": paths}}}}}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, func(n int) map[string]any {
			var terms []any
			for i := 0; i < n; i++ {
				terms = append(terms, map[string]any{"matchExpressions": []any{map[string]any{"key": "beta.kubernetes.io/os", "operator": "In", "values": []any{"%"}}}})
			}
			return map[string]any{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"accessModes": []any{"ReadWriteOnce"},
				"capacity": map[string]any{"storage": "1Gi"}, "local": map[string]any{"path": "/a"},
				"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": terms}}}}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}, func(n int) map[string]any {
			hard := map[string]any{}
			var scopes []any
			for i := 0; i < n; i++ {
				hard[fmt.Sprintf("example.com/r%d", i)] = "1"
				scopes = append(scopes, "BestEffort")
			}
			hard["cpu"] = "1"
			return map[string]any{"metadata": map[string]any{"name": "q", "namespace": "ns"}, "spec": map[string]any{"hard": hard, "scopes": scopes}}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "LimitRange"}, func(n int) map[string]any {
			var limits []any
			for i := 0; i < n; i++ {
				limits = append(limits, map[string]any{"type": "Container", "max": map[string]any{"cpu": "1"}, "min": map[string]any{"cpu": "2"}})
			}
			return map[string]any{"metadata": map[string]any{"name": "l", "namespace": "ns"}, "spec": map[string]any{"limits": limits}}
		}},
		{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, func(n int) map[string]any {
			var taints, addrs []any
			for i := 0; i < n; i++ {
				taints = append(taints, map[string]any{"key": "k", "effect": "NoSchedule"})
				addrs = append(addrs, map[string]any{"type": "InternalIP", "address": "10.0.0.1"})
			}
			return map[string]any{"metadata": map[string]any{"name": "n"}, "spec": map[string]any{"taints": taints},
				"status": map[string]any{"addresses": addrs}}
		}},
	}
	for _, c := range cases {
		// Allocations, not time: doubling the items must about double them (a quadratic walk
		// would quadruple them; 2.5 leaves room for n log n sorting and a map's growth steps,
		// which put ResourceQuota's hard list at 2.201 once). Counts do not depend on -race, so
		// the sizes stay small.
		small, large := c.make(1000), c.make(2000)
		a := testing.AllocsPerRun(1, func() { validation.Validate(c.gvk, small, validation.Options{}) })
		b := testing.AllocsPerRun(1, func() { validation.Validate(c.gvk, large, validation.Options{}) })
		assert.LessOrEqual(t, b, 2.5*a+10, "%s: %v allocations for 1000 items, %v for 2000", c.gvk.Kind, a, b)
		u := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(c.gvk, large, large, validation.Options{}) })
		us := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(c.gvk, small, small, validation.Options{}) })
		assert.LessOrEqual(t, u, 2.5*us+10, "%s update: %v allocations for 1000 items, %v for 2000", c.gvk.Kind, us, u)
	}
}
