package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// TestDaemonSetTemplateGeneration: the DaemonSet strategy owns templateGeneration (apps/v1's
// deprecated.daemonset.template.generation annotation): 1 on create, +1 when a write changes the
// pod template, kept otherwise whatever the client sends (recorded: kinds/daemonset-create).
func TestDaemonSetTemplateGeneration(t *testing.T) {
	ctx := context.Background()
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	do := func(method, path, ct, body string) registry.Response {
		resp, writes, err := registry.Handle(ctx, w, registry.Request{Method: method, Path: path, ContentType: ct, Body: []byte(body)})
		require.NoError(t, err)
		require.NoError(t, w.Apply(writes))
		return resp
	}
	gen := func(resp registry.Response) any {
		return resp.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["deprecated.daemonset.template.generation"]
	}
	ds := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"app":"d"}},
	"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}}`
	created := do("POST", "/apis/apps/v1/namespaces/demo/daemonsets", "application/json", ds)
	require.Equal(t, 201, created.Code, created.Object)
	assert.Equal(t, "1", gen(created))
	p := "/apis/apps/v1/namespaces/demo/daemonsets/ds"
	image := do("PATCH", p, "application/strategic-merge-patch+json", `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}`)
	require.Equal(t, 200, image.Code, image.Object)
	assert.Equal(t, "2", gen(image))
	assert.EqualValues(t, 2, image.Object["metadata"].(map[string]any)["generation"])
	other := do("PATCH", p, "application/merge-patch+json", `{"metadata":{"annotations":{"deprecated.daemonset.template.generation":"9"}},"spec":{"minReadySeconds":5}}`)
	require.Equal(t, 200, other.Code, other.Object)
	assert.Equal(t, "2", gen(other), "a client cannot set templateGeneration")
}
