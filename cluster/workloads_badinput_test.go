package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

func workloadCluster(t *testing.T, kubelet cluster.Kubelet) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(cluster.Options{Kubelet: kubelet, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`).Code)
	return c
}

func deploymentWith(name, selector, labels, strategy string, replicas int) string {
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":"demo"},
	"spec":{"replicas":%d,"selector":%s,%s
	"template":{"metadata":{"labels":%s},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`, name, replicas, selector, strategy, labels)
}

func orphanPod(name, labels string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":"demo","labels":%s},
	"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}`, name, labels)
}

// controllerOf is the name of the controller in obj's ownerReferences ("" when none).
func controllerOf(obj map[string]any) string {
	refs, _ := meta(obj)["ownerReferences"].([]any)
	for _, x := range refs {
		if r := x.(map[string]any); r["controller"] == true {
			return r["name"].(string)
		}
	}
	return ""
}

// Deployments the apiserver refuses never reach the controllers: maxSurge and
// maxUnavailable both 0, an empty selector (it would select everything), a selector that does
// not match the template's labels (its ReplicaSets would select none of their Pods). Each is
// the apiserver's 422 with its words, and nothing is created.
func TestRefusedDeployments(t *testing.T) {
	c := workloadCluster(t, cluster.PodsReady)
	for _, tc := range []struct {
		name, body, field, detail string
	}{
		{"surge-and-unavailable-0", deploymentWith("zero", `{"matchLabels":{"app":"web"}}`, `{"app":"web"}`,
			`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":0}},`, 3),
			"spec.strategy.rollingUpdate.maxUnavailable", "may not be 0 when `maxSurge` is 0"},
		{"surge-and-unavailable-0%", deploymentWith("zero-percent", `{"matchLabels":{"app":"web"}}`, `{"app":"web"}`,
			`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"0%","maxUnavailable":"0%"}},`, 3),
			"spec.strategy.rollingUpdate.maxUnavailable", "may not be 0 when `maxSurge` is 0"},
		{"empty-selector", deploymentWith("all", `{}`, `{"app":"web"}`, "", 3),
			"spec.selector", "empty selector is invalid for deployment"},
		{"selector-matching-no-template", deploymentWith("none", `{"matchLabels":{"app":"other"}}`, `{"app":"web"}`, "", 3),
			"spec.template.metadata.labels", "`selector` does not match template `labels`"},
	} {
		resp := do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", tc.body)
		require.Equal(t, 422, resp.Code, "%s: %s", tc.name, resp.Body)
		var found bool
		for _, x := range resp.Object["details"].(map[string]any)["causes"].([]any) {
			cause := x.(map[string]any)
			if cause["field"] == tc.field && strings.Contains(cause["message"].(string), tc.detail) {
				found = true
			}
		}
		assert.True(t, found, "%s: no cause %s %q in %s", tc.name, tc.field, tc.detail, resp.Body)
	}
	assert.Empty(t, list(t, c, "/apis/apps/v1/namespaces/demo/deployments"))
	assert.Empty(t, list(t, c, "/apis/apps/v1/namespaces/demo/replicasets"))
	assert.Empty(t, list(t, c, "/api/v1/namespaces/demo/pods"))
}

// A selector matching every Pod with an app label adopts the orphans it selects (a
// ReplicaSet's selector then adds pod-template-hash, so only orphans carrying the hash are
// its to adopt: none here) and leaves those a foreign controller owns; orphans it does not
// select stay orphans. The Deployment ends with its own replicas.
func TestSelectorsAndOrphans(t *testing.T) {
	c := workloadCluster(t, cluster.PodsReady)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/configmaps", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`).Code)
	owner := do(t, c, "GET", "/api/v1/namespaces/demo/configmaps/owner", "", nil).Object
	for _, p := range []string{orphanPod("stray-web", `{"app":"web"}`), orphanPod("stray-other", `{"app":"other"}`), orphanPod("unlabelled", `{}`)} {
		require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/pods", "", p).Code)
	}
	foreign := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"foreign","namespace":"demo","labels":{"app":"web"},
	"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q,"controller":true}]},
	"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}`, meta(owner)["uid"])
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/pods", "", foreign).Code)
	resp := do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "",
		deploymentWith("web", `{"matchExpressions":[{"key":"app","operator":"Exists"}]}`, `{"app":"web"}`, "", 3))
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	rss := list(t, c, "/apis/apps/v1/namespaces/demo/replicasets")
	require.Len(t, rss, 1)
	rsName := meta(rss[0])["name"].(string)
	owners := map[string]string{}
	for _, p := range list(t, c, "/api/v1/namespaces/demo/pods") {
		owners[meta(p)["name"].(string)] = controllerOf(p)
	}
	assert.Equal(t, "", owners["stray-web"], "an orphan without the ReplicaSet's pod-template-hash is not its to adopt")
	assert.Equal(t, "", owners["stray-other"])
	assert.Equal(t, "", owners["unlabelled"])
	assert.Equal(t, "owner", owners["foreign"])
	n := 0
	for _, o := range owners {
		if o == rsName {
			n++
		}
	}
	assert.Equal(t, 3, n, "%v", owners)
	assert.Equal(t, int64(3), statusOf(t, c)["availableReplicas"])
}

