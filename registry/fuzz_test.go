package registry_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

// FuzzHandle sends random requests over a random world: Handle never panics, never modifies its
// inputs or what the world returns, and answers every request with a status code.
func FuzzHandle(f *testing.F) {
	seeds := []struct{ method, path, ct, body, stored string }{
		{"POST", "/apis/apps/v1/namespaces/demo/deployments", "", deployment, ""},
		{"PATCH", "/apis/apps/v1/namespaces/demo/deployments/web", "application/strategic-merge-patch+json", `{"spec":{"replicas":3}}`, deployment},
		{"PATCH", "/apis/apps/v1/namespaces/demo/deployments/web?fieldManager=x", "application/apply-patch+yaml", deployment, deployment},
		{"PATCH", "/apis/apps/v1/namespaces/demo/deployments/web/scale", "application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":1}]`, deployment},
		{"PUT", "/apis/apps/v1/namespaces/demo/deployments/web/status", "", deployment, deployment},
		{"DELETE", "/apis/apps/v1/namespaces/demo/deployments/web?propagationPolicy=Orphan", "", "", deployment},
		{"GET", "/api/v1/namespaces/demo/pods/p", "", "", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"demo"}}`},
		{"POST", "/apis/stable.example.com/v1/namespaces/demo/crontabs", "", `{"metadata":{"name":"t"},"spec":{"replicas":1}}`, crontabCRD},
		{"DELETE", "/api/v1/namespaces/demo/configmaps", "", `{"gracePeriodSeconds":0}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"demo","finalizers":["x/y"]}}`},
		{"POST", "/api/v1/namespaces/demo/services", "", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.5","ports":[{"port":80}]}}`,
			defaultCIDR + "\n---\n" + `{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"10.0.0.6"},"spec":{"parentRef":{"resource":"services","namespace":"demo","name":"x"}}}`},
		{"PATCH", "/api/v1/namespaces/demo/services/s", "application/merge-patch+json", `{"spec":{"type":"ExternalName","externalName":"a.b","clusterIP":""}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"demo"},"spec":{"clusterIP":"10.0.0.5","clusterIPs":["10.0.0.5"],"ports":[{"port":80}]}}`},
		{"DELETE", "/api/v1/namespaces/demo/services/s", "", "", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"demo"},"spec":{"clusterIP":"10.0.0.5","clusterIPs":["10.0.0.5"],"ports":[{"port":80}]}}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.ct, []byte(s.body), []byte(s.stored))
	}
	f.Fuzz(func(t *testing.T, method, path, ct string, body, stored []byte) {
		var objs []map[string]any
		if docs, err := codec.DecodeDocuments(stored); err == nil {
			objs = docs
		}
		w, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true})
		if err != nil {
			return
		}
		before, err := value.DeepCopy(toAnyList(w.Objects()))
		require.NoError(t, err)
		bodyCopy := append([]byte(nil), body...)
		req := registry.Request{Method: method, Path: path, ContentType: ct, Body: body, Now: now}
		resp, writes, err := registry.Handle(context.Background(), w, req)
		if err != nil {
			require.Equal(t, 500, resp.Code)
		}
		require.NotZero(t, resp.Code)
		require.NotEmpty(t, resp.Body)
		require.True(t, bytes.Equal(bodyCopy, body), "the body was modified")
		require.True(t, value.Equal(before, toAnyList(w.Objects())), "the world's objects were modified")
		if resp.Code >= 400 {
			// Only a Service write refused after its allocation writes: the IPAddresses it
			// created, then their deletions.
			require.Zero(t, len(writes)%2, "writes of a refused request")
			for i, wr := range writes {
				require.Equal(t, "ipaddresses", wr.Resource.Resource)
				require.Equal(t, i >= len(writes)/2, wr.Delete)
			}
		}
	})
}

func toAnyList(objs []map[string]any) any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}
