package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

func eventJSON(name string) string {
	return `{"apiVersion":"v1","kind":"Event","metadata":{"name":"` + name + `","namespace":"demo"},
	"involvedObject":{"kind":"Pod","namespace":"demo","name":"p"},"reason":"Test","message":"m","type":"Normal","count":1}`
}

func eventNames(t *testing.T, c *cluster.Cluster) []string {
	var out []string
	for _, e := range list(t, c, "/api/v1/namespaces/demo/events") {
		out = append(out, meta(e)["name"].(string))
	}
	return out
}

// The apiserver's Event TTL (--event-ttl, 1h): an Event is deleted one TTL after its last
// write, on the cluster's clock; a patch renews it. Watchers see each expiry as a DELETED
// event, in expiry order.
func TestEventsExpireOneTTLAfterTheirLastWrite(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock})
	require.NoError(t, err)
	ctx := context.Background()
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	w, err := c.Store().Watch(ctx, cluster.Prefix{Resource: "events", Namespace: "demo"}, 0)
	require.NoError(t, err)
	defer w.Stop()
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/events", "", eventJSON("a")).Code)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/events", "", eventJSON("b")).Code)

	clock.Step(30 * time.Minute)
	require.Equal(t, 200, do(t, c, "PATCH", "/api/v1/namespaces/demo/events/a", "application/strategic-merge-patch+json", `{"count":2}`).Code)
	clock.Step(30*time.Minute - time.Second)
	assert.Equal(t, []string{"a", "b"}, eventNames(t, c), "1h less 1s after b's create")
	clock.Step(time.Second)
	assert.Equal(t, []string{"a"}, eventNames(t, c), "1h after b's create; a was patched since")
	clock.Step(30 * time.Minute)
	require.NoError(t, c.Settle(ctx))
	assert.Empty(t, eventNames(t, c), "1h after a's patch")

	var seen []string
	var last int64
	for len(seen) < 5 {
		ev := <-w.Events()
		seen = append(seen, string(ev.Type)+" "+meta(ev.Value)["name"].(string))
		assert.Greater(t, ev.Revision, last)
		last = ev.Revision
	}
	assert.Equal(t, []string{"ADDED a", "ADDED b", "MODIFIED a", "DELETED b", "DELETED a"}, seen)
}

// The controllers' Events expire too; a negative EventTTL keeps Events for ever.
func TestControllerEventsExpire(t *testing.T) {
	for _, ttl := range []time.Duration{0, -1} {
		clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		c, err := cluster.New(cluster.Options{Clock: clock, EventTTL: ttl})
		require.NoError(t, err)
		do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
		require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(2, "nginx:1")).Code)
		n := len(eventNames(t, c))
		require.Positive(t, n, "the rollout's Events")
		clock.Step(time.Hour)
		require.NoError(t, c.Settle(context.Background()))
		if ttl == 0 {
			assert.Empty(t, eventNames(t, c), "an hour later")
		} else {
			assert.Len(t, eventNames(t, c), n, "EventTTL %v", ttl)
		}
	}
}

// With two servers on one store, an Event written again by the other server is that server's
// lease: the first one's expiry leaves it alone, the second one's deletes it.
func TestEventTTLOnSharedStore(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	store := cluster.NewMemoryStore(cluster.MemoryOptions{})
	a, err := cluster.New(cluster.Options{Clock: clock, Store: store})
	require.NoError(t, err)
	b, err := cluster.New(cluster.Options{Clock: clock, Store: store})
	require.NoError(t, err)
	do(t, a, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, do(t, a, "POST", "/api/v1/namespaces/demo/events", "", eventJSON("a")).Code)
	clock.Step(30 * time.Minute)
	require.Equal(t, 200, do(t, b, "PATCH", "/api/v1/namespaces/demo/events/a", "application/strategic-merge-patch+json", `{"count":2}`).Code)
	clock.Step(30 * time.Minute)
	assert.Equal(t, []string{"a"}, eventNames(t, a), "b renewed it")
	clock.Step(30 * time.Minute)
	assert.Equal(t, []string{"a"}, eventNames(t, a), "b's lease, not a's")
	assert.Empty(t, eventNames(t, b), "b's lease ran out")
}
