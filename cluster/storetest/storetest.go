package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// Run runs the suite against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) cluster.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s cluster.Store)
	}{
		{"CreateGetUpdateDelete", createGetUpdateDelete},
		{"Preconditions", preconditions},
		{"NoSharedMaps", noSharedMaps},
		{"ListOrderAndNamespaces", listOrderAndNamespaces},
		{"ListAtRevisionAndPages", listAtRevisionAndPages},
		{"WatchBacklogAndLive", watchBacklogAndLive},
		{"WatchStop", watchStop},
		{"ConcurrentUpdatesLoseNothing", concurrentUpdates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

var ctx = context.Background()

func cm(ns, name string, data map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
}

func key(ns, name string) cluster.Key {
	return cluster.Key{Resource: "configmaps", Namespace: ns, Name: name}
}

func rvOf(t *testing.T, obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	return rv
}

func createGetUpdateDelete(t *testing.T, s cluster.Store) {
	r0, err := s.Revision(ctx)
	require.NoError(t, err)

	rev, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", map[string]any{"k": "1"})})
	require.NoError(t, err)
	assert.Greater(t, rev, r0, "a write takes a revision after the current one")

	got, err := s.Get(ctx, key("demo", "a"))
	require.NoError(t, err)
	assert.Equal(t, rev, got.ModRevision)
	assert.Equal(t, strconv.FormatInt(rev, 10), rvOf(t, got.Value), "metadata.resourceVersion is the mod revision")
	assert.Equal(t, map[string]any{"k": "1"}, got.Value["data"])

	rev2, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", map[string]any{"k": "2"}), ModRevision: rev})
	require.NoError(t, err)
	assert.Greater(t, rev2, rev)
	got, err = s.Get(ctx, key("demo", "a"))
	require.NoError(t, err)
	assert.Equal(t, "2", got.Value["data"].(map[string]any)["k"])

	rev3, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), ModRevision: rev2})
	require.NoError(t, err)
	assert.Greater(t, rev3, rev2)
	_, err = s.Get(ctx, key("demo", "a"))
	var nf *cluster.NotFoundError
	assert.ErrorAs(t, err, &nf, "a deleted key is not found")

	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), ModRevision: cluster.AnyRevision})
	assert.ErrorAs(t, err, &nf, "deleting a missing key is not found")

	// A key can be created again after its delete.
	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil)})
	require.NoError(t, err)
	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev3+1, cur, "the in-order revisions: create, update, delete, create")
}

func preconditions(t *testing.T, s cluster.Store) {
	rev, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil)})
	require.NoError(t, err)

	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil)})
	var conflict *cluster.ConflictError
	require.ErrorAs(t, err, &conflict, "a create of an existing key")
	assert.True(t, conflict.Exists())
	assert.Equal(t, rev, conflict.ModRevision)

	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil), ModRevision: rev + 100})
	require.ErrorAs(t, err, &conflict, "an update at a stale revision")
	assert.False(t, conflict.Exists())

	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "b"), Value: cm("demo", "b", nil), ModRevision: 7})
	require.ErrorAs(t, err, &conflict, "an update of a missing key")
	assert.Equal(t, int64(0), conflict.ModRevision)

	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", map[string]any{"x": "y"}), ModRevision: cluster.AnyRevision})
	assert.NoError(t, err, "AnyRevision skips the compare")

	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev+1, cur, "failed writes take no revision")
}

func noSharedMaps(t *testing.T, s cluster.Store) {
	in := cm("demo", "a", map[string]any{"k": "v"})
	_, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: in})
	require.NoError(t, err)
	assert.Equal(t, cm("demo", "a", map[string]any{"k": "v"}), in, "Write does not change its input")

	in["data"].(map[string]any)["k"] = "changed by the caller"
	got, err := s.Get(ctx, key("demo", "a"))
	require.NoError(t, err)
	assert.Equal(t, "v", got.Value["data"].(map[string]any)["k"], "the store kept its own copy")

	got.Value["data"].(map[string]any)["k"] = "changed by a reader"
	again, err := s.Get(ctx, key("demo", "a"))
	require.NoError(t, err)
	assert.Equal(t, "v", again.Value["data"].(map[string]any)["k"], "Get returns a fresh copy")

	l, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	l.Items[0].Value["data"].(map[string]any)["k"] = "changed by a lister"
	again, err = s.Get(ctx, key("demo", "a"))
	require.NoError(t, err)
	assert.Equal(t, "v", again.Value["data"].(map[string]any)["k"], "List returns fresh copies")
}

