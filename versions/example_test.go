package versions_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

func ExampleCompareResourceVersion() {
	for _, p := range [][2]string{{"99", "100"}, {"123", "123"}, {"1000000000000000000000", "999"}, {"0100", "100"}} {
		n, err := versions.CompareResourceVersion(p[0], p[1])
		fmt.Println(p[0], p[1], n, err)
	}
	// Output:
	// 99 100 -1 <nil>
	// 123 123 0 <nil>
	// 1000000000000000000000 999 1 <nil>
	// 0100 100 0 resource version is not well formed: 0100
}

func ExampleIsWellFormed() {
	fmt.Println(versions.IsWellFormed("12345"), versions.IsWellFormed("0"), versions.IsWellFormed(""), versions.IsWellFormed("1a"))
	// Output: true false false false
}

func ExampleEqualityOnly() {
	var c versions.Comparator = versions.EqualityOnly{}
	fmt.Println(c.Compare("a1b2", "a1b2"))
	_, err := c.Compare("a1b2", "c3d4")
	fmt.Println(errors.Is(err, versions.ErrNotOrdered))
	// Output:
	// 0 <nil>
	// true
}

func ExampleDecimalOrEquality() {
	var c versions.Comparator = versions.DecimalOrEquality{}
	fmt.Println(c.Compare("9", "10"))
	fmt.Println(c.Compare("etag-1", "etag-1"))
	// Output:
	// -1 <nil>
	// 0 <nil>
}

func ExampleDecimal() {
	var c versions.Comparator = versions.Decimal{}
	fmt.Println(c.Compare("10", "9"))
	// Output: 1 <nil>
}

func configMap(uid, rv string) map[string]any {
	md := map[string]any{"name": "cm1", "namespace": "default"}
	if uid != "" {
		md["uid"] = uid
	}
	if rv != "" {
		md["resourceVersion"] = rv
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
}

func ExampleCheckUpdate() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	stored := configMap("6b1f", "42")

	_, err := versions.CheckUpdate(s, stored, configMap("", "41"))
	fmt.Println(status.CodeOf(err), err)

	d, err := versions.CheckUpdate(s, stored, configMap("", ""))
	fmt.Println(d.Unconditional, d.ResourceVersion, err)

	lease, _ := versions.Builtin(schema.GroupVersionKind{Group: "coordination.k8s.io", Kind: "Lease"})
	_, err = versions.CheckUpdate(lease, stored, configMap("", ""))
	fmt.Println(status.CodeOf(err), err)
	// Output:
	// 409 Operation cannot be fulfilled on configmaps "cm1": the object has been modified; please apply your changes to the latest version and try again
	// true 42 <nil>
	// 422 leases.coordination.k8s.io "cm1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update
}

func ExampleCheckPreconditions() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	uid := "other"
	err := versions.CheckPreconditions(s, versions.Preconditions{UID: &uid}, configMap("6b1f", "42"))
	fmt.Println(err)
	// Output: Operation cannot be fulfilled on configmaps "cm1": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/cm1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: 6b1f
}

func ExampleCheckDeletePreconditions() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	rv := "41"
	err := versions.CheckDeletePreconditions(s, versions.Preconditions{ResourceVersion: &rv}, configMap("6b1f", "42"))
	fmt.Println(err)
	// Output: Operation cannot be fulfilled on ConfigMap "cm1": the ResourceVersion in the precondition (41) does not match the ResourceVersion in record (42). The object might have been modified
}

func deployment(gen int64, replicas int64, image string) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default", "generation": gen},
		"spec": map[string]any{
			"replicas": replicas,
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "web", "image": image}}}},
		},
		"status": map[string]any{"observedGeneration": gen},
	}
}

func ExampleNextGeneration() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	old := deployment(3, 2, "nginx:1.27")

	g, _ := versions.NextGeneration(s, old, deployment(3, 5, "nginx:1.27"), "")
	fmt.Println(g)
	g, _ = versions.NextGeneration(s, old, deployment(3, 5, "nginx:1.27"), "scale")
	fmt.Println(g.New)
	g, _ = versions.NextGeneration(s, old, deployment(3, 2, "nginx:1.27"), "status")
	fmt.Println(g)
	// Output:
	// 3 -> 4: spec.replicas changed; Deployment bumps metadata.generation on any change to spec or metadata.annotations
	// 4
	// 3 -> 3: writes to deployments.apps/status never change metadata.generation
}

func ExampleGenerationOnCreate() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	g, _ := versions.GenerationOnCreate(s, deployment(7, 1, "nginx"))
	fmt.Println(g.New)
	cm, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	g, _ = versions.GenerationOnCreate(cm, configMap("", ""))
	fmt.Println(g.New)
	// Output:
	// 1
	// 0
}

func ExampleGenerationOnDelete() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	g, _ := versions.GenerationOnDelete(s, deployment(4, 1, "nginx"))
	fmt.Println(g)
	// Output: 4 -> 5: setting deletionTimestamp for the first time bumps a positive metadata.generation
}

func ExampleCustomResource() {
	s := versions.CustomResource("example.com", "widgets", "Widget", versions.CustomResourceOptions{StatusSubresource: true})
	old := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "generation": int64(1)},
		"spec":     map[string]any{"size": int64(1)}}
	statusOnly := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "generation": int64(1)},
		"spec":     map[string]any{"size": int64(1)},
		"status":   map[string]any{"ready": true}}
	g, _ := versions.NextGeneration(s, old, statusOnly, "")
	fmt.Println(g.New, g.Reason)
	// Output: 1 no compared field changed; custom resources with a status subresource bump metadata.generation on any change outside metadata and status
}

