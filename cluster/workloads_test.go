package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

func do(t *testing.T, c *cluster.Cluster, method, path, contentType string, body any) registry.Response {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case nil:
	case string:
		b = []byte(v)
	default:
		var err error
		b, err = json.Marshal(v)
		require.NoError(t, err)
	}
	resp, err := c.Do(context.Background(), registry.Request{Method: method, Path: path, ContentType: contentType, Body: b, User: cluster.Admin, UserAgent: "kubectl/v1.37.2"})
	require.NoError(t, err)
	return resp
}

func deploymentJSON(replicas int, image string) string {
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo"},
	"spec":{"replicas":%d,"selector":{"matchLabels":{"app":"web"}},
	"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":%q}]}}}}`, replicas, image)
}

func list(t *testing.T, c *cluster.Cluster, path string) []map[string]any {
	t.Helper()
	resp := do(t, c, "GET", path, "", nil)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	var out []map[string]any
	for _, x := range resp.Object["items"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func statusOf(t *testing.T, c *cluster.Cluster) map[string]any {
	resp := do(t, c, "GET", "/apis/apps/v1/namespaces/demo/deployments/web", "", nil)
	require.Equal(t, 200, resp.Code)
	return resp.Object["status"].(map[string]any)
}

// With NoWorkloadControllers a Deployment and a ReplicaSet stay as written, as on envtest's
// control plane (an update with the resourceVersion the create answered is not a conflict), and
// the garbage collector still deletes a deleted owner's dependents.
func TestNoWorkloadControllers(t *testing.T) {
	c, err := cluster.New(cluster.Options{NoWorkloadControllers: true, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	resp := do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(3, "nginx:1"))
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	created := resp.Object
	rs := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"demo",
	"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":%q}]},
	"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
	"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`, meta(created)["uid"])
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/replicasets", "", rs).Code)
	require.NoError(t, c.Settle(context.Background()))

	assert.Empty(t, list(t, c, "/api/v1/namespaces/demo/pods"), "no ReplicaSet controller")
	assert.Len(t, list(t, c, "/apis/apps/v1/namespaces/demo/replicasets"), 1, "no Deployment controller")
	got := do(t, c, "GET", "/apis/apps/v1/namespaces/demo/deployments/web", "", nil).Object
	assert.Equal(t, meta(created)["resourceVersion"], meta(got)["resourceVersion"], "nothing wrote the Deployment")
	assert.Empty(t, got["status"], "no status written")
	meta(got)["labels"] = map[string]any{"x": "y"}
	assert.Equal(t, 200, do(t, c, "PUT", "/apis/apps/v1/namespaces/demo/deployments/web", "", got).Code)

	require.Equal(t, 200, do(t, c, "DELETE", "/apis/apps/v1/namespaces/demo/deployments/web", "", nil).Code)
	assert.Empty(t, list(t, c, "/apis/apps/v1/namespaces/demo/replicasets"), "the garbage collector runs")
}