func names(items []cluster.Object) []string {
	out := make([]string, len(items))
	for i, o := range items {
		out[i] = o.Key.Namespace + "/" + o.Key.Name
	}
	return out
}

func listOrderAndNamespaces(t *testing.T, s cluster.Store) {
	// Written out of order; "a-b" sorts before "a" because etcd compares "a-b/..." with "a/...".
	for _, k := range []cluster.Key{key("a", "z"), key("a-b", "x"), key("a", "m"), key("b", "a"), key("a", "a")} {
		_, err := s.Write(ctx, cluster.Write{Key: k, Value: cm(k.Namespace, k.Name, nil)})
		require.NoError(t, err)
	}
	_, err := s.Write(ctx, cluster.Write{Key: cluster.Key{Resource: "secrets", Namespace: "a", Name: "s"}, Value: cm("a", "s", nil)})
	require.NoError(t, err)
	_, err = s.Write(ctx, cluster.Write{Key: cluster.Key{Group: "apps", Resource: "configmaps", Namespace: "a", Name: "g"}, Value: cm("a", "g", nil)})
	require.NoError(t, err)

	all, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a-b/x", "a/a", "a/m", "a/z", "b/a"}, names(all.Items), "etcd key order, one resource only")

	inA, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps", Namespace: "a"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a/a", "a/m", "a/z"}, names(inA.Items))

	none, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps", Namespace: "c"}})
	require.NoError(t, err)
	assert.Empty(t, none.Items)
	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	assert.Equal(t, cur, none.Revision, "a list is read at the current revision")

	cluster1 := []cluster.Key{{Resource: "namespaces", Name: "b"}, {Resource: "namespaces", Name: "a"}}
	for _, k := range cluster1 {
		_, err := s.Write(ctx, cluster.Write{Key: k, Value: map[string]any{"metadata": map[string]any{"name": k.Name}}})
		require.NoError(t, err)
	}
	nss, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "namespaces"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"/a", "/b"}, names(nss.Items))
}

func listAtRevisionAndPages(t *testing.T, s cluster.Store) {
	var revs []int64
	for i := 0; i < 5; i++ {
		rev, err := s.Write(ctx, cluster.Write{Key: key("demo", fmt.Sprintf("cm-%d", i)), Value: cm("demo", fmt.Sprintf("cm-%d", i), nil)})
		require.NoError(t, err)
		revs = append(revs, rev)
	}
	_, err := s.Write(ctx, cluster.Write{Key: key("demo", "cm-1"), ModRevision: revs[1]})
	require.NoError(t, err)

	now, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"demo/cm-0", "demo/cm-2", "demo/cm-3", "demo/cm-4"}, names(now.Items))

	then, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Revision: revs[2]})
	require.NoError(t, err)
	assert.Equal(t, []string{"demo/cm-0", "demo/cm-1", "demo/cm-2"}, names(then.Items), "a list at a past revision sees that revision's objects")
	assert.Equal(t, revs[2], then.Revision)

	page1, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"demo/cm-0", "demo/cm-2"}, names(page1.Items))
	assert.True(t, page1.More)
	assert.Equal(t, int64(2), page1.Remaining)

	// A write between pages does not change what the next page sees: it is read at page 1's revision.
	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "cm-5"), Value: cm("demo", "cm-5", nil)})
	require.NoError(t, err)
	last := page1.Items[len(page1.Items)-1].Key
	page2, err := s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Limit: 2, After: &last, Revision: page1.Revision})
	require.NoError(t, err)
	assert.Equal(t, []string{"demo/cm-3", "demo/cm-4"}, names(page2.Items))
	assert.False(t, page2.More)
	assert.Equal(t, int64(0), page2.Remaining)

	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	_, err = s.List(ctx, cluster.ListRequest{Prefix: cluster.Prefix{Resource: "configmaps"}, Revision: cur + 10})
	var future *cluster.FutureRevisionError
	assert.ErrorAs(t, err, &future)
}

func receive(t *testing.T, w cluster.Watcher, n int) []cluster.Event {
	var out []cluster.Event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch closed after %d of %d events: %v", len(out), n, w.Err())
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("got %d of %d events", len(out), n)
		}
	}
	return out
}

func types(evs []cluster.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.Type) + " " + ev.Key.Namespace + "/" + ev.Key.Name + " " + strconv.FormatInt(ev.Revision, 10)
	}
	return out
}

