package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// TestResourceQuotaAdmission: a create a quota admits charges it, the quota's status written
// first through /status by kube-apiserver's loopback client; a create that exceeds it is 403
// in the plugin's words; a create refused in storage after admission (the name exists) keeps
// the charge; a dry run charges nothing; a quota whose status the controller has not written
// yet refuses what it tracks.
func TestResourceQuotaAdmission(t *testing.T) {
	w, err := registry.NewStatic(nil, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	do := func(method, path, body string) (registry.Response, []registry.Write) {
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, Body: []byte(body),
			UserAgent: "kubectl/v1.37.2"})
		require.NoError(t, err)
		require.NoError(t, w.Apply(writes))
		return resp, writes
	}
	r, _ := do("POST", "/api/v1/namespaces/demo/resourcequotas", `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"2","configmaps":"5"}}}`)
	require.Equal(t, 201, r.Code, r.Object)
	q := r.Object
	q["status"] = map[string]any{"hard": map[string]any{"pods": "2", "configmaps": "5"}, "used": map[string]any{"pods": "0", "configmaps": "0"}}
	body, err := json.Marshal(q)
	require.NoError(t, err)
	r, _ = do("PUT", "/api/v1/namespaces/demo/resourcequotas/q/status", string(body))
	require.Equal(t, 200, r.Code, r.Object)
	r, _ = do("POST", "/api/v1/namespaces/other/resourcequotas", `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"fresh"},"spec":{"hard":{"count/secrets":"1"}}}`)
	require.Equal(t, 201, r.Code, r.Object)
	r, _ = do("POST", "/api/v1/namespaces/other/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"before"}}`)
	require.Equal(t, 201, r.Code, "a quota without status.hard matches nothing")
	q = r.Object
	r, _ = do("GET", "/api/v1/namespaces/other/resourcequotas/fresh", "")
	q = r.Object
	q["status"] = map[string]any{"hard": map[string]any{"count/secrets": "1"}}
	body, err = json.Marshal(q)
	require.NoError(t, err)
	r, _ = do("PUT", "/api/v1/namespaces/other/resourcequotas/fresh/status", string(body))
	require.Equal(t, 200, r.Code, r.Object)
	pod := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","image":"x"}]}}`
	}
	used := func() map[string]any {
		q, err := w.Get(context.Background(), schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}, "demo", "q")
		require.NoError(t, err)
		return q["status"].(map[string]any)["used"].(map[string]any)
	}

	r, writes := do("POST", "/api/v1/namespaces/demo/pods", pod("a"))
	require.Equal(t, 201, r.Code, r.Object)
	require.Len(t, writes, 2)
	assert.Equal(t, "resourcequotas", writes[0].Resource.Resource, "the quota is written first")
	var managers []string
	for _, e := range writes[0].Object["metadata"].(map[string]any)["managedFields"].([]any) {
		m := e.(map[string]any)
		managers = append(managers, m["manager"].(string)+"/"+m["operation"].(string)+"/"+stringOr(m["subresource"]))
	}
	assert.Contains(t, managers, "kube-apiserver/Update/status")
	assert.Equal(t, map[string]any{"pods": "1", "configmaps": "0"}, used())

	r, writes = do("POST", "/api/v1/namespaces/demo/pods", pod("a"))
	assert.Equal(t, 409, r.Code, "the name exists")
	require.Len(t, writes, 1, "the charge stays")
	assert.Equal(t, map[string]any{"pods": "2", "configmaps": "0"}, used())

	r, _ = do("POST", "/api/v1/namespaces/demo/pods", pod("b"))
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`, r.Object["message"])

	r, writes = do("POST", "/api/v1/namespaces/demo/configmaps?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)
	assert.Equal(t, 201, r.Code)
	assert.Empty(t, writes)
	assert.Equal(t, map[string]any{"pods": "2", "configmaps": "0"}, used())

	r, _ = do("POST", "/api/v1/namespaces/other/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"generateName":"s-"}}`)
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, `secrets "s-bbbbb" is forbidden: status unknown for quota: fresh, resources: count/secrets`, r.Object["message"])
}

func stringOr(v any) string { s, _ := v.(string); return s }
