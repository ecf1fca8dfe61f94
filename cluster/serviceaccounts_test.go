package cluster_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// TestDefaultServiceAccountController: a new namespace gets its "default" ServiceAccount from
// the service account controller (a body with a name only: no managedFields entry, as on a
// real cluster), a deleted one comes back, and a Pod that names none is admitted with it and its token volume.
func TestDefaultServiceAccountController(t *testing.T) {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sa"}}`).Code)

	sa := do(t, c, "GET", "/api/v1/namespaces/sa/serviceaccounts/default", "", nil)
	require.Equal(t, 200, sa.Code, sa.Object)
	assert.NotContains(t, sa.Object["metadata"], "managedFields")

	require.Equal(t, 200, do(t, c, "DELETE", "/api/v1/namespaces/sa/serviceaccounts/default", "", nil).Code)
	again := do(t, c, "GET", "/api/v1/namespaces/sa/serviceaccounts/default", "", nil)
	require.Equal(t, 200, again.Code, "the controller recreates a deleted default ServiceAccount")
	assert.NotEqual(t, sa.Object["metadata"].(map[string]any)["uid"], again.Object["metadata"].(map[string]any)["uid"])

	pod := do(t, c, "POST", "/api/v1/namespaces/sa/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`)
	require.Equal(t, 201, pod.Code, pod.Object)
	spec := pod.Object["spec"].(map[string]any)
	assert.Equal(t, "default", spec["serviceAccountName"])
	vols, _ := spec["volumes"].([]any)
	require.Len(t, vols, 1)
	assert.Regexp(t, `^kube-api-access-[a-z0-9]{5}$`, vols[0].(map[string]any)["name"])
	assert.Equal(t, map[string]any{"phase": "Pending", "qosClass": "BestEffort"}, pod.Object["status"])

	missing := do(t, c, "POST", "/api/v1/namespaces/sa/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"serviceAccountName":"ghost","containers":[{"name":"app","image":"nginx"}]}}`)
	assert.Equal(t, 403, missing.Code)
	assert.Equal(t, `pods "q" is forbidden: error looking up service account sa/ghost: serviceaccount "ghost" not found`, missing.Object["message"])
}

// TestLoadKeepsAStateFilesDefaultServiceAccount: a state file that carries a namespace's
// "default" ServiceAccount (as `kubectl get sa -o yaml` prints it) loads: the loaded one replaces
// the controller's.
func TestLoadKeepsAStateFilesDefaultServiceAccount(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	err = c.Load(t.Context(), []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "loaded"}},
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default", "namespace": "loaded", "labels": map[string]any{"from": "file"}},
			"imagePullSecrets": []any{map[string]any{"name": "regcred"}}},
	})
	require.NoError(t, err)
	sa := do(t, c, "GET", "/api/v1/namespaces/loaded/serviceaccounts/default", "", nil)
	require.Equal(t, 200, sa.Code)
	assert.Equal(t, map[string]any{"from": "file"}, sa.Object["metadata"].(map[string]any)["labels"])
	assert.Equal(t, []any{map[string]any{"name": "regcred"}}, sa.Object["imagePullSecrets"])
}

// TestNoServiceAccountController: with the controller off a new namespace has no ServiceAccount
// (envtest's control plane, kube-controller-manager --controllers=-serviceaccount), a Pod that
// names none is refused by the ServiceAccount admission plugin as kube-apiserver refuses it,
// and one created by hand admits it. Bootstrap's system namespaces get none either.
func TestNoServiceAccountController(t *testing.T) {
	c, err := cluster.New(cluster.Options{NoServiceAccountController: true, Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	require.NoError(t, c.Bootstrap(t.Context()))
	list := do(t, c, "GET", "/api/v1/serviceaccounts", "", nil)
	require.Equal(t, 200, list.Code)
	assert.Empty(t, list.Object["items"])

	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sa"}}`).Code)
	assert.Equal(t, 404, do(t, c, "GET", "/api/v1/namespaces/sa/serviceaccounts/default", "", nil).Code)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`
	refused := do(t, c, "POST", "/api/v1/namespaces/sa/pods", "application/json", pod)
	assert.Equal(t, 403, refused.Code)
	assert.Equal(t, `pods "p" is forbidden: error looking up service account sa/default: serviceaccount "default" not found`, refused.Object["message"])

	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/sa/serviceaccounts", "application/json", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`).Code)
	assert.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces/sa/pods", "application/json", pod).Code)
}

// TestDisableServiceAccountAdmission: with the ServiceAccount admission plugin off (envtest's
// kube-apiserver flags) a Pod is created without a ServiceAccount or token volume even where
// none exists.
func TestDisableServiceAccountAdmission(t *testing.T) {
	c, err := cluster.New(cluster.Options{NoServiceAccountController: true, DisableAdmissionPlugins: []string{"ServiceAccount"},
		Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"sa"}}`).Code)
	pod := do(t, c, "POST", "/api/v1/namespaces/sa/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`)
	require.Equal(t, 201, pod.Code, pod.Object)
	spec := pod.Object["spec"].(map[string]any)
	assert.NotContains(t, spec, "serviceAccountName")
	assert.NotContains(t, spec, "volumes")

}

// TestDisableAdmissionPluginsOption: New passes DisableAdmissionPlugins to the request path (a
// Node created without TaintNodesByCondition's taint, a ConfigMap in a namespace that does not
// exist without NamespaceLifecycle), accepts every plugin name kube-apiserver knows and refuses
// an unknown one with kube-apiserver's words (registry's TestDisableAdmissionPlugins has a row
// per plugin).
func TestDisableAdmissionPluginsOption(t *testing.T) {
	c, err := cluster.New(cluster.Options{DisableAdmissionPlugins: []string{"TaintNodesByCondition", "NamespaceLifecycle", "AlwaysPullImages"},
		Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	node := do(t, c, "POST", "/api/v1/nodes", "application/json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
	require.Equal(t, 201, node.Code, node.Object)
	assert.NotContains(t, node.Object["spec"], "taints")
	cm := do(t, c, "POST", "/api/v1/namespaces/gone/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)
	assert.Equal(t, 201, cm.Code, cm.Object)

	on, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	assert.Equal(t, 404, do(t, on, "POST", "/api/v1/namespaces/gone/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`).Code)

	var all []string
	for _, p := range registry.AdmissionPlugins() {
		all = append(all, p.Name)
	}
	_, err = cluster.New(cluster.Options{DisableAdmissionPlugins: all})
	assert.NoError(t, err)
	_, err = cluster.New(cluster.Options{DisableAdmissionPlugins: []string{"ServiceAccount", "NodeAuthorizer"}})
	assert.EqualError(t, err, `cluster: disable-admission-plugins plugin "NodeAuthorizer" is unknown`)
}
