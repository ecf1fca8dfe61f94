package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

// storedWorld is a world whose promised resourceVersions are placeholders far from any stored
// revision, as a storage that learns revisions at its commit would promise them.
type storedWorld struct{ *registry.Static }

func (storedWorld) NextResourceVersion() string { return "900" }

func TestStoredAnswersTheCommittedRevision(t *testing.T) {
	ctx := context.Background()
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"},"data":{"k":"v"}}`)
	for _, accept := range []string{"", "application/yaml"} {
		static, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
		require.NoError(t, err)
		w := storedWorld{static}
		req := registry.Request{Method: "POST", Path: "/api/v1/namespaces/default/configmaps", Body: body, Accept: accept, User: registry.User{Name: "admin", Groups: []string{"system:masters"}}, Now: time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)}
		resp, writes, err := registry.Handle(ctx, w, req)
		require.NoError(t, err)
		require.Equal(t, 201, resp.Code, "%s", resp.Body)
		require.Len(t, writes, 1)
		assert.Equal(t, "900", storedMeta(resp.Object)["resourceVersion"])

		same, err := registry.Stored(req, resp, map[string]string{"900": "900"})
		require.NoError(t, err)
		assert.Equal(t, resp.Body, same.Body, "a promise that held keeps the bytes (accept %q)", accept)

		got, err := registry.Stored(req, resp, map[string]string{"900": "42"})
		require.NoError(t, err)
		assert.Equal(t, resp.ContentType, got.ContentType)
		assert.Equal(t, resp.Code, got.Code)
		decoded, err := codec.DecodeObject(got.Body)
		require.NoError(t, err)
		assert.Equal(t, "42", storedMeta(decoded)["resourceVersion"], "the body carries the stored revision (accept %q)", accept)
		assert.Equal(t, "42", storedMeta(got.Object)["resourceVersion"])
		assert.Equal(t, "900", storedMeta(resp.Object)["resourceVersion"], "resp is not modified")
		delete(storedMeta(decoded), "resourceVersion")
		old, err := codec.DecodeObject(resp.Body)
		require.NoError(t, err)
		delete(storedMeta(old), "resourceVersion")
		assert.Equal(t, old, decoded, "nothing else changes")
	}
}

func TestStoredListItems(t *testing.T) {
	resp := registry.Response{Code: 200, ContentType: "application/json", Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMapList", "metadata": map[string]any{"resourceVersion": ""},
		"items": []any{
			map[string]any{"metadata": map[string]any{"name": "a", "resourceVersion": "7"}},
			map[string]any{"metadata": map[string]any{"name": "b", "resourceVersion": "901"}},
		}}}
	got, err := registry.Stored(registry.Request{Method: "DELETE"}, resp, map[string]string{"901": "12"})
	require.NoError(t, err)
	items := got.Object["items"].([]any)
	assert.Equal(t, "7", storedMeta(items[0].(map[string]any))["resourceVersion"], "an item read, not written, keeps its own")
	assert.Equal(t, "12", storedMeta(items[1].(map[string]any))["resourceVersion"])
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":""},"items":[{"metadata":{"name":"a","resourceVersion":"7"}},{"metadata":{"name":"b","resourceVersion":"12"}}]}`, string(got.Body))
}

func storedMeta(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}
