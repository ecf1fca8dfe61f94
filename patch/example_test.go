package patch_test

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/patch"
)

func ExampleApplyJSONPatch() {
	live := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web"},
		"spec":     map[string]any{"replicas": int64(1), "args": []any{"a", "b", "c"}},
	}
	res, err := patch.ApplyJSONPatch(live, []byte(`[
		{"op": "replace", "path": "/spec/replicas", "value": 3},
		{"op": "remove", "path": "/spec/args/-1"},
		{"op": "replace", "path": "/metadata/labels", "value": {"app": "web"}}
	]`), patch.Options{})
	if err != nil {
		panic(err)
	}
	spec := res.Object["spec"].(map[string]any)
	fmt.Println(spec["replicas"], spec["args"], res.Object["metadata"])

	_, err = patch.ApplyJSONPatch(live, []byte(`[{"op": "test", "path": "/spec/replicas", "value": 2}]`), patch.Options{})
	var pe *patch.Error
	if errors.As(err, &pe) {
		fmt.Println(pe.StatusCode(), pe.Reason(), pe.Error())
		fmt.Println(pe.Cause, errors.Is(err, patch.ErrTestFailed))
	}
	// Output:
	// 3 [a b] map[labels:map[app:web] name:web]
	// 422 Invalid the server rejected our request due to an error in our request
	// testing value /spec/replicas failed: test failed true
}

func ExampleCreateJSONPatch() {
	before := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx:1"}}},
	}
	after := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "injected": "true"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:2"},
			map[string]any{"name": "sidecar", "image": "envoy"},
		}},
	}
	ops, err := patch.CreateJSONPatch(before, after)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(ops))
	// Output:
	// [{"op":"add","path":"/metadata/labels/injected","value":"true"},{"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"},{"op":"add","path":"/spec/containers/1","value":{"image":"envoy","name":"sidecar"}}]
}

func ExampleApplyRFC6902() {
	_, err := patch.ApplyRFC6902([]byte(`{"a":[1,2]}`), []byte(`[{"op":"remove","path":"/a/-1"}]`), patch.Options{})
	fmt.Println(err != nil)
	out, _ := patch.ApplyRFC6902([]byte(`{"a":[1,2]}`), []byte(`[{"op":"add","path":"","value":{"b":1}}]`), patch.Options{})
	fmt.Println(string(out))
	// Output:
	// true
	// {"b":1}
}
