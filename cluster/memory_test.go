package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/cluster/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) cluster.Store { return cluster.NewMemoryStore(cluster.MemoryOptions{}) })
}

func configMap(name string, data string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "demo"}, "data": map[string]any{"v": data}}
}

// A watch or a list from before the kept history is too old; from inside it, it works, and it
// still sees the versions the compacted revision saw.
func TestMemoryStoreCompaction(t *testing.T) {
	ctx := context.Background()
	s := cluster.NewMemoryStore(cluster.MemoryOptions{History: 10})
	k := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: "hot"}
	rev, err := s.Write(ctx, cluster.Write{Key: k, Value: configMap("hot", "0")})
	require.NoError(t, err)
	steady := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: "steady"}
	_, err = s.Write(ctx, cluster.Write{Key: steady, Value: configMap("steady", "s")})
	require.NoError(t, err)
	gone := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: "gone"}
	grev, err := s.Write(ctx, cluster.Write{Key: gone, Value: configMap("gone", "g")})
	require.NoError(t, err)
	_, err = s.Write(ctx, cluster.Write{Key: gone, ModRevision: grev})
	require.NoError(t, err)
	for i := 1; i <= 40; i++ {
		rev, err = s.Write(ctx, cluster.Write{Key: k, Value: configMap("hot", fmt.Sprint(i)), ModRevision: rev})
		require.NoError(t, err)
	}

	_, err = s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, 1)
	var tooOld *cluster.TooOldError
	require.ErrorAs(t, err, &tooOld)
	assert.Equal(t, int64(1), tooOld.Revision)
	assert.Greater(t, tooOld.Oldest, int64(1))
	assert.Equal(t, fmt.Sprintf("too old resource version: 1 (%d)", tooOld.Oldest), err.Error())
	_, err = s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Revision: 2})
	assert.ErrorAs(t, err, &tooOld, "a list at a compacted revision")

	cur, _ := s.Revision(ctx)
	assert.LessOrEqual(t, cur-tooOld.Oldest, int64(20), "at most 2×History revisions are kept")
	w, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, cur-10)
	require.NoError(t, err, "a watch inside the last History revisions")
	w.Stop()

	at := tooOld.Oldest
	l, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Revision: at})
	require.NoError(t, err)
	require.Len(t, l.Items, 2, "the deleted key is gone, the steady one kept although untouched")
	assert.Equal(t, "hot", l.Items[0].Key.Name)
	assert.Equal(t, fmt.Sprint(at-4), l.Items[0].Value["data"].(map[string]any)["v"], "the hot key as of the compacted revision")
	assert.Equal(t, "steady", l.Items[1].Key.Name)

	// The deleted key's name can be created again after its tombstone was compacted away.
	_, err = s.Write(ctx, cluster.Write{Key: gone, Value: configMap("gone", "again")})
	require.NoError(t, err)
	l, err = s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}})
	require.NoError(t, err)
	assert.Len(t, l.Items, 3)
}

// A watcher that never reads is closed once its buffer is full; writers never wait for it, and
// other watchers keep every event.
func TestMemoryStoreSlowWatcher(t *testing.T) {
	ctx := context.Background()
	s := cluster.NewMemoryStore(cluster.MemoryOptions{WatchBuffer: 5})
	slow, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, 0)
	require.NoError(t, err)
	fast, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, 0)
	require.NoError(t, err)
	defer fast.Stop()
	// The fast reader takes each event before the next write, so its buffer never fills.
	for i := 0; i < 100; i++ {
		_, err := s.Write(ctx, cluster.Write{Key: cluster.Key{Resource: "configmaps", Namespace: "demo", Name: fmt.Sprint(i)}, Value: configMap(fmt.Sprint(i), "x")})
		require.NoError(t, err)
		select {
		case ev, open := <-fast.Events():
			require.True(t, open, "the fast watcher stays open: %v", fast.Err())
			assert.Equal(t, fmt.Sprint(i), ev.Key.Name)
		case <-time.After(10 * time.Second):
			t.Fatal("the fast watcher did not get its event")
		}
	}
	n := 0
	for range slow.Events() {
		n++
	}
	assert.Equal(t, 5, n, "the slow watcher got its buffer's worth, then its channel closed")
	assert.ErrorIs(t, slow.Err(), cluster.ErrWatcherTooSlow)
}

func ExampleNewMemoryStore() {
	ctx := context.Background()
	s := cluster.NewMemoryStore(cluster.MemoryOptions{})
	key := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: "app"}
	rev, _ := s.Write(ctx, cluster.Write{Key: key, Value: configMap("app", "1")})
	got, _ := s.Get(ctx, key)
	fmt.Println(rev, got.Value["metadata"].(map[string]any)["resourceVersion"])

	_, err := s.Write(ctx, cluster.Write{Key: key, Value: configMap("app", "2"), ModRevision: rev + 1})
	fmt.Println(err)
	rev, _ = s.Write(ctx, cluster.Write{Key: key, Value: configMap("app", "2"), ModRevision: rev})
	fmt.Println(rev)
	// Output:
	// 1 1
	// conflict on /configmaps/demo/app: expected revision 2, stored 1
	// 2
}
