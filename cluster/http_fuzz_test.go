package cluster_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/writepath/writepath/cluster"
)

// FuzzHandler sends random requests to the REST handler: it never panics, always answers with a
// valid status code, and a JSON answer that is not a success is a metav1.Status.
func FuzzHandler(f *testing.F) {
	f.Add("POST", "/api/v1/namespaces", "application/json", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`))
	f.Add("PATCH", "/api/v1/namespaces/demo/configmaps/x?fieldManager=a", "application/apply-patch+yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
	f.Add("GET", "/apis/apps/v1/namespaces/demo/deployments?watch=1&sendInitialEvents=true", "", []byte(nil))
	f.Add("DELETE", "/api/v1/namespaces/demo?propagationPolicy=Foreground", "", []byte(`{"gracePeriodSeconds":-1}`))
	f.Add("GET", "/apis", "", []byte(nil))
	f.Add("PUT", "/apis/x/v1/y/z", "application/yaml", []byte("{"))
	f.Fuzz(func(t *testing.T, method, path, contentType string, body []byte) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n#") {
			return
		}
		c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Unix(0, 0).UTC())})
		if err != nil {
			t.Fatal(err)
		}
		h := c.Handler()
		for _, m := range []string{method, "GET"} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			req, err := http.NewRequestWithContext(ctx, m, "http://127.0.0.1"+path, bytes.NewReader(body))
			if err != nil {
				cancel()
				return
			}
			req.Header.Set("Content-Type", contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			cancel()
			if rec.Code < 100 || rec.Code > 599 {
				t.Fatalf("%s %s: status %d", m, path, rec.Code)
			}
			if rec.Code >= 400 && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") &&
				!bytes.Contains(rec.Body.Bytes(), []byte(`"kind":"Status"`)) {
				t.Fatalf("%s %s: %d without a Status body: %s", m, path, rec.Code, rec.Body.Bytes())
			}
		}
	})
}
