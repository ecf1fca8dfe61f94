package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// A deleted namespace that another finalizer holds: the namespace controller's finalize goes
// through PUT /finalize as kube-controller-manager's, so spec.finalizers moves from the
// creator's managedFields entry to kube-controller-manager's "finalize" entry, beside its
// "status" entry for the conditions, as kube-apiserver 1.37 records (the scenario corpus's
// namespace/ns-finalize).
func TestNamespaceFinalizeManagedFields(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"held"},"spec":{"finalizers":["example.com/custom"]}}`)
	require.Equal(t, 201, code)
	code, _, _ = c.do("DELETE", "/api/v1/namespaces/held", "", "")
	require.Equal(t, 200, code)
	code, ns, _ := c.do("GET", "/api/v1/namespaces/held", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, []any{"example.com/custom"}, ns["spec"].(map[string]any)["finalizers"], "kubernetes is finalized, the custom finalizer holds the namespace")
	type owner struct{ manager, subresource string }
	owns := map[owner]map[string]any{}
	for _, e := range meta(ns)["managedFields"].([]any) {
		m := e.(map[string]any)
		sub, _ := m["subresource"].(string)
		owns[owner{m["manager"].(string), sub}] = m["fieldsV1"].(map[string]any)
	}
	require.Len(t, owns, 3, "%v", owns)
	assert.Equal(t, map[string]any{"f:spec": map[string]any{"f:finalizers": map[string]any{}}}, owns[owner{"kube-controller-manager", "finalize"}])
	assert.Contains(t, owns[owner{"kube-controller-manager", "status"}], "f:status")
	creator := owns[owner{"Go-http-client", ""}]
	require.NotNil(t, creator, "%v", owns)
	assert.NotContains(t, creator, "f:spec", "the finalize changed spec.finalizers: no longer the creator's")
}
