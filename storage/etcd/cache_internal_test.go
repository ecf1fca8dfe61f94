package etcd

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/storage/etcd/internal/etcdtest"
)

// TestConsistentListFromCache: a list of the current state is served from the watch cache and
// is still linearizable: it sees every write another store made on the same etcd just before
// (the cache is awaited until it reaches etcd's current revision), and a write outside the
// store's prefix, which no event of its watch reports, moves the list's revision through a
// progress notification instead of sending the list to etcd.
func TestConsistentListFromCache(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx := context.Background()
	open := func(prefix string) *Store {
		s, err := New(Options{Endpoints: []string{srv.URL}, Prefix: prefix})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b, elsewhere := open("/p"), open("/p"), open("/q")
	require.Eventually(t, func() bool { _, ok := a.Cached(); return ok }, 10*time.Second, 10*time.Millisecond)
	before := a.etcdLists.Load()
	prefix := cluster.Prefix{Resource: "configmaps", Namespace: "demo"}
	for i := range 40 {
		k := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: fmt.Sprintf("cm-%02d", i)}
		rev, err := b.Write(ctx, cluster.Write{Key: k, Value: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": k.Name, "namespace": "demo"}}})
		require.NoError(t, err)
		l, err := a.List(ctx, cluster.ListRequest{Prefix: prefix})
		require.NoError(t, err)
		require.Len(t, l.Items, i+1, "the list after write %d", i)
		assert.GreaterOrEqual(t, l.Revision, rev)
		last := l.Items[i]
		assert.Equal(t, k, last.Key)
		assert.Equal(t, rev, last.ModRevision)
		assert.Equal(t, fmt.Sprint(rev), last.Value["metadata"].(map[string]any)["resourceVersion"])

		other, err := elsewhere.Write(ctx, cluster.Write{Key: cluster.Key{Resource: "secrets", Namespace: "x", Name: k.Name},
			Value: map[string]any{"metadata": map[string]any{"name": k.Name}}})
		require.NoError(t, err)
		l, err = a.List(ctx, cluster.ListRequest{Prefix: prefix})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, l.Revision, other, "a write outside the prefix moved etcd's revision")
	}
	assert.Equal(t, before, a.etcdLists.Load(), "lists of the current state read etcd instead of the cache")

	// Pages from the cache: limit, after, remaining, as etcd's range answers them.
	page, err := a.List(ctx, cluster.ListRequest{Prefix: prefix, Limit: 15})
	require.NoError(t, err)
	direct, err := a.etcdList(ctx, cluster.ListRequest{Prefix: prefix, Limit: 15})
	require.NoError(t, err)
	assert.Equal(t, direct.Items, page.Items)
	assert.Equal(t, direct.More, page.More)
	assert.Equal(t, direct.Remaining, page.Remaining)
	after := page.Items[len(page.Items)-1].Key
	page, err = a.List(ctx, cluster.ListRequest{Prefix: prefix, After: &after, Limit: 100})
	require.NoError(t, err)
	direct, err = a.etcdList(ctx, cluster.ListRequest{Prefix: prefix, After: &after, Limit: 100})
	require.NoError(t, err)
	assert.Equal(t, direct.Items, page.Items)
	assert.False(t, page.More)

	// Reads hand out fresh copies: changing one does not change the next.
	page.Items[0].Value["metadata"].(map[string]any)["name"] = "changed"
	again, err := a.List(ctx, cluster.ListRequest{Prefix: prefix, After: &after, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, page.Items[0].Key.Name, again.Items[0].Value["metadata"].(map[string]any)["name"])
}
