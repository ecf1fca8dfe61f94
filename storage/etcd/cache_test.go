package etcd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/storage/etcd"
	"github.com/writepath/writepath/storage/etcd/internal/etcdtest"
)

// TestConcurrentWritesThroughCache sends creates and updates from several goroutines into one
// cluster on etcd (requests run concurrently, first answered over the store's cache) while
// another store on the same etcd writes the same objects behind the cache's back: every write is
// answered, none is lost, and an update carrying the resourceVersion the other writer got is
// accepted at once (the stale cached answer, a 409, is given again over etcd).
func TestConcurrentWritesThroughCache(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx := context.Background()
	open := func() *etcd.Store {
		s, err := etcd.New(etcd.Options{Endpoints: []string{srv.URL}, Prefix: "/cache-test"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	store, other := open(), open()
	c, err := cluster.New(cluster.Options{Store: store})
	require.NoError(t, err)
	do := func(method, path string, body any) registry.Response {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		resp, err := c.Do(ctx, registry.Request{Method: method, Path: path, Body: b, User: registry.User{Name: "admin", Groups: []string{"system:masters"}}})
		require.NoError(t, err)
		return resp
	}
	ns := do(http.MethodPost, "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}})
	require.Equal(t, http.StatusCreated, ns.Code, string(ns.Body))

	const workers, each = 4, 10
	var wg sync.WaitGroup
	codes := make(chan string, workers*each*2)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("cm-%d-%d", w, i)
				cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]any{"n": "0"}}
				resp := do(http.MethodPost, "/api/v1/namespaces/demo/configmaps", cm)
				codes <- fmt.Sprintf("create %s %d", name, resp.Code)
				// Another writer changes it behind this cluster's back.
				o, err := other.Get(ctx, cluster.Key{Resource: "configmaps", Namespace: "demo", Name: name})
				if err != nil {
					codes <- "get " + err.Error()
					continue
				}
				v := o.Value
				v["data"] = map[string]any{"n": "1"}
				rev, err := other.Write(ctx, cluster.Write{Key: o.Key, Value: v, ModRevision: o.ModRevision})
				if err != nil {
					codes <- "write " + err.Error()
					continue
				}
				cm["metadata"] = map[string]any{"name": name, "resourceVersion": fmt.Sprint(rev)}
				cm["data"] = map[string]any{"n": "2"}
				resp = do(http.MethodPut, "/api/v1/namespaces/demo/configmaps/"+name, cm)
				codes <- fmt.Sprintf("update %s %d", name, resp.Code)
			}
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		assert.Regexp(t, `^(create \S+ 201|update \S+ 200)$`, code)
	}
	l, err := store.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps", Namespace: "demo"}})
	require.NoError(t, err)
	assert.Len(t, l.Items, workers*each)
	for _, o := range l.Items {
		assert.Equal(t, map[string]any{"n": "2"}, o.Value["data"], o.Key.Name)
	}
}
