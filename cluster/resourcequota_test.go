package cluster_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

func quotaStatus(t *testing.T, c *cluster.Cluster, ns, name string) map[string]any {
	t.Helper()
	q := do(t, c, "GET", "/api/v1/namespaces/"+ns+"/resourcequotas/"+name, "", nil)
	require.Equal(t, 200, q.Code, q.Object)
	st, _ := q.Object["status"].(map[string]any)
	return st
}

// TestResourceQuotaController: a new quota gets its status from the controller (hard the
// spec's, used the namespace's usage), written by kube-controller-manager through /status;
// creates are charged by admission until the quota refuses one; a deleted Pod is given back
// by the controller; a changed spec.hard is synced; a create refused after admission (the
// name exists) stays charged until Settle resyncs.
func TestResourceQuotaController(t *testing.T) {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)), Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"rq"}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/rq/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"before"}}`).Code)
	r := do(t, c, "POST", "/api/v1/namespaces/rq/resourcequotas", "application/json",
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"2","configmaps":"10","requests.cpu":"1"}}}`)
	require.Equal(t, 201, r.Code, r.Object)
	assert.Empty(t, r.Object["status"], "the create's answer has no status yet")
	assert.Equal(t, map[string]any{"hard": map[string]any{"pods": "2", "configmaps": "10", "requests.cpu": "1"},
		"used": map[string]any{"pods": "0", "configmaps": "1", "requests.cpu": "0"}}, quotaStatus(t, c, "rq", "q"),
		"the ConfigMap made before (no root CA publisher runs)")

	q := do(t, c, "GET", "/api/v1/namespaces/rq/resourcequotas/q", "", nil)
	var managers []string
	for _, e := range q.Object["metadata"].(map[string]any)["managedFields"].([]any) {
		m := e.(map[string]any)
		managers = append(managers, fmt.Sprint(m["manager"], "/", m["operation"], "/", m["subresource"]))
	}
	assert.Contains(t, managers, "kube-controller-manager/Update/status")

	pod := func(name, cpu string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"` + cpu + `"}}}]}}`
	}
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/rq/pods", "application/json", pod("a", "300m")).Code)
	r = do(t, c, "POST", "/api/v1/namespaces/rq/pods", "application/json", pod("b", "800m"))
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "b" is forbidden: exceeded quota: q, requested: requests.cpu=800m, used: requests.cpu=300m, limited: requests.cpu=1`, r.Object["message"])
	r = do(t, c, "POST", "/api/v1/namespaces/rq/pods", "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "n" is forbidden: failed quota: q: must specify requests.cpu for: c`, r.Object["message"])
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/rq/pods", "application/json", pod("b", "200m")).Code)
	assert.Equal(t, map[string]any{"pods": "2", "configmaps": "1", "requests.cpu": "500m"}, quotaStatus(t, c, "rq", "q")["used"])
	r = do(t, c, "POST", "/api/v1/namespaces/rq/pods", "application/json", pod("c", "100m"))
	assert.Equal(t, `pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`, r.Object["message"])

	require.Equal(t, 200, do(t, c, "DELETE", "/api/v1/namespaces/rq/pods/a?gracePeriodSeconds=0", "", nil).Code)
	assert.Equal(t, map[string]any{"pods": "1", "configmaps": "1", "requests.cpu": "200m"}, quotaStatus(t, c, "rq", "q")["used"],
		"the controller gives the deleted Pod's usage back")

	r = do(t, c, "POST", "/api/v1/namespaces/rq/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"before"}}`)
	assert.Equal(t, 409, r.Code)
	assert.Equal(t, "2", quotaStatus(t, c, "rq", "q")["used"].(map[string]any)["configmaps"], "charged by admission, refused in storage")
	require.NoError(t, c.Settle(t.Context()))
	assert.Equal(t, "1", quotaStatus(t, c, "rq", "q")["used"].(map[string]any)["configmaps"], "the full resync recounts")

	r = do(t, c, "PATCH", "/api/v1/namespaces/rq/resourcequotas/q", "application/merge-patch+json", `{"spec":{"hard":{"pods":"5","count/secrets":"3"}}}`)
	require.Equal(t, 200, r.Code, r.Object)
	st := quotaStatus(t, c, "rq", "q")
	assert.Equal(t, map[string]any{"pods": "5", "configmaps": "10", "requests.cpu": "1", "count/secrets": "3"}, st["hard"])
	assert.Equal(t, map[string]any{"pods": "1", "configmaps": "1", "requests.cpu": "200m", "count/secrets": "0"}, st["used"])
}

// TestNoResourceQuotaController: without the controller a quota gets no status, and admission,
// which charges only what status.hard names, admits everything.
func TestNoResourceQuotaController(t *testing.T) {
	c, err := cluster.New(cluster.Options{NoResourceQuotaController: true, Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"rq"}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/rq/resourcequotas", "application/json",
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"configmaps":"0"}}}`).Code)
	require.NoError(t, c.Settle(t.Context()))
	assert.Empty(t, quotaStatus(t, c, "rq", "q"))
	assert.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/rq/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`).Code)
}
