package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestTerminatingNamespaceUpdated: an update of a terminating namespace without metadata
// finalizers keeps it while spec.finalizers is not empty, as the namespace storage's
// ShouldDeleteDuringUpdate does; only once the namespace controller has finalized it does an
// update delete it.
func TestTerminatingNamespaceUpdated(t *testing.T) {
	ctx := context.Background()
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team", "uid": "u1", "resourceVersion": "5",
		"deletionTimestamp": "2026-12-03T13:00:00Z", "deletionGracePeriodSeconds": int64(0), "labels": map[string]any{"kubernetes.io/metadata.name": "team"}},
		"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Terminating"}}
	w, err := registry.NewStatic([]map[string]any{ns}, registry.StaticOptions{})
	require.NoError(t, err)
	req := registry.Request{Method: "PATCH", Path: "/api/v1/namespaces/team/status", ContentType: "application/merge-patch+json",
		Body: []byte(`{"status":{"conditions":[{"type":"NamespaceContentRemaining","status":"True"}]}}`),
		User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 3, 13, 0, 1, 0, time.UTC)}
	resp, writes, err := registry.Handle(ctx, w, req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	require.Len(t, writes, 1)
	assert.False(t, writes[0].Delete, "spec.finalizers still holds it")

	req.Path, req.Method, req.ContentType = "/api/v1/namespaces/team/finalize", "PUT", "application/json"
	req.Body = []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"},"spec":{"finalizers":[]}}`)
	require.NoError(t, w.Apply(writes))
	resp, writes, err = registry.Handle(ctx, w, req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	require.Len(t, writes, 1)
	assert.True(t, writes[0].Delete, "finalized, it is deleted")
}
