package cluster_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// TestBootstrap: a bootstrapped cluster holds what a kube-apiserver 1.37 holds when it has
// started (testdata/cluster/bootstrap/record recorded it from the real server), and what
// depends on it behaves as there: the kubernetes Service holds the first cluster IP, a Pod of a
// system priority class gets the class's value, the system namespaces have their default
// ServiceAccount. A second Bootstrap changes nothing.
func TestBootstrap(t *testing.T) {
	c := start(t, cluster.Options{})
	count := func(path string) int {
		t.Helper()
		code, l, _ := c.do("GET", path, "", "")
		require.Equal(t, 200, code, path)
		items, _ := l["items"].([]any)
		return len(items)
	}
	require.Zero(t, count("/api/v1/namespaces"), "cluster.New alone bootstraps nothing")
	require.NoError(t, c.srv.Cluster.Bootstrap(context.Background()))
	counts := map[string]int{
		"/api/v1/namespaces":                                                4,
		"/apis/rbac.authorization.k8s.io/v1/clusterroles":                   73,
		"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings":            54,
		"/apis/rbac.authorization.k8s.io/v1/roles":                          7,
		"/apis/rbac.authorization.k8s.io/v1/rolebindings":                   7,
		"/apis/apiregistration.k8s.io/v1/apiservices":                       22,
		"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas":                 11,
		"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations": 8,
		"/apis/scheduling.k8s.io/v1/priorityclasses":                        2,
		"/apis/networking.k8s.io/v1/servicecidrs":                           1,
		"/apis/networking.k8s.io/v1/ipaddresses":                            1,
		"/api/v1/services":                                                  1,
		"/api/v1/serviceaccounts":                                           4,
	}
	for path, n := range counts {
		assert.Equal(t, n, count(path), path)
	}

	code, svc, _ := c.do("GET", "/api/v1/namespaces/default/services/kubernetes", "", "")
	require.Equal(t, 200, code)
	spec := svc["spec"].(map[string]any)
	assert.Equal(t, "10.0.0.1", spec["clusterIP"], "the first address of the default service network")
	assert.Equal(t, []any{map[string]any{"name": "https", "port": float64(443), "protocol": "TCP", "targetPort": float64(6443)}}, spec["ports"])
	assert.Equal(t, map[string]any{"component": "apiserver", "provider": "kubernetes"}, meta(svc)["labels"])
	mf := meta(svc)["managedFields"].([]any)
	require.Len(t, mf, 1)
	assert.Equal(t, "kube-apiserver", mf[0].(map[string]any)["manager"])
	assert.Equal(t, "2026-12-01T00:00:00Z", mf[0].(map[string]any)["time"], "times are the cluster clock's")
	assert.Equal(t, "2026-12-01T00:00:00Z", meta(svc)["creationTimestamp"])

	code, ip, _ := c.do("GET", "/apis/networking.k8s.io/v1/ipaddresses/10.0.0.1", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"resource": "services", "namespace": "default", "name": "kubernetes"}, ip["spec"].(map[string]any)["parentRef"])
	code, cidr, _ := c.do("GET", "/apis/networking.k8s.io/v1/servicecidrs/kubernetes", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, []any{"10.0.0.0/24"}, cidr["spec"].(map[string]any)["cidrs"])

	code, cm, _ := c.do("GET", "/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"since": "2026-12-01"}, cm["data"])

	// A Service that asks for no address does not get the kubernetes Service's.
	code, s2, _ := c.do("POST", "/api/v1/namespaces/default/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s2"},"spec":{"ports":[{"port":80}]}}`)
	require.Equal(t, 201, code)
	assert.NotEqual(t, "10.0.0.1", s2["spec"].(map[string]any)["clusterIP"])

	// The Priority admission plugin finds the system class (its value, recorded: 2000000000).
	code, pod, _ := c.do("POST", "/api/v1/namespaces/default/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"priorityClassName":"system-cluster-critical","containers":[{"name":"c","image":"nginx"}]}}`)
	require.Equal(t, 201, code)
	assert.Equal(t, float64(2000000000), pod["spec"].(map[string]any)["priority"])

	// The reviews answer from the bootstrap policy: any authenticated user may read /api
	// (system:discovery; only that binding allows it), and may not list Secrets.
	review := func(attrs string) map[string]any {
		t.Helper()
		code, r, _ := c.do("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","groups":["system:authenticated"],`+attrs+`}}`)
		require.Equal(t, 201, code)
		return r["status"].(map[string]any)
	}
	assert.Equal(t, map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`},
		review(`"nonResourceAttributes":{"path":"/api","verb":"get"}`))
	assert.Equal(t, map[string]any{"allowed": false}, review(`"resourceAttributes":{"verb":"list","resource":"secrets","namespace":"default"}`))

	uid := meta(svc)["uid"]
	require.NoError(t, c.srv.Cluster.Bootstrap(context.Background()))
	for path, n := range counts {
		if path == "/api/v1/services" || path == "/apis/networking.k8s.io/v1/ipaddresses" {
			n++ // s2 and its IPAddress
		}
		assert.Equal(t, n, count(path), "after a second Bootstrap: %s", path)
	}
	_, again, _ := c.do("GET", "/api/v1/namespaces/default/services/kubernetes", "", "")
	assert.Equal(t, uid, meta(again)["uid"], "an object that exists is left as it is")
}
