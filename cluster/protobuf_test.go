package cluster_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/codec/protobuf"
)

const protoMedia = "application/vnd.kubernetes.protobuf"

func protoServe(t *testing.T, h http.Handler, method, path, contentType, accept string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func protoCluster(t *testing.T) http.Handler {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	return c.Handler()
}

// TestProtobufBuiltins: a protobuf body is read and a protobuf answer written for built-in
// kinds, errors included (a protobuf Status), as client-go's typed clients ask.
func TestProtobufBuiltins(t *testing.T) {
	h := protoCluster(t)
	accept := protoMedia + ", application/json"
	ns, err := protobuf.Encode(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}})
	require.NoError(t, err)
	rec := protoServe(t, h, "POST", "/api/v1/namespaces", protoMedia, accept, ns)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	assert.Equal(t, protoMedia, rec.Header().Get("Content-Type"))
	got, err := protobuf.Decode(rec.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "Namespace", got["kind"])
	assert.Equal(t, "Active", got["status"].(map[string]any)["phase"])

	cm, err := protobuf.Encode(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"k": "v"}})
	require.NoError(t, err)
	rec = protoServe(t, h, "POST", "/api/v1/namespaces/demo/configmaps", protoMedia, protoMedia, cm)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	rec = protoServe(t, h, "GET", "/api/v1/namespaces/demo/configmaps", "", protoMedia, nil)
	require.Equal(t, 200, rec.Code)
	list, err := protobuf.Decode(rec.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "ConfigMapList", list["kind"])
	assert.Len(t, list["items"], 1)

	rec = protoServe(t, h, "GET", "/api/v1/namespaces/demo/configmaps/missing", "", accept, nil)
	require.Equal(t, 404, rec.Code)
	assert.Equal(t, protoMedia, rec.Header().Get("Content-Type"))
	st, err := protobuf.Decode(rec.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "Status", st["kind"])
	assert.Equal(t, "NotFound", st["reason"])
	assert.Equal(t, int64(404), st["code"])

	// JSON clients are unaffected.
	rec = protoServe(t, h, "GET", "/api/v1/namespaces/demo/configmaps/c", "", "application/json", nil)
	require.Equal(t, 200, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))

	// DeleteOptions in protobuf, as client-go sends them.
	del, err := protobuf.Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions", "propagationPolicy": "Background"})
	require.NoError(t, err)
	rec = protoServe(t, h, "DELETE", "/api/v1/namespaces/demo/configmaps/c", protoMedia, accept, del)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Equal(t, protoMedia, rec.Header().Get("Content-Type"))
}

// TestProtobufCustomResources: custom resources have no protobuf: a protobuf body is 415, an
// Accept of protobuf alone is 406, and protobuf-then-JSON answers JSON.
func TestProtobufCustomResources(t *testing.T) {
	h := protoCluster(t)
	crd := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"kind":"CronTab","listKind":"CronTabList","plural":"crontabs","singular":"crontab"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)
	rec := protoServe(t, h, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", "", crd)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	rec = protoServe(t, h, "POST", "/api/v1/namespaces", "application/json", "", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"jobs"}}`))
	require.Equal(t, 201, rec.Code, rec.Body.String())
	cr := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}`)
	rec = protoServe(t, h, "POST", "/apis/stable.example.com/v1/namespaces/jobs/crontabs", "application/json", "", cr)
	require.Equal(t, 201, rec.Code, rec.Body.String())

	rec = protoServe(t, h, "POST", "/apis/stable.example.com/v1/namespaces/jobs/crontabs", protoMedia, "", []byte("k8s\x00"))
	assert.Equal(t, 415, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "accepted media types include: application/json, application/yaml")

	rec = protoServe(t, h, "GET", "/apis/stable.example.com/v1/namespaces/jobs/crontabs/a", "", protoMedia, nil)
	assert.Equal(t, 406, rec.Code, rec.Body.String())
	rec = protoServe(t, h, "GET", "/apis/stable.example.com/v1/namespaces/jobs/crontabs/a", "", protoMedia+", application/json", nil)
	assert.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
}

// TestProtobufWatch: a watch asked in protobuf streams length-prefixed WatchEvent frames.
func TestProtobufWatch(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	defer srv.Close()
	hc := kubeconfigClient(srv.Kubeconfig())
	post := func(path, body string) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, 201, resp.StatusCode)
	}
	post("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"w"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/namespaces/w/configmaps?watch=true", nil)
	req.Header.Set("Accept", protoMedia+", application/json")
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, protoMedia+";stream=watch", resp.Header.Get("Content-Type"))
	post("/api/v1/namespaces/w/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		typ, obj, _, err := protobuf.ReadWatchEvent(buf)
		if err == nil {
			assert.Equal(t, "ADDED", typ)
			assert.Equal(t, "x", obj["metadata"].(map[string]any)["name"])
			return
		}
		n, rerr := resp.Body.Read(chunk)
		require.NoError(t, rerr)
		buf = append(buf, chunk[:n]...)
	}
}

// FuzzProtobufHandler: any body sent as protobuf, with protobuf asked, never panics the
// handler and always gets a valid status.
func FuzzProtobufHandler(f *testing.F) {
	ns, _ := protobuf.Encode(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}})
	f.Add("POST", "/api/v1/namespaces", ns)
	f.Add("PUT", "/api/v1/namespaces/demo", ns)
	f.Add("DELETE", "/api/v1/namespaces/demo", []byte("k8s\x00\x0a\x00"))
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n#?") {
			return
		}
		c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Unix(0, 0).UTC())})
		require.NoError(t, err)
		req, err := http.NewRequest(method, "http://127.0.0.1"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", protoMedia)
		req.Header.Set("Accept", protoMedia+", application/json")
		rec := httptest.NewRecorder()
		c.Handler().ServeHTTP(rec, req)
		if rec.Code < 100 || rec.Code > 599 {
			t.Fatalf("%s %s: status %d", method, path, rec.Code)
		}
	})
}
