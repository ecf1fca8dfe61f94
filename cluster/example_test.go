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

// A rollout in a Go test: a Deployment written through Do has rolled out when Do returns (the
// Deployment and ReplicaSet controllers and the stand-in kubelet run after the write), and so
// has a new template; the controllers' Events are stored as kube-controller-manager's.
func ExampleCluster_rollout() {
	ctx := context.Background()
	c, _ := cluster.New(cluster.Options{Kubelet: cluster.PodsReady, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	do := func(method, path, contentType, body string) registry.Response {
		resp, _ := c.Do(ctx, registry.Request{Method: method, Path: path, ContentType: contentType, Body: []byte(body), User: cluster.Admin})
		return resp
	}
	do("POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	do("POST", "/apis/apps/v1/namespaces/demo/deployments", "", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
		"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`)
	do("PATCH", "/apis/apps/v1/namespaces/demo/deployments/web", "application/strategic-merge-patch+json",
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)

	d := do("GET", "/apis/apps/v1/namespaces/demo/deployments/web", "", "").Object
	st := d["status"].(map[string]any)
	fmt.Println("updated", st["updatedReplicas"], "available", st["availableReplicas"])
	for _, x := range st["conditions"].([]any) {
		cond := x.(map[string]any)
		fmt.Println(cond["type"], cond["status"], cond["reason"])
	}
	reasons := map[string]int{}
	for _, x := range do("GET", "/api/v1/namespaces/demo/events", "", "").Object["items"].([]any) {
		reasons[x.(map[string]any)["reason"].(string)]++
	}
	fmt.Println(reasons)
	// Output:
	// updated 3 available 3
	// Available True MinimumReplicasAvailable
	// Progressing True NewReplicaSetAvailable
	// map[ScalingReplicaSet:7 SuccessfulCreate:6 SuccessfulDelete:3]
}

// ResourceQuota in a Go test: the resource quota controller writes a new quota's status when
// the create returns, the ResourceQuota admission plugin charges each Pod and refuses the one
// past the limit, and a deleted Pod is given back.
func ExampleCluster_resourceQuota() {
	ctx := context.Background()
	c, _ := cluster.New(cluster.Options{Kubelet: cluster.PodsPending, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	do := func(method, path, body string) registry.Response {
		resp, _ := c.Do(ctx, registry.Request{Method: method, Path: path, Body: []byte(body), User: cluster.Admin})
		return resp
	}
	used := func() any {
		q := do("GET", "/api/v1/namespaces/demo/resourcequotas/pods", "")
		return q.Object["status"].(map[string]any)["used"]
	}
	do("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	do("POST", "/api/v1/namespaces/demo/resourcequotas", `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"pods"},"spec":{"hard":{"pods":"1"}}}`)
	fmt.Println(used())
	pod := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	}
	fmt.Println(do("POST", "/api/v1/namespaces/demo/pods", pod("a")).Code, used())
	fmt.Println(do("POST", "/api/v1/namespaces/demo/pods", pod("b")).Object["message"])
	do("DELETE", "/api/v1/namespaces/demo/pods/a?gracePeriodSeconds=0", "")
	fmt.Println(used())
	// Output:
	// map[pods:0]
	// 201 map[pods:1]
	// pods "b" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1
	// map[pods:0]
}
