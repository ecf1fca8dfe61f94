package registry_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/writepath/writepath/internal/value"
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

// FuzzResourceQuota sends Pod, Service and claim creates into a namespace holding random
// ResourceQuotas (stored as given, any shape): Handle never panics, never modifies the request
// or the world's objects, answers with a status, and a refusal writes at most the quotas.
func FuzzResourceQuota(f *testing.F) {
	f.Add(uint8(0), `[{"spec":{"hard":{"pods":"1"}},"status":{"hard":{"pods":"1","requests.cpu":"1"},"used":{"pods":"0","requests.cpu":"0"}}}]`,
		`{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"2"}}}]}`)
	f.Add(uint8(0), `[{"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["a b"]}]}},"status":{"hard":{"pods":"1"},"used":{"pods":"0"}}}]`,
		`{"priorityClassName":"system-cluster-critical","containers":[{"name":"c","image":"x"}]}`)
	f.Add(uint8(1), `[{"status":{"hard":{"services.nodeports":"1"},"used":{"services.nodeports":"1e-2000000000"}}}]`,
		`{"type":"NodePort","ports":[{"port":80}]}`)
	f.Add(uint8(2), `[{"status":{"hard":"x","used":[1]}},{"spec":{"scopes":"x"},"status":{"hard":{"requests.storage":"1"},"used":{"requests.storage":"junk"}}}]`,
		`{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1.5"}}}`)
	f.Fuzz(func(t *testing.T, which uint8, quotas, spec string) {
		var qs []any
		var objSpec any
		if json.Unmarshal([]byte(quotas), &qs) != nil || json.Unmarshal([]byte(spec), &objSpec) != nil {
			return
		}
		var objs []map[string]any
		for i, q := range qs {
			m, ok := q.(map[string]any)
			if !ok {
				return
			}
			o := map[string]any{"apiVersion": "v1", "kind": "ResourceQuota",
				"metadata": map[string]any{"name": "q" + strconv.Itoa(i), "namespace": "demo", "uid": "u" + strconv.Itoa(i), "resourceVersion": "1"}}
			for _, k := range []string{"spec", "status"} {
				if v, ok := m[k]; ok {
					o[k] = v
				}
			}
			objs = append(objs, value.FromGoMap(o))
		}
		kind, resource := "Pod", "pods"
		switch which % 3 {
		case 1:
			kind, resource = "Service", "services"
		case 2:
			kind, resource = "PersistentVolumeClaim", "persistentvolumeclaims"
		}
		body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": "o"}, "spec": objSpec})
		w, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true})
		if err != nil {
			return
		}
		before, err := value.DeepCopy(toAnyList(w.Objects()))
		require.NoError(t, err)
		bodyCopy := append([]byte(nil), body...)
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: "/api/v1/namespaces/demo/" + resource, Body: body, Now: now})
		if err != nil {
			require.Equal(t, 500, resp.Code)
		}
		require.NotZero(t, resp.Code)
		require.Equal(t, bodyCopy, body, "the body was modified")
		require.True(t, value.Equal(before, toAnyList(w.Objects())), "the world's objects were modified")
		if resp.Code >= 400 {
			for _, wr := range writes {
				require.Contains(t, []string{"resourcequotas", "ipaddresses"}, wr.Resource.Resource, "a refused request writes only quotas (and reverts IPs)")
			}
		}
	})
}
