package registry_test

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

// dialCRD is a CRD with v2 (spec.knob) served beside v1 (spec.level, the storage version),
// converted by strategy (None, or Webhook to url trusting ca).
func dialCRD(t *testing.T, strategy, url string, ca []byte) map[string]any {
	conv := `"conversion":{"strategy":"None"},`
	if strategy == "Webhook" {
		conv = fmt.Sprintf(`"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":%q,"caBundle":%q}}},`,
			url, base64.StdEncoding.EncodeToString(ca))
	}
	obj, err := codec.DecodeObject([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"dials.ex.com"},
 "spec":{"group":"ex.com","scope":"Namespaced","names":{"plural":"dials","singular":"dial","kind":"Dial","listKind":"DialList"},` + conv + `
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}},
  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`))
	require.NoError(t, err)
	return obj
}

// dialWebhook is an HTTPS conversion webhook renaming spec.knob (v2) to spec.level (v1) and
// back; it counts its calls.
func dialWebhook(t *testing.T, calls *atomic.Int32) *httptest.Server {
	reg := conversion.NewRegistry("v1")
	rename := func(from, to string) func(map[string]any) (map[string]any, error) {
		return func(obj map[string]any) (map[string]any, error) {
			if spec, ok := obj["spec"].(map[string]any); ok {
				if v, ok := spec[from]; ok {
					spec[to] = v
					delete(spec, from)
				}
			}
			return obj, nil
		}
	}
	require.NoError(t, reg.Register("v2", conversion.Spoke{ToHub: rename("knob", "level"), FromHub: rename("level", "knob")}))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		resp, err := reg.Call(r.Context(), body)
		if err != nil {
			http.Error(rw, err.Error(), 500)
			return
		}
		rw.Header().Set("Content-Type", resp.ContentType)
		rw.WriteHeader(resp.StatusCode)
		_, _ = rw.Write(resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A custom resource is stored in its CRD's storage version: strategy Webhook converts a write
// through another version with the conversion webhook (and reads the stored object back through
// the request's version for the answer, a dry run too); strategy None rewrites apiVersion only.
func TestCustomResourcesStoredInTheStorageVersion(t *testing.T) {
	var calls atomic.Int32
	hook := dialWebhook(t, &calls)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	admin := registry.User{Name: "admin", Groups: []string{"system:masters"}}
	now := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		strategy  string
		storedKey string // the stored spec's key
		calls     int32  // webhook calls of the create through v2
	}{
		{strategy: "None", storedKey: "knob", calls: 0},
		{strategy: "Webhook", storedKey: "level", calls: 2},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			w, err := registry.NewStatic([]map[string]any{dialCRD(t, tc.strategy, hook.URL+"/convert", ca)},
				registry.StaticOptions{ImplicitNamespaces: true, ConversionWebhooks: true})
			require.NoError(t, err)
			do := func(method, path, body string) (registry.Response, []registry.Write) {
				t.Helper()
				resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: "application/json", Body: []byte(body), User: admin, Now: now})
				require.NoError(t, err)
				require.NoError(t, w.Apply(writes))
				return resp, writes
			}
			calls.Store(0)
			dial := `{"apiVersion":"ex.com/v2","kind":"Dial","metadata":{"name":"d"},"spec":{"knob":"high"}}`
			dry, writes := do("POST", "/apis/ex.com/v2/namespaces/demo/dials?dryRun=All", dial)
			require.Equal(t, 201, dry.Code, "%s", dry.Body)
			assert.Empty(t, writes)
			assert.Equal(t, tc.calls, calls.Load(), "a dry run goes through the storage codec too")

			calls.Store(0)
			created, writes := do("POST", "/apis/ex.com/v2/namespaces/demo/dials", dial)
			require.Equal(t, 201, created.Code, "%s", created.Body)
			assert.Equal(t, tc.calls, calls.Load())
			assert.Equal(t, "ex.com/v2", created.Object["apiVersion"])
			assert.Equal(t, map[string]any{"knob": "high"}, created.Object["spec"], "the answer is in the request's version")
			require.Len(t, writes, 1)
			assert.Equal(t, "ex.com/v1", writes[0].Object["apiVersion"], "stored in the storage version")
			assert.Equal(t, map[string]any{tc.storedKey: "high"}, writes[0].Object["spec"])
			assert.Equal(t, storedMeta(created.Object)["resourceVersion"], storedMeta(writes[0].Object)["resourceVersion"])

			calls.Store(0)
			got, _ := do("GET", "/apis/ex.com/v2/namespaces/demo/dials/d", "")
			require.Equal(t, 200, got.Code, "%s", got.Body)
			assert.Equal(t, map[string]any{"knob": "high"}, got.Object["spec"])
			assert.Equal(t, storedMeta(created.Object)["resourceVersion"], storedMeta(got.Object)["resourceVersion"])
			got, _ = do("GET", "/apis/ex.com/v1/namespaces/demo/dials/d", "")
			assert.Equal(t, map[string]any{tc.storedKey: "high"}, got.Object["spec"])
			assert.Equal(t, tc.calls/2, calls.Load(), "one conversion for the read through v2, none through v1")
		})
	}
}

// A webhook that cannot be reached fails a write through another version than the storage one
// with the apiserver's 500 (no reason) and stores nothing.
func TestConversionWebhookUnreachable(t *testing.T) {
	var calls atomic.Int32
	hook := dialWebhook(t, &calls)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	url := hook.URL + "/convert"
	hook.Close()
	w, err := registry.NewStatic([]map[string]any{dialCRD(t, "Webhook", url, ca)}, registry.StaticOptions{ImplicitNamespaces: true, ConversionWebhooks: true})
	require.NoError(t, err)
	resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: "POST", Path: "/apis/ex.com/v2/namespaces/demo/dials", ContentType: "application/json",
		Body: []byte(`{"apiVersion":"ex.com/v2","kind":"Dial","metadata":{"name":"d"},"spec":{"knob":"high"}}`), Now: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, 500, resp.Code)
	assert.Empty(t, writes)
	assert.Nil(t, resp.Object["reason"])
	assert.Regexp(t, `^conversion webhook for ex.com/v2, Kind=Dial failed: Post "https://127.0.0.1:\d+/convert\?timeout=30s": dial tcp 127.0.0.1:\d+: connect: connection refused$`, resp.Object["message"])
}