// Overlapping Deployments (the same selector) each keep their own ReplicaSets and Pods: a
// ReplicaSet's selector carries its template's hash, and neither Deployment adopts what the
// other controls. A ReplicaSet that matches a Deployment but is controlled by a foreign owner
// is left to that owner: the Deployment makes its own, and the foreign one keeps its Pods.
func TestOverlappingAndForeignReplicaSets(t *testing.T) {
	c := workloadCluster(t, cluster.PodsReady)
	sel, labels := `{"matchLabels":{"app":"web"}}`, `{"app":"web"}`
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentWith("a", sel, labels, "", 2)).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "",
		strings.Replace(deploymentWith("b", sel, labels, "", 3), "nginx:1", "nginx:2", 1)).Code)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/demo/configmaps", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`).Code)
	owner := do(t, c, "GET", "/api/v1/namespaces/demo/configmaps/owner", "", nil).Object
	foreign := fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"foreign","namespace":"demo",
	"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q,"controller":true}]},
	"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web","owner":"cm"}},
	"template":{"metadata":{"labels":{"app":"web","owner":"cm"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`, meta(owner)["uid"])
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/replicasets", "", foreign).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentWith("c", sel, labels, "", 1)).Code)
	require.NoError(t, c.Settle(context.Background()))

	rsOwner := map[string]string{}
	rsReplicas := map[string]int64{}
	for _, rs := range list(t, c, "/apis/apps/v1/namespaces/demo/replicasets") {
		rsOwner[meta(rs)["name"].(string)] = controllerOf(rs)
		rsReplicas[meta(rs)["name"].(string)] = rs["spec"].(map[string]any)["replicas"].(int64)
	}
	byDeployment := map[string]int64{}
	for rs, o := range rsOwner {
		byDeployment[o] += rsReplicas[rs]
	}
	assert.Equal(t, map[string]int64{"a": 2, "b": 3, "c": 1, "owner": 1}, byDeployment, "%v", rsOwner)
	assert.Equal(t, "owner", rsOwner["foreign"])
	podsOf := map[string]int{}
	for _, p := range list(t, c, "/api/v1/namespaces/demo/pods") {
		podsOf[rsOwner[controllerOf(p)]]++
	}
	assert.Equal(t, map[string]int{"a": 2, "b": 3, "c": 1, "owner": 1}, podsOf)
	for name, want := range map[string]int64{"a": 2, "b": 3, "c": 1} {
		st := do(t, c, "GET", "/apis/apps/v1/namespaces/demo/deployments/"+name, "", nil).Object["status"].(map[string]any)
		assert.Equal(t, want, st["availableReplicas"], name)
		assert.Equal(t, want, st["replicas"], name)
	}
}

// Many replicas: the writes a Deployment of n replicas costs inside the cluster are the n Pod
// creates and a number of others that grows with n/500 (the ReplicaSet controller's burst: one
// sync and one status update per 500 Pods), not with n². Pods are left Pending so that only
// the controllers write. 1,000 replicas; WRITEPATH_LONG=1 adds 10,000.
func TestManyReplicasLinear(t *testing.T) {
	sizes := []int{1000}
	if os.Getenv("WRITEPATH_LONG") != "" {
		sizes = append(sizes, 10000)
	}
	ctx := context.Background()
	for _, n := range sizes {
		c := workloadCluster(t, cluster.PodsPending)
		before, err := c.Store().Revision(ctx)
		require.NoError(t, err)
		require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(n, "nginx:1")).Code)
		after, err := c.Store().Revision(ctx)
		require.NoError(t, err)
		assert.Len(t, list(t, c, "/api/v1/namespaces/demo/pods"), n)
		others := int(after-before) - 1 - n // the Deployment's create and the Pods aside
		t.Logf("%d replicas: %d Pod creates and %d other writes", n, n, others)
		assert.LessOrEqual(t, others, 3*(n/500)+60, "%d replicas: %d other writes", n, others)
		st := statusOf(t, c)
		assert.Equal(t, int64(n), st["replicas"], "%v", st)
		assert.Equal(t, int64(n), st["unavailableReplicas"])
	}
}