// A Deployment rolls out inside the cluster: the Deployment controller creates a ReplicaSet, the
// ReplicaSet controller its Pods, the stand-in kubelet runs them; a new image rolls over to a new
// ReplicaSet; scaling and deletion follow.
func TestDeploymentRollsOut(t *testing.T) {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	resp := do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(3, "nginx:1"))
	require.Equal(t, 201, resp.Code, "%s", resp.Body)

	rss := list(t, c, "/apis/apps/v1/namespaces/demo/replicasets")
	require.Len(t, rss, 1)
	assert.Equal(t, "1", meta(rss[0])["annotations"].(map[string]any)["deployment.kubernetes.io/revision"])
	pods := list(t, c, "/api/v1/namespaces/demo/pods")
	require.Len(t, pods, 3)
	for _, p := range pods {
		assert.Equal(t, "Running", p["status"].(map[string]any)["phase"])
		assert.Equal(t, meta(rss[0])["name"], meta(p)["ownerReferences"].([]any)[0].(map[string]any)["name"])
	}
	st := statusOf(t, c)
	assert.Equal(t, int64(3), st["availableReplicas"], "%v", st)
	assert.Equal(t, int64(3), st["updatedReplicas"])

	// A new image: a second ReplicaSet takes over, the first is scaled to 0.
	resp = do(t, c, "PATCH", "/apis/apps/v1/namespaces/demo/deployments/web", "application/strategic-merge-patch+json",
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	rss = list(t, c, "/apis/apps/v1/namespaces/demo/replicasets")
	require.Len(t, rss, 2)
	byRev := map[string]map[string]any{}
	for _, rs := range rss {
		byRev[meta(rs)["annotations"].(map[string]any)["deployment.kubernetes.io/revision"].(string)] = rs
	}
	assert.Equal(t, int64(0), byRev["1"]["spec"].(map[string]any)["replicas"])
	assert.Equal(t, int64(3), byRev["2"]["spec"].(map[string]any)["replicas"])
	pods = list(t, c, "/api/v1/namespaces/demo/pods")
	assert.Len(t, pods, 3, "the old Pods are gone")
	st = statusOf(t, c)
	assert.Equal(t, int64(3), st["updatedReplicas"], "%v", st)
	assert.Equal(t, int64(3), st["availableReplicas"])
	var progressing string
	for _, x := range st["conditions"].([]any) {
		if x.(map[string]any)["type"] == "Progressing" {
			progressing = x.(map[string]any)["reason"].(string)
		}
	}
	assert.Equal(t, "NewReplicaSetAvailable", progressing)

	// Scale through /scale, then delete with background propagation: the garbage collector
	// removes the ReplicaSets and their Pods.
	resp = do(t, c, "PATCH", "/apis/apps/v1/namespaces/demo/deployments/web/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	assert.Len(t, list(t, c, "/api/v1/namespaces/demo/pods"), 5)
	resp = do(t, c, "DELETE", "/apis/apps/v1/namespaces/demo/deployments/web", "", nil)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	assert.Empty(t, list(t, c, "/apis/apps/v1/namespaces/demo/replicasets"))
	assert.Empty(t, list(t, c, "/api/v1/namespaces/demo/pods"))
}

// With Pods left Pending a rollout waits; marking Pods ready one by one moves it on.
func TestDeploymentWaitsForPods(t *testing.T) {
	c, err := cluster.New(cluster.Options{Kubelet: cluster.PodsPending, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(2, "nginx:1")).Code)
	pods := list(t, c, "/api/v1/namespaces/demo/pods")
	require.Len(t, pods, 2)
	st := statusOf(t, c)
	assert.Nil(t, st["availableReplicas"], "no Pod runs: %v", st)
	assert.Equal(t, int64(2), st["unavailableReplicas"])

	require.NoError(t, c.SetPodReady(context.Background(), "demo", meta(pods[0])["name"].(string)))
	st = statusOf(t, c)
	assert.Equal(t, int64(1), st["availableReplicas"], "%v", st)
	require.NoError(t, c.SetPodReady(context.Background(), "demo", meta(pods[1])["name"].(string)))
	st = statusOf(t, c)
	assert.Equal(t, int64(2), st["availableReplicas"], "%v", st)
}

// BenchmarkRollout1000 rolls a Deployment of 1,000 replicas out to a new template to
// completion: go test -run '^$' -bench Rollout1000 -benchtime 1x ./cluster/
// cpu-s/op is the CPU time of the rollout alone (the process's, garbage collection included),
// which a loaded machine changes far less than the wall time of ns/op.
func BenchmarkRollout1000(b *testing.B) {
	var cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
		require.NoError(b, err)
		ctx := context.Background()
		post := func(path, body string) int {
			resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: path, Body: []byte(body), User: cluster.Admin})
			require.NoError(b, err)
			return resp.Code
		}
		post("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
		require.Equal(b, 201, post("/apis/apps/v1/namespaces/demo/deployments", deploymentJSON(1000, "nginx:1")))
		runtime.GC()
		b.StartTimer()
		start := rolloutCPUSeconds()
		resp, err := c.Do(ctx, registry.Request{Method: "PATCH", Path: "/apis/apps/v1/namespaces/demo/deployments/web", User: cluster.Admin,
			ContentType: "application/strategic-merge-patch+json", Body: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)})
		cpu += rolloutCPUSeconds() - start
		require.NoError(b, err)
		require.Equal(b, 200, resp.Code)
		b.StopTimer()
		got, err := c.Do(ctx, registry.Request{Method: "GET", Path: "/apis/apps/v1/namespaces/demo/deployments/web", User: cluster.Admin})
		require.NoError(b, err)
		require.Equal(b, int64(1000), got.Object["status"].(map[string]any)["updatedReplicas"])
		require.Equal(b, int64(1000), got.Object["status"].(map[string]any)["availableReplicas"])
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}
