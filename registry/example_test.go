package registry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/writepath/writepath/registry"
)

// A strategic merge patch that sets a Deployment's replicas to a string is refused as the
// apiserver refuses it; a valid one bumps the generation.
func ExampleHandle() {
	w, _ := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	send := func(method, path, contentType, body string) registry.Response {
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{
			Method: method, Path: path, ContentType: contentType, Body: []byte(body), Now: now})
		if err != nil {
			panic(err)
		}
		_ = w.Apply(writes)
		return resp
	}
	resp := send("POST", "/apis/apps/v1/namespaces/demo/deployments?fieldManager=kubectl", "application/json",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1,"bogus":true,
		  "selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
		  "spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	fmt.Println(resp.Code, resp.Warnings)

	resp = send("PATCH", "/apis/apps/v1/namespaces/demo/deployments/web?fieldValidation=Strict", "application/merge-patch+json",
		`{"spec":{"replicas":"five"}}`)
	fmt.Println(resp.Code, resp.Object["reason"])

	resp = send("PATCH", "/apis/apps/v1/namespaces/demo/deployments/web", "application/strategic-merge-patch+json",
		`{"spec":{"replicas":3}}`)
	md := resp.Object["metadata"].(map[string]any)
	fmt.Println(resp.Code, md["generation"], md["resourceVersion"])
	// Output:
	// 201 [299 - "unknown field \"spec.bogus\""]
	// 422 Invalid
	// 200 2 2
}

// A stored custom resource in the version a watch asks for: by the CRD's conversion webhook
// (a Converter), or with apiVersion rewritten for strategy None (nil).
func ExampleCustomResourceInVersion() {
	stored := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "a", "resourceVersion": "7"}, "spec": map[string]any{"size": int64(3)}}
	out, err := registry.CustomResourceInVersion(nil, stored, "example.com/v1beta1")
	if err != nil {
		panic(err)
	}
	fmt.Println(out["apiVersion"], out["spec"], stored["apiVersion"])
	// Output: example.com/v1beta1 map[size:3] example.com/v1
}
