package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// The index and the queues change what the workload controllers read and which of them run, not
// what they write: the same random histories of requests (Deployments created, rolled to new
// templates, scaled, paused, deleted; ReplicaSets and Pods of nobody's; Pods marked ready; the
// clock stepped) leave the same bytes in the store, request by request, as syncing every
// Deployment and ReplicaSet in every round over all of its namespace's objects. Seeded;
// WRITEPATH_LONG=1 runs 200 histories instead of 5.
func TestQueuedSyncsMatchSyncingEverything(t *testing.T) {
	histories := 5
	if os.Getenv("WRITEPATH_LONG") != "" {
		histories = 200
	}
	for seed := 1; seed <= histories; seed++ {
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			mode := Kubelet(seed % 3)
			queued := queueTestCluster(t, mode, false)
			everything := queueTestCluster(t, mode, true)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			for step := 0; step < 40; step++ {
				op := queueTestOp(rng, step)
				a := op(t, queued)
				b := op(t, everything)
				require.Equal(t, b, a, "step %d: the answers differ", step)
				require.Equal(t, queueTestDump(t, everything), queueTestDump(t, queued), "step %d: the stored objects differ", step)
			}
		})
	}
}

type queueTestStep func(t *testing.T, c *Cluster) string

func queueTestCluster(t *testing.T, mode Kubelet, everything bool) *Cluster {
	c, err := New(Options{Kubelet: mode, Seed: 42, Clock: NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	c.syncEverything = everything
	for _, ns := range []string{"a", "b"} {
		queueTestDo(t, c, "POST", "/api/v1/namespaces", "", fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns))
	}
	return c
}

func queueTestDo(t *testing.T, c *Cluster, method, path, contentType, body string) string {
	t.Helper()
	resp, err := c.Do(context.Background(), registry.Request{Method: method, Path: path, ContentType: contentType, Body: []byte(body), User: Admin, UserAgent: "kubectl/v1.37.2"})
	require.NoError(t, err)
	return fmt.Sprintf("%d %s", resp.Code, resp.Body)
}

// queueTestDump is every object stored, as JSON, in key order.
func queueTestDump(t *testing.T, c *Cluster) string {
	ctx := context.Background()
	out := ""
	for _, p := range []Prefix{deploymentsPrefix, replicaSetsPrefix, podsPrefix} {
		l, err := c.store.List(ctx, ListRequest{Prefix: p})
		require.NoError(t, err)
		for _, o := range l.Items {
			b, err := json.Marshal(o.Value)
			require.NoError(t, err)
			out += o.Key.String() + " " + string(b) + "\n"
		}
	}
	return out
}

// queueTestOp draws one request (or clock step, or Pod marked ready) of a history.
func queueTestOp(rng *rand.Rand, step int) queueTestStep {
	ns := []string{"a", "b"}[rng.IntN(2)]
	name := []string{"web", "api", "db"}[rng.IntN(3)]
	app := name
	if rng.IntN(6) == 0 {
		app = "shared" // Deployments whose selectors overlap
	}
	dpath := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	switch r := rng.IntN(12); {
	case step < 3 || r < 3:
		replicas := rng.IntN(7)
		strategy := `{"type":"Recreate"}`
		if rng.IntN(3) > 0 {
			strategy = fmt.Sprintf(`{"type":"RollingUpdate","rollingUpdate":{"maxSurge":%s,"maxUnavailable":%s}}`,
				[]string{`1`, `"50%"`, `0`, `"25%"`}[rng.IntN(4)], []string{`1`, `"30%"`, `2`}[rng.IntN(3)])
		}
		minReady := rng.IntN(2) * 5
		body := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q},"spec":{"replicas":%d,"minReadySeconds":%d,
			"revisionHistoryLimit":%d,"strategy":%s,"selector":{"matchLabels":{"app":%q}},
			"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"c","image":"img:%d"}]}}}}`,
			name, replicas, minReady, rng.IntN(3), strategy, app, app, rng.IntN(3))
		return func(t *testing.T, c *Cluster) string { return queueTestDo(t, c, "POST", dpath, "", body) }
	case r < 5:
		body := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"img:%d"}]}}}}`, rng.IntN(4))
		return func(t *testing.T, c *Cluster) string {
			return queueTestDo(t, c, "PATCH", dpath+"/"+name, "application/strategic-merge-patch+json", body)
		}
	case r < 6:
		body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, rng.IntN(8))
		return func(t *testing.T, c *Cluster) string {
			return queueTestDo(t, c, "PATCH", dpath+"/"+name+"/scale", "application/merge-patch+json", body)
		}
	case r < 7:
		body := fmt.Sprintf(`{"spec":{"paused":%t}}`, rng.IntN(2) == 0)
		return func(t *testing.T, c *Cluster) string {
			return queueTestDo(t, c, "PATCH", dpath+"/"+name, "application/merge-patch+json", body)
		}
	case r < 8:
		query := []string{"", "?propagationPolicy=Orphan", "?propagationPolicy=Foreground"}[rng.IntN(3)]
		return func(t *testing.T, c *Cluster) string {
			return queueTestDo(t, c, "DELETE", dpath+"/"+name+query, "", "")
		}
	case r < 9:
		// An orphan Pod or ReplicaSet a selector may match.
		if rng.IntN(2) == 0 {
			app = "stray"
		}
		if rng.IntN(2) == 0 {
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"stray-","labels":{"app":%q}},"spec":{"containers":[{"name":"c","image":"img:9"}]}}`, app)
			return func(t *testing.T, c *Cluster) string {
				return queueTestDo(t, c, "POST", "/api/v1/namespaces/"+ns+"/pods", "", body)
			}
		}
		body := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"generateName":"stray-","labels":{"app":%q}},"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},
			"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"c","image":"img:8"}]}}}}`, app, rng.IntN(3), app, app)
		return func(t *testing.T, c *Cluster) string {
			return queueTestDo(t, c, "POST", "/apis/apps/v1/namespaces/"+ns+"/replicasets", "", body)
		}
	case r < 10:
		d := time.Duration(1+rng.IntN(10)) * time.Second
		return func(t *testing.T, c *Cluster) string {
			c.clock.(*FakeClock).Step(d)
			require.NoError(t, c.Settle(context.Background()))
			return "stepped"
		}
	case r < 11:
		// A Pod's labels change (its ReplicaSet releases it; another may adopt it).
		n := rng.IntN(10)
		body := fmt.Sprintf(`{"metadata":{"labels":{"app":%q}}}`, []string{"stray", "other", name}[rng.IntN(3)])
		return func(t *testing.T, c *Cluster) string {
			l, err := c.store.List(context.Background(), ListRequest{Prefix: Prefix{Resource: "pods", Namespace: ns}})
			require.NoError(t, err)
			if len(l.Items) == 0 {
				return "no pod"
			}
			o := l.Items[n%len(l.Items)]
			return queueTestDo(t, c, "PATCH", "/api/v1/namespaces/"+ns+"/pods/"+o.Key.Name, "application/merge-patch+json", body)
		}
	default:
		// The kubelet starts one Pod (the n-th of the namespace).
		n := rng.IntN(10)
		return func(t *testing.T, c *Cluster) string {
			l, err := c.store.List(context.Background(), ListRequest{Prefix: Prefix{Resource: "pods", Namespace: ns}})
			require.NoError(t, err)
			if len(l.Items) == 0 {
				return "no pod"
			}
			o := l.Items[n%len(l.Items)]
			if err := c.SetPodReady(context.Background(), ns, o.Key.Name); err != nil {
				return err.Error()
			}
			return "ready " + o.Key.Name
		}
	}
}
