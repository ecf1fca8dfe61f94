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

// BenchmarkList500 lists 500 ConfigMaps (200 bytes of data each, as internal/loadgen writes
// them) through a cluster on etcd: the request loadgen's list phase sends.
func BenchmarkList500(b *testing.B) {
	srv := etcdtest.Start(b)
	ctx := context.Background()
	store, err := etcd.New(etcd.Options{Endpoints: []string{srv.URL}, Prefix: "/bench"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	c, err := cluster.New(cluster.Options{Store: store})
	require.NoError(b, err)
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	do := func(method, path string, body any) registry.Response {
		var raw []byte
		if body != nil {
			raw, err = json.Marshal(body)
			require.NoError(b, err)
		}
		resp, err := c.Do(ctx, registry.Request{Method: method, Path: path, Body: raw, User: admin})
		require.NoError(b, err)
		return resp
	}
	require.Equal(b, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "lg"}}).Code)
	for i := range 500 {
		cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i)},
			"data": map[string]any{"a": strings.Repeat("x", 200), "i": fmt.Sprint(i)}}
		require.Equal(b, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces/lg/configmaps", cm).Code)
	}
	b.ResetTimer()
	for b.Loop() {
		resp := do(http.MethodGet, "/api/v1/namespaces/lg/configmaps", nil)
		if resp.Code != http.StatusOK || len(resp.Body) < 500*200 {
			b.Fatalf("list: %d %d bytes", resp.Code, len(resp.Body))
		}
	}
}

// BenchmarkList500HTTP is BenchmarkList500 through the cluster's HTTP handler.
func BenchmarkList500HTTP(b *testing.B) {
	srv := etcdtest.Start(b)
	ctx := context.Background()
	store, err := etcd.New(etcd.Options{Endpoints: []string{srv.URL}, Prefix: "/bench"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	c, err := cluster.New(cluster.Options{Store: store, Tokens: map[string]registry.User{"t": {Name: "admin", Groups: []string{"system:masters"}}}})
	require.NoError(b, err)
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	do := func(method, path string, body any) registry.Response {
		raw, err := json.Marshal(body)
		require.NoError(b, err)
		resp, err := c.Do(ctx, registry.Request{Method: method, Path: path, Body: raw, User: admin})
		require.NoError(b, err)
		return resp
	}
	require.Equal(b, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "lg"}}).Code)
	for i := range 500 {
		cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i)},
			"data": map[string]any{"a": strings.Repeat("x", 200), "i": fmt.Sprint(i)}}
		require.Equal(b, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces/lg/configmaps", cm).Code)
	}
	h := c.Handler()
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
