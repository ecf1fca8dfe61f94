package gotypes

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// The order below is kube-apiserver 1.37's, as it quoted a patched Deployment in a 422
// (testdata/registry/recorded/deployment.json, patch-merge-replicas-string): ObjectMeta's
// and ManagedFieldsEntry's fields in declaration order, maps sorted, <>& escaped.
func TestGoJSONFieldOrder(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	obj := map[string]any{
		"status": map[string]any{"replicas": int64(1)},
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"b": "1", "a": "2"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "x<y>&z"}}}}},
		"metadata": map[string]any{
			"managedFields":     []any{map[string]any{"fieldsV1": map[string]any{"f:spec": map[string]any{}}, "fieldsType": "FieldsV1", "time": "2026-12-02T00:54:27Z", "apiVersion": "apps/v1", "operation": "Update", "manager": "m"}},
			"annotations":       map[string]any{"z": "1", "a": "2"},
			"labels":            map[string]any{"app": "web"},
			"creationTimestamp": "2026-12-02T00:54:20Z", "generation": int64(4), "resourceVersion": "957", "uid": "u",
			"namespace": "ns", "name": "web",
		},
		"kind": "Deployment", "apiVersion": "apps/v1",
	}
	before, err := value.DeepCopyMap(obj)
	require.NoError(t, err)
	out, err := JSON(gvk, obj)
	require.NoError(t, err)
	assert.Equal(t, before, obj, "input modified")
	assert.Equal(t, `{"kind":"Deployment","apiVersion":"apps/v1",`+
		`"metadata":{"name":"web","namespace":"ns","uid":"u","resourceVersion":"957","generation":4,"creationTimestamp":"2026-12-02T00:54:20Z","labels":{"app":"web"},"annotations":{"a":"2","z":"1"},`+
		`"managedFields":[{"manager":"m","operation":"Update","apiVersion":"apps/v1","time":"2026-12-02T00:54:27Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},`+
		`"spec":{"replicas":2,"selector":{"matchLabels":{"a":"2","b":"1"}},"template":{"spec":{"containers":[{"name":"app","image":"x\u003cy\u003e\u0026z"}]}}},`+
		`"status":{"replicas":1}}`, string(out))
	var back map[string]any
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Len(t, back, len(obj))
}
