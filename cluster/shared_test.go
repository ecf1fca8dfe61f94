package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// sharedStoreDo sends one request as the admin through c.
func sharedStoreDo(t *testing.T, c *cluster.Cluster, method, path, body string) registry.Response {
	t.Helper()
	req := registry.Request{Method: method, Path: path, User: cluster.Admin, UserAgent: "shared-test"}
	if body != "" {
		req.Body, req.ContentType = []byte(body), "application/json"
		if method == "PATCH" {
			req.ContentType = "application/merge-patch+json"
		}
	}
	resp, err := c.Do(context.Background(), req)
	require.NoError(t, err)
	return resp
}

// TestTwoServersOneStoreLoseNoWrite: two clusters over one store are two API servers on one etcd.
// Unconditional patches through both, interleaved, each land on what the other stored (the commit
// is a compare-and-swap on what the request read; a lost race is answered again), and every
// answered resourceVersion is the revision the store gave that write.
func TestTwoServersOneStoreLoseNoWrite(t *testing.T) {
	store := cluster.NewMemoryStore(cluster.MemoryOptions{})
	var servers []*cluster.Cluster
	for i := 0; i < 2; i++ {
		c, err := cluster.New(cluster.Options{Store: store, Seed: uint64(i + 1)})
		require.NoError(t, err)
		servers = append(servers, c)
	}
	require.Equal(t, 201, sharedStoreDo(t, servers[0], "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`).Code)
	resp := sharedStoreDo(t, servers[0], "POST", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared"}}`)
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	got := sharedStoreDo(t, servers[1], "GET", "/api/v1/namespaces/default/configmaps/shared", "")
	require.Equal(t, 200, got.Code, "a write through one is visible through the other")

	const perServer = 30
	var wg sync.WaitGroup
	rvs := make(chan string, 2*perServer)
	for i, c := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < perServer; j++ {
				r := sharedStoreDo(t, c, "PATCH", "/api/v1/namespaces/default/configmaps/shared", fmt.Sprintf(`{"data":{"s%d-%d":"x"}}`, i, j))
				if !assert.Equal(t, 200, r.Code, "%s", r.Body) {
					return
				}
				rvs <- r.Object["metadata"].(map[string]any)["resourceVersion"].(string)
			}
		}()
	}
	wg.Wait()
	close(rvs)
	final := sharedStoreDo(t, servers[0], "GET", "/api/v1/namespaces/default/configmaps/shared", "")
	data, _ := final.Object["data"].(map[string]any)
	assert.Len(t, data, 2*perServer, "no patch lost")
	seen := map[string]bool{}
	for rv := range rvs {
		assert.False(t, seen[rv], "resourceVersion %s answered twice", rv)
		seen[rv] = true
	}
	cur, err := store.Revision(context.Background())
	require.NoError(t, err)
	assert.True(t, seen[strconv.FormatInt(cur, 10)], "the last write's answer is the store's revision")

	stale := sharedStoreDo(t, servers[1], "PUT", "/api/v1/namespaces/default/configmaps/shared",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared","resourceVersion":"`+resp.Object["metadata"].(map[string]any)["resourceVersion"].(string)+`"}}`)
	assert.Equal(t, 409, stale.Code, "a stale resourceVersion is a conflict through either server")
}

// sharedStoreCandidates returns two clusters on one memory store competing for the Lease.
// clock is their clock: nil is the system clock.
func sharedStoreCandidates(t *testing.T, clock cluster.Clock, idA, idB string, lease, renew, retry time.Duration) (*cluster.Cluster, *cluster.Cluster) {
	store := cluster.NewMemoryStore(cluster.MemoryOptions{})
	var out []*cluster.Cluster
	for i, id := range []string{idA, idB} {
		c, err := cluster.New(cluster.Options{Store: store, Seed: uint64(i + 1), Clock: clock,
			LeaderElection: &cluster.LeaderElection{Identity: id, LeaseDuration: lease, RenewDeadline: renew, RetryPeriod: retry}})
		require.NoError(t, err)
		out = append(out, c)
	}
	return out[0], out[1]
}

// TestLeaderElectionOneLeader: two clusters compete for the controller Lease; one leads, the
// other takes over once the leader stops renewing and its lease has expired on their clock: a
// FakeClock, so b cannot take the Lease over while the clock stands, however slow a round is.
func TestLeaderElectionOneLeader(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
	a, b := sharedStoreCandidates(t, clock, "a", "b", 15*time.Second, 10*time.Second, 100*time.Millisecond)
	assert.False(t, a.Leading(), "no server leads before it holds the Lease")

	actx, stopA := context.WithCancel(context.Background())
	doneA := make(chan struct{})
	go func() { defer close(doneA); _ = a.Lead(actx) }()
	require.Eventually(t, a.Leading, 10*time.Second, 10*time.Millisecond)
	bctx, stopB := context.WithCancel(context.Background())
	defer stopB()
	doneB := make(chan struct{})
	go func() { defer close(doneB); _ = b.Lead(bctx) }()
	// While a renews, b never leads.
	for i := 0; i < 10; i++ {
		time.Sleep(100 * time.Millisecond)
		assert.False(t, b.Leading(), "only one leader")
	}
	lease := sharedStoreDo(t, b, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", "")
	require.Equal(t, 200, lease.Code)
	assert.Equal(t, "a", lease.Object["spec"].(map[string]any)["holderIdentity"])

	stopA()
	<-doneA
	assert.False(t, a.Leading())
	clock.Step(16 * time.Second) // past the Lease's duration: b has seen a's record unchanged for longer
	require.Eventually(t, b.Leading, 10*time.Second, 10*time.Millisecond, "b takes over an expired Lease")
	lease = sharedStoreDo(t, b, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", "")
	spec := lease.Object["spec"].(map[string]any)
	assert.Equal(t, "b", spec["holderIdentity"])
	assert.Equal(t, int64(1), spec["leaseTransitions"])
	assert.Equal(t, "2026-12-04T00:00:16.000000Z", spec["acquireTime"], "the Lease's times are the cluster's clock")
	stopB()
	<-doneB
}

// TestLeaderRunsControllersForOthersWrites: a ReplicaSet created through the follower gets its
// Pods from the leader's controllers; the follower runs none itself.
func TestLeaderRunsControllersForOthersWrites(t *testing.T) {
	leader, follower := sharedStoreCandidates(t, nil, "leader", "follower", 5*time.Second, 3*time.Second, 50*time.Millisecond)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = leader.Lead(ctx) }()
	defer func() { stop(); <-done }()
	require.Eventually(t, leader.Leading, 10*time.Second, 10*time.Millisecond)

	rs := `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
	  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	require.Equal(t, 201, sharedStoreDo(t, follower, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`).Code)
	resp := sharedStoreDo(t, follower, "POST", "/apis/apps/v1/namespaces/default/replicasets", rs)
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	pods := func() int {
		l := sharedStoreDo(t, follower, "GET", "/api/v1/namespaces/default/pods", "")
		items, _ := l.Object["items"].([]any)
		return len(items)
	}
	assert.Equal(t, 0, pods(), "the follower runs no controller after its own write")
	require.Eventually(t, func() bool { return pods() == 2 }, 10*time.Second, 20*time.Millisecond, "the leader's ReplicaSet controller made the Pods")
}
