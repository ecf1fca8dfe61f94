package validation_test

import (
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

func ExampleValidate() {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pod := map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{
			"containers":                    []any{map[string]any{"name": "web", "image": "nginx", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}},
			"restartPolicy":                 "Sometimes",
			"dnsPolicy":                     "ClusterFirst",
			"terminationGracePeriodSeconds": int64(30),
		},
	}
	for _, err := range validation.Validate(gvk, pod, validation.Options{}) {
		fmt.Println(err)
	}
	// Output:
	// spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"
}

func ExampleWarnings() {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pod := map[string]any{"metadata": map[string]any{"name": "web.v1", "namespace": "default"}}
	fmt.Println(validation.Warnings(gvk, pod, nil, validation.Options{}))
	// Output:
	// [metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]]
}
