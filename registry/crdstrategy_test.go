package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestCRDStrategy: the CustomResourceDefinition strategy as recorded from kube-apiserver 1.37
// (testdata/cluster/scenarios, crd and crd-invalid): a create answers an empty status with the
// storage version stored; CRDs ValidateCustomResourceDefinition refuses are 422, and so is a
// changed scope.
func TestCRDStrategy(t *testing.T) {
	ctx := context.Background()
	w, err := registry.NewStatic(nil, registry.StaticOptions{})
	require.NoError(t, err)
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	now := time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)
	do := func(method, path, ct, body string) registry.Response {
		t.Helper()
		resp, writes, err := registry.Handle(ctx, w, registry.Request{Method: method, Path: path, ContentType: ct, Body: []byte(body), User: admin, Now: now})
		require.NoError(t, err)
		require.NoError(t, w.Apply(writes))
		return resp
	}
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]},"status":{"storedVersions":["v9"]}}`
	resp := do("POST", crds, "application/json", crd)
	require.Equal(t, 201, resp.Code, "%s", resp.Body)
	assert.Equal(t, map[string]any{"conditions": nil, "acceptedNames": map[string]any{"plural": "", "kind": ""}, "storedVersions": []any{"v1"}}, resp.Object["status"])

	resp = do("PATCH", crds+"/widgets.example.com", "application/merge-patch+json", `{"spec":{"scope":"Cluster"}}`)
	assert.Equal(t, 422, resp.Code)
	assert.Contains(t, string(resp.Body), `spec.scope: Invalid value: \"Cluster\": field is immutable`)

	resp = do("PATCH", crds+"/widgets.example.com", "application/json-patch+json",
		`[{"op":"add","path":"/spec/versions/-","value":{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}},{"op":"replace","path":"/spec/versions/0/storage","value":false},{"op":"replace","path":"/spec/versions/1/storage","value":true}]`)
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	assert.Equal(t, []any{"v1", "v2"}, resp.Object["status"].(map[string]any)["storedVersions"], "a new storage version is added to the stored ones")

	noSchema := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`
	resp = do("POST", crds, "application/json", noSchema)
	assert.Equal(t, 422, resp.Code)
	assert.Contains(t, string(resp.Body), "spec.versions[0].schema.openAPIV3Schema: Required value")

	badRule := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.nope > 1"}]}}}}}]}}`
	resp = do("POST", crds, "application/json", badRule)
	assert.Equal(t, 422, resp.Code)
	assert.Contains(t, string(resp.Body), "compilation failed")
}
