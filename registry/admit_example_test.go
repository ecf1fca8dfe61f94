package registry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// defaultReplicas is a Go mutating plugin: replicas 1 when unset.
type defaultReplicas struct{}

func (defaultReplicas) Name() string { return "default-replicas" }

func (defaultReplicas) Admit(_ context.Context, a admission.Attributes) (map[string]any, error) {
	spec := a.Object["spec"].(map[string]any)
	if _, ok := spec["replicas"]; !ok {
		spec["replicas"] = int64(1)
	}
	return a.Object, nil
}

// A Go mutating plugin (a controller-runtime Defaulter in-process) and the registry's create
// steps with injected uid, time and name suffix around it.
func ExampleAdmit() {
	chain, _ := admission.New(admission.Config{Mutators: []admission.Mutator{defaultReplicas{}}})
	req := admission.Request{Operation: admission.Create,
		Kind:      schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource:  schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Namespace: "prod",
		Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"generateName": "web-", "namespace": "prod"}, "spec": map[string]any{}}}
	res, err := registry.Admit(context.Background(), chain, req, registry.AdmitOptions{SystemFields: true,
		Now:          time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		UID:          func() string { return "6a1c3f0e-0000-4000-8000-000000000001" },
		GenerateName: func(base string) string { return registry.GenerateName(base, func(n int) int { return 0 }) },
	})
	if err != nil {
		panic(err)
	}
	out, _ := codec.EncodeJSON(res.Object)
	fmt.Println(string(out))
	fmt.Println(res.Patches[0].Mutator, string(res.Patches[0].Patch))
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"creationTimestamp":"2026-01-01T00:00:00Z","generateName":"web-","name":"web-bbbbb","namespace":"prod","uid":"6a1c3f0e-0000-4000-8000-000000000001"},"spec":{"replicas":1}}
	// default-replicas [{"op":"add","path":"/spec/replicas","value":1}]
}
