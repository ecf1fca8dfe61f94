package registry_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestDeleteAnswersTheDeletionRevision: a DELETE whose answer is the object (a ServiceAccount)
// answers it at the deletion's own resourceVersion, the one the removed object is written with,
// as kube-apiserver does (recorded in testdata/cluster/scenarios, crud-serviceaccount/delete).
func TestDeleteAnswersTheDeletionRevision(t *testing.T) {
	ctx := context.Background()
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	now := time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)
	do := func(method, path, body string) (registry.Response, []registry.Write) {
		t.Helper()
		resp, writes, err := registry.Handle(ctx, w, registry.Request{Method: method, Path: path, ContentType: "application/json", Body: []byte(body), User: admin, Now: now})
		require.NoError(t, err)
		require.NoError(t, w.Apply(writes))
		return resp, writes
	}
	created, _ := do("POST", "/api/v1/namespaces/demo/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa"}}`)
	require.Equal(t, 201, created.Code, "%s", created.Body)
	before, err := strconv.Atoi(storedMeta(created.Object)["resourceVersion"].(string))
	require.NoError(t, err)
	resp, writes := do("DELETE", "/api/v1/namespaces/demo/serviceaccounts/sa", "")
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	require.Len(t, writes, 1)
	assert.True(t, writes[0].Delete)
	rv := storedMeta(resp.Object)["resourceVersion"].(string)
	after, err := strconv.Atoi(rv)
	require.NoError(t, err)
	assert.Greater(t, after, before, "the deletion has a revision of its own")
	assert.Equal(t, rv, storedMeta(writes[0].Object)["resourceVersion"], "the removed object carries it")
}

// TestDeleteOptionsValidatedFirst: DeleteOptions are validated before the object is read, so a
// DELETE of a missing object with an unsupported propagationPolicy is 422, not 404 (recorded
// in testdata/cluster/scenarios, err-query/propagation).
func TestDeleteOptionsValidatedFirst(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "DELETE", Path: "/api/v1/namespaces/demo/configmaps/x?propagationPolicy=Sideways",
		User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, 422, resp.Code, "%s", resp.Body)
	assert.Contains(t, string(resp.Body), `DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\"`)
}
