package etcd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/storage/etcd"
	"github.com/writepath/writepath/storage/etcd/internal/etcdtest"
)

// list500 is a cluster on a fresh etcd holding 500 ConfigMaps in namespace lg (200 bytes of data
// each, as internal/loadgen writes them), with bearer token "t" for the admin.
func list500(b *testing.B) *cluster.Cluster {
	srv := etcdtest.Start(b)
	ctx := context.Background()
	store, err := etcd.New(etcd.Options{Endpoints: []string{srv.URL}, Prefix: "/bench"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	c, err := cluster.New(cluster.Options{Store: store, Tokens: map[string]registry.User{"t": benchAdmin}})
	require.NoError(b, err)
	post := func(path string, body any) {
		raw, err := json.Marshal(body)
		require.NoError(b, err)
		resp, err := c.Do(ctx, registry.Request{Method: http.MethodPost, Path: path, Body: raw, User: benchAdmin})
		require.NoError(b, err)
		require.Equal(b, http.StatusCreated, resp.Code, string(resp.Body))
	}
	post("/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "lg"}})
	for i := range 500 {
		post("/api/v1/namespaces/lg/configmaps", map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i)},
			"data":     map[string]any{"a": strings.Repeat("x", 200), "i": fmt.Sprint(i)}})
	}
	return c
}

var benchAdmin = registry.User{Name: "admin", Groups: []string{"system:masters"}}

// BenchmarkList500 lists the 500 ConfigMaps of list500 through Cluster.Do: the request
// loadgen's list phase sends.
func BenchmarkList500(b *testing.B) {
	c := list500(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Do(ctx, registry.Request{Method: http.MethodGet, Path: "/api/v1/namespaces/lg/configmaps", User: benchAdmin})
		if err != nil || resp.Code != http.StatusOK || len(resp.Body) < 500*200 {
			b.Fatalf("list: %v %d %d bytes", err, resp.Code, len(resp.Body))
		}
	}
}

// BenchmarkList500HTTP is BenchmarkList500 through the cluster's HTTP handler.
func BenchmarkList500HTTP(b *testing.B) {
	h := list500(b).Handler()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/lg/configmaps", nil)
		req.Header.Set("Authorization", "Bearer t")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.Len() < 500*200 {
			b.Fatalf("list: %d %d bytes", rec.Code, rec.Body.Len())
		}
	}
}