func ExampleBuiltin() {
	s, ok := versions.Builtin(schema.GroupVersionKind{Group: "policy", Kind: "PodDisruptionBudget"})
	fmt.Println(ok, s.Resource, s.AllowUnconditionalUpdate, s.Generation.Compare)
	// Output: true poddisruptionbudgets false [spec]
}

func ExampleBuiltinResource() {
	s, _ := versions.BuiltinResource(schema.GroupVersionResource{Resource: "services"})
	fmt.Println(s.Kind, s.StorageKey("default", "web"))
	// Output: Service /registry/services/specs/default/web
}

func ExampleBuiltins() {
	n := 0
	for _, s := range versions.Builtins() {
		if s.Generation.Tracked() {
			n++
		}
	}
	fmt.Println(n > 20)
	// Output: true
}

func ExampleStrategyFor() {
	s, _ := versions.StrategyFor(map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab"}, versions.CustomResourceOptions{})
	fmt.Println(s.Custom, s.GroupResource(), s.StorageKey("ns", "x"))
	// Output: true crontabs.stable.example.com /registry/stable.example.com/crontabs/ns/x
}

func ExampleObserve() {
	obj := map[string]any{
		"metadata": map[string]any{"generation": int64(3)},
		"status": map[string]any{"observedGeneration": int64(3), "conditions": []any{
			map[string]any{"type": "Ready", "observedGeneration": int64(2)},
			map[string]any{"type": "Synced", "observedGeneration": int64(3)},
		}},
	}
	o, _ := versions.Observe(obj)
	fmt.Println(o.StatusCurrent(), o.StaleConditions(), o.Current())
	fmt.Println(o)
	// Output:
	// true [Ready] false
	// generation 3, observed 3 (current); stale conditions: [Ready]
}

func ExampleStrategy_AllowsUnconditionalUpdate() {
	dtr, _ := versions.Builtin(schema.GroupVersionKind{Group: "resource.k8s.io", Kind: "DeviceTaintRule"})
	fmt.Println(dtr.AllowsUnconditionalUpdate("v1"), dtr.AllowsUnconditionalUpdate("v1beta2"))
	// Output: false true
}

func ExampleStrategy_HasSubresource() {
	pods, _ := versions.BuiltinResource(schema.GroupVersionResource{Resource: "pods"})
	fmt.Println(pods.HasSubresource("status"), pods.HasSubresource("scale"), pods.HasSubresource("resize"))
	// Output: true false true
}

func ExampleStrategy_GroupKind() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	fmt.Println(s.GroupKind(), s.GroupResource())
	// Output: Deployment.apps deployments.apps
}

func ExampleGenerationChange_Bumped() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	g, _ := versions.NextGeneration(s, deployment(2, 1, "a"), deployment(2, 1, "b"), "")
	fmt.Println(g.Bumped(), g.Changed)
	// Output: true [spec.template.spec.containers[0].image]
}

func ExampleConditionObservation_Current() {
	o, _ := versions.Observe(map[string]any{
		"metadata": map[string]any{"generation": int64(5)},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "observedGeneration": int64(5)},
			map[string]any{"type": "Legacy"},
		}},
	})
	for _, c := range o.Conditions {
		fmt.Println(c.Type, c.Current(o.Generation))
	}
	// Output:
	// Ready true
	// Legacy false
}

func ExampleCheckPatch() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	stored := configMap("6b1f", "42")
	// {"metadata":{"uid":"other"}} applied: not a precondition for PATCH.
	d, err := versions.CheckPatch(s, stored, configMap("other", "42"))
	fmt.Println(d.Unconditional, err)
	_, err = versions.CheckPatch(s, stored, configMap("", "7"))
	fmt.Println(status.ReasonOf(err))
	// Output:
	// false <nil>
	// Conflict
}

// Example is the README tour: would kube-apiserver accept this update, and
// which generation would it store?
func Example() {
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	stored := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "generation": int64(1), "resourceVersion": "42"},
		"spec":     map[string]any{"replicas": int64(3)}}
	sent := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "resourceVersion": "41"},
		"spec":     map[string]any{"replicas": int64(5)}}

	if _, err := versions.CheckUpdate(s, stored, sent); err != nil {
		fmt.Println(status.CodeOf(err), err)
	}
	g, _ := versions.NextGeneration(s, stored, sent, "")
	fmt.Println(g)
	// Output:
	// 409 Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again
	// 1 -> 2: spec.replicas changed; Deployment bumps metadata.generation on any change to spec or metadata.annotations
}

func ExampleCheckCreate() {
	fmt.Println(versions.CheckCreate(configMap("", "5")))
	fmt.Println(versions.CheckCreate(configMap("", "0")))
	// Output:
	// resourceVersion should not be set on objects to be created
	// <nil>
}

func ExampleSemanticEqual() {
	stored := map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{"cpu": "0.5"}}}
	sent := map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{"cpu": "500m"}, "limits": map[string]any{}}}
	fmt.Println(versions.SemanticEqual(stored, sent))
	sent["resources"].(map[string]any)["requests"].(map[string]any)["cpu"] = "600m"
	fmt.Println(versions.SemanticEqual(stored, sent))
	// Output:
	// true
	// false
}

func ExampleCompareQuantity() {
	fmt.Println(versions.CompareQuantity("1Ki", "1024"))
	fmt.Println(versions.CompareQuantity("100m", "0.2"))
	fmt.Println(versions.CompareQuantity("1x", "1"))
	// Output:
	// 0 true
	// -1 true
	// 0 false
}
