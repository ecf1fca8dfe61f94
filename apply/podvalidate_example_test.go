package apply_test

import (
	"fmt"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
)

// A resize through /resize: the strategy keeps only the containers' resources (and bumps the
// generation), then validation refuses a write that would remove a limit.
func ExampleStrategyValidation() {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	container := func(res map[string]any) map[string]any {
		return map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": res}
	}
	live := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "generation": int64(1)},
		"spec": map[string]any{"containers": []any{container(map[string]any{
			"requests": map[string]any{"cpu": "100m"}, "limits": map[string]any{"cpu": "200m"}})}},
		"status": map[string]any{"phase": "Pending", "qosClass": "Burstable"}}
	resize := func(res map[string]any) error {
		obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web", "generation": int64(1)},
			"spec": map[string]any{"containers": []any{container(res)}}}
		apply.StrategyReset(pod, "resize")(obj, live)
		fmt.Println("generation", obj["metadata"].(map[string]any)["generation"])
		return apply.StrategyValidation(pod, "resize")(obj, live)
	}
	fmt.Println(resize(map[string]any{"requests": map[string]any{"cpu": "150m"}, "limits": map[string]any{"cpu": "300m"}}))
	fmt.Println(resize(map[string]any{"requests": map[string]any{"cpu": "150m"}}))
	// Output:
	// generation 2
	// <nil>
	// generation 2
	// Pod "web" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed
}