func watchBacklogAndLive(t *testing.T, s cluster.Store) {
	// A first write elsewhere, so that r1-1 is a revision (a watch from 0 starts now).
	_, err := s.Write(ctx, cluster.Write{Key: cluster.Key{Resource: "secrets", Namespace: "demo", Name: "first"}, Value: cm("demo", "first", nil)})
	require.NoError(t, err)
	r1, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil)})
	require.NoError(t, err)
	r2, err := s.Write(ctx, cluster.Write{Key: key("other", "b"), Value: cm("other", "b", nil)})
	require.NoError(t, err)
	r3, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", map[string]any{"k": "v"}), ModRevision: r1})
	require.NoError(t, err)

	all, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, r1)
	require.NoError(t, err)
	defer all.Stop()
	demo, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps", Namespace: "demo"}, r1-1)
	require.NoError(t, err)
	defer demo.Stop()

	r4, err := s.Write(ctx, cluster.Write{Key: key("demo", "a"), ModRevision: r3})
	require.NoError(t, err)
	_, err = s.Write(ctx, cluster.Write{Key: cluster.Key{Resource: "secrets", Namespace: "demo", Name: "s"}, Value: cm("demo", "s", nil)})
	require.NoError(t, err)

	got := receive(t, all, 3)
	assert.Equal(t, []string{
		"ADDED other/b " + strconv.FormatInt(r2, 10),
		"MODIFIED demo/a " + strconv.FormatInt(r3, 10),
		"DELETED demo/a " + strconv.FormatInt(r4, 10),
	}, types(got), "events after the start revision, backlog then live, one resource")
	assert.Equal(t, strconv.FormatInt(r4, 10), rvOf(t, got[2].Value), "a deleted object carries the delete's revision")
	assert.Equal(t, map[string]any{"k": "v"}, got[2].Value["data"], "a deleted object is the last stored state")

	gotDemo := receive(t, demo, 3)
	assert.Equal(t, []string{
		"ADDED demo/a " + strconv.FormatInt(r1, 10),
		"MODIFIED demo/a " + strconv.FormatInt(r3, 10),
		"DELETED demo/a " + strconv.FormatInt(r4, 10),
	}, types(gotDemo), "a namespaced watch")

	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	_, err = s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, cur+5)
	var future *cluster.FutureRevisionError
	assert.ErrorAs(t, err, &future)
}

func watchStop(t *testing.T, s cluster.Store) {
	w, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, 0)
	require.NoError(t, err)
	w.Stop()
	w.Stop() // twice is fine
	_, open := <-w.Events()
	assert.False(t, open, "Stop closes the channel")
	assert.NoError(t, w.Err())
	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "a"), Value: cm("demo", "a", nil)})
	assert.NoError(t, err, "writes go on after a watcher stops")

	cctx, cancel := context.WithCancel(ctx)
	w2, err := s.Watch(cctx, cluster.Prefix{Resource: "configmaps"}, 0)
	require.NoError(t, err)
	cancel()
	select {
	case _, open := <-w2.Events():
		assert.False(t, open, "a cancelled context ends the watch")
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end with its context")
	}
}

// concurrentUpdates: 50 writers × 40 read-modify-write updates of one counter with
// compare-and-swap and retries. Every successful update is counted and none is lost.
func concurrentUpdates(t *testing.T, s cluster.Store) {
	r0, err := s.Revision(ctx)
	require.NoError(t, err)
	_, err = s.Write(ctx, cluster.Write{Key: key("demo", "counter"), Value: cm("demo", "counter", map[string]any{"n": "0"})})
	require.NoError(t, err)
	const writers, updates = 50, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	conflicts := 0
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < updates; {
				got, err := s.Get(ctx, key("demo", "counter"))
				if err != nil {
					errs <- err
					return
				}
				n, _ := strconv.Atoi(got.Value["data"].(map[string]any)["n"].(string))
				next := cm("demo", "counter", map[string]any{"n": strconv.Itoa(n + 1)})
				_, err = s.Write(ctx, cluster.Write{Key: key("demo", "counter"), Value: next, ModRevision: got.ModRevision})
				var conflict *cluster.ConflictError
				switch {
				case errors.As(err, &conflict):
					mu.Lock()
					conflicts++
					mu.Unlock()
				case err != nil:
					errs <- err
					return
				default:
					done++
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := s.Get(ctx, key("demo", "counter"))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(writers*updates), got.Value["data"].(map[string]any)["n"], "no update lost (%d conflicts retried)", conflicts)
	cur, err := s.Revision(ctx)
	require.NoError(t, err)
	assert.Equal(t, r0+int64(writers*updates+1), cur, "one revision per successful write")
}
