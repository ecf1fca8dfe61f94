package cluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// A cluster in a Go test: requests through Do (or over HTTPS with StartTLS and its kubeconfig),
// the garbage collector run after each write.
func ExampleCluster() {
	ctx := context.Background()
	c, _ := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	post := func(path, body string) registry.Response {
		resp, _ := c.Do(ctx, registry.Request{Method: "POST", Path: path, Body: []byte(body), User: cluster.Admin})
		return resp
	}
	post("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	owner := post("/api/v1/namespaces/demo/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	uid := owner.Object["metadata"].(map[string]any)["uid"]
	dep := post("/api/v1/namespaces/demo/configmaps", fmt.Sprintf(
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q}]}}`, uid))
	// resourceVersion 4: the namespace, its "default" ServiceAccount (the service account
	// controller), the owner, the dependent.
	fmt.Println(dep.Code, dep.Object["metadata"].(map[string]any)["resourceVersion"])

	del, _ := c.Do(ctx, registry.Request{Method: "DELETE", Path: "/api/v1/namespaces/demo/configmaps/owner", User: cluster.Admin})
	fmt.Println(del.Code)
	get, _ := c.Do(ctx, registry.Request{Method: "GET", Path: "/api/v1/namespaces/demo/configmaps/dependent", User: cluster.Admin})
	fmt.Println(get.Code, get.Object["message"])
	// Output:
	// 201 4
	// 200
	// 404 configmaps "dependent" not found
}
