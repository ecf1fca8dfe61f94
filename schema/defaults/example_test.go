package defaults_test

import (
	"encoding/json"
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// ExampleDefaultBuiltin defaults a minimal Deployment as kube-apiserver 1.37 does on create or
// after a server-side apply.
func ExampleBuiltin() {
	obj := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx", "resources": map[string]any{"limits": map[string]any{"cpu": "1000m", "memory": "1.5Gi"}}},
		}}}},
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	out, err := defaults.Builtin(gvk, obj, defaults.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := out["spec"].(map[string]any)
	for _, k := range []string{"replicas", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds"} {
		b, _ := json.Marshal(spec[k])
		fmt.Printf("%s: %s\n", k, b)
	}
	c, _ := json.Marshal(spec["template"].(map[string]any)["spec"].(map[string]any)["containers"])
	fmt.Println(string(c))
	// Output:
	// replicas: 1
	// strategy: {"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"}
	// revisionHistoryLimit: 10
	// progressDeadlineSeconds: 600
	// [{"image":"nginx","imagePullPolicy":"Always","name":"app","resources":{"limits":{"cpu":"1","memory":"1536Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]
}

// ExampleKind_Zero shows the live object the apiserver's field manager compares a create with.
func ExampleZero() {
	k, _ := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	zero, _ := defaults.Zero(k)
	b, _ := json.Marshal(zero)
	fmt.Println(string(b))
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{},"spec":{"selector":null,"strategy":{},"template":{"metadata":{},"spec":{"containers":null}}},"status":{}}
}
