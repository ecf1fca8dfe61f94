package cluster_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

// Deleting a CRD as kube-apiserver 1.37 does: the DELETE answers the CRD with its deletion
// timestamp, the cleanup finalizer and the Terminating condition (recorded:
// crd/crd-delete-with-objects/delete-crd); apiextensions' finalizer controller deletes the
// instances and then the CRD, waiting for an instance that a finalizer of its own holds.
func TestCRDDeleteFinalizesInstances(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	do := func(method, path, body string) registry.Response {
		resp, err := c.Do(ctx, registry.Request{Method: method, Path: path, ContentType: "application/json", Body: []byte(body)})
		require.NoError(t, err)
		return resp
	}
	const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com"
	require.Equal(t, 201, do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", fmt.Sprintf(celCRD, 5)).Code)
	require.Equal(t, 201, do("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`).Code)
	require.Equal(t, 201, do("POST", "/apis/example.com/v1/namespaces/demo/gadgets", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"free"}}`).Code)
	require.Equal(t, 201, do("POST", "/apis/example.com/v1/namespaces/demo/gadgets", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"held","finalizers":["example.com/hold"]}}`).Code)
	before := do("GET", crdPath, "").Object

	conflict := do("DELETE", crdPath, `{"preconditions":{"uid":"not-it"}}`)
	assert.Equal(t, 409, conflict.Code)
	assert.Contains(t, string(conflict.Body), "Precondition failed: UID in precondition: not-it, UID in object meta: ")

	resp := do("DELETE", crdPath, "")
	require.Equal(t, 200, resp.Code, "%s", resp.Body)
	crd := resp.Object
	assert.Equal(t, "apiextensions.k8s.io/v1", crd["apiVersion"], "the answer is the CRD, not a Status")
	md := crd["metadata"].(map[string]any)
	assert.NotNil(t, md["deletionTimestamp"])
	assert.Equal(t, []any{"customresourcecleanup.apiextensions.k8s.io"}, md["finalizers"])
	assert.Equal(t, before["metadata"].(map[string]any)["managedFields"], md["managedFields"], "the storage's own update: no manager")
	conds := crd["status"].(map[string]any)["conditions"].([]any)
	last := conds[len(conds)-1].(map[string]any)
	assert.Equal(t, "Terminating", last["type"])
	assert.Equal(t, "InstanceDeletionPending", last["reason"])

	// The controller deleted the free instance; the held one waits for its finalizer.
	assert.Equal(t, 404, do("GET", "/apis/example.com/v1/namespaces/demo/gadgets/free", "").Code)
	held := do("GET", "/apis/example.com/v1/namespaces/demo/gadgets/held", "")
	require.Equal(t, 200, held.Code)
	assert.NotNil(t, held.Object["metadata"].(map[string]any)["deletionTimestamp"])
	waiting := do("GET", crdPath, "")
	require.Equal(t, 200, waiting.Code, "the CRD waits for its instances")
	conds = waiting.Object["status"].(map[string]any)["conditions"].([]any)
	assert.Equal(t, "InstanceDeletionInProgress", conds[len(conds)-1].(map[string]any)["reason"])

	patched, err := c.Do(ctx, registry.Request{Method: "PATCH", Path: "/apis/example.com/v1/namespaces/demo/gadgets/held",
		ContentType: "application/merge-patch+json", Body: []byte(`{"metadata":{"finalizers":null}}`)})
	require.NoError(t, err)
	require.Equal(t, 200, patched.Code, "%s", patched.Body)
	assert.Equal(t, 404, do("GET", "/apis/example.com/v1/namespaces/demo/gadgets/held", "").Code)
	assert.Equal(t, 404, do("GET", crdPath, "").Code, "the last instance gone, the finalizer controller removed its finalizer")
}
