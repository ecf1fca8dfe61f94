package registry_test

import (
	"context"
	"fmt"

	"github.com/writepath/writepath/registry"
)

// The LimitRanger admission plugin: a namespace's LimitRange gives a Pod's containers the
// default requests and limits they lack, says so in an annotation, and refuses a container
// below its minimum.
func ExampleHandle_limitRanger() {
	w, _ := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	send := func(path, body string) registry.Response {
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{
			Method: "POST", Path: path, ContentType: "application/json", Body: []byte(body)})
		if err != nil {
			panic(err)
		}
		_ = w.Apply(writes)
		return resp
	}
	send("/api/v1/namespaces/demo/limitranges", `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"limits"},
		"spec":{"limits":[{"type":"Container","default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m"},"min":{"cpu":"50m"}}]}}`)

	resp := send("/api/v1/namespaces/demo/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
		"spec":{"containers":[{"name":"web","image":"nginx"}]}}`)
	c := resp.Object["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	fmt.Println(resp.Code, c["resources"])
	fmt.Println(resp.Object["metadata"].(map[string]any)["annotations"])

	resp = send("/api/v1/namespaces/demo/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"small"},
		"spec":{"containers":[{"name":"web","image":"nginx","resources":{"requests":{"cpu":"10m"}}}]}}`)
	fmt.Println(resp.Code, resp.Object["message"])
	// Output:
	// 201 map[limits:map[cpu:500m] requests:map[cpu:100m]]
	// map[kubernetes.io/limit-ranger:LimitRanger plugin set: cpu request for container web; cpu limit for container web]
	// 403 pods "small" is forbidden: minimum cpu usage per Container is 50m, but request is 10m
}
