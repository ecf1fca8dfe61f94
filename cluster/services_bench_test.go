package cluster_test

import (
	"context"
	"testing"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// BenchmarkServiceCreate: a Service create in a cluster holding a hundred Services (each
// allocation reads the Services, IPAddresses and ServiceCIDRs and creates an IPAddress), then
// its deletion (releasing it), so that the range never fills.
func BenchmarkServiceCreate(b *testing.B) {
	c, err := cluster.New(cluster.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Bootstrap(ctx); err != nil {
		b.Fatal(err)
	}
	send := func(method, path, body string) registry.Response {
		resp, err := c.Do(ctx, registry.Request{Method: method, Path: path, Body: []byte(body), User: cluster.Admin, UserAgent: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	for i := 0; i < 100; i++ {
		if r := send("POST", "/api/v1/namespaces/default/services", `{"apiVersion":"v1","kind":"Service","metadata":{"generateName":"s-"},"spec":{"ports":[{"port":80}]}}`); r.Code != 201 {
			b.Fatal(string(r.Body))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := send("POST", "/api/v1/namespaces/default/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"bench"},"spec":{"ports":[{"port":80}]}}`); r.Code != 201 {
			b.Fatal(string(r.Body))
		}
		if r := send("DELETE", "/api/v1/namespaces/default/services/bench", ""); r.Code != 200 {
			b.Fatal(string(r.Body))
		}
	}
}
