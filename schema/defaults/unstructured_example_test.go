package defaults_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// ExampleDefaultBuiltin_unstructured reads numbers as the apiserver's field manager reads the
// object a server-side apply merged: an int32 field beyond its range wraps where a PUT body
// would be refused, a fraction is an error.
func ExampleBuiltin_unstructured() {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	for _, replicas := range []any{int64(4294967297), int64(2147483648), 1e3, 2.5} {
		obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": replicas}}
		out, err := defaults.Builtin(gvk, obj, defaults.Options{Unstructured: true})
		if err != nil {
			fmt.Println(err)
			continue
		}
		_, jsonErr := defaults.Builtin(gvk, obj, defaults.Options{})
		fmt.Printf("%v -> %v (JSON decoder refuses it: %t)\n", replicas, out["spec"].(map[string]any)["replicas"], jsonErr != nil)
	}
	// Output:
	// 4294967297 -> 1 (JSON decoder refuses it: true)
	// 2147483648 -> -2147483648 (JSON decoder refuses it: true)
	// 1000 -> 1000 (JSON decoder refuses it: false)
	// spec.replicas: Invalid value: 2.5: cannot convert float64 to int32
}
