package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/writepath/writepath/cluster"
)

// FuzzHandler sends random requests to the REST handler: it never panics, always answers with a
// valid status code, and a JSON answer that is not a success is a metav1.Status. accept is the
// Accept header (Table, PartialObjectMetadata, protobuf and their parameters).
func FuzzHandler(f *testing.F) {
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	f.Add("POST", "/api/v1/namespaces", "application/json", "", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`))
	f.Add("PATCH", "/api/v1/namespaces/demo/configmaps/x?fieldManager=a", "application/apply-patch+yaml", table, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
	f.Add("GET", "/apis/apps/v1/namespaces/demo/deployments?watch=1&sendInitialEvents=true", "", table, []byte(nil))
	f.Add("DELETE", "/api/v1/namespaces/demo?propagationPolicy=Foreground", "", "", []byte(`{"gracePeriodSeconds":-1}`))
	f.Add("GET", "/apis", "", "", []byte(nil))
	f.Add("GET", "/apis", "", "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", []byte(nil))
	f.Add("GET", "/api", "", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", []byte(nil))
	f.Add("GET", "/openapi/v3", "", "", []byte(nil))
	f.Add("GET", "/openapi/v3/apis/apps/v1?hash=00", "", "application/json;q=0.5,text/*", []byte(nil))
	f.Add("POST", "/openapi/v3/api/v1/", "application/json", "*/*", []byte("{}"))
	f.Add("GET", "/openapi/v2", "", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.9,application/com.github.proto-openapi.spec.v2@v1.0+protobuf,application/json;q=0.8", []byte(nil))
	f.Add("PUT", "/apis/x/v1/y/z", "application/yaml", "", []byte("{"))
	f.Add("POST", "/api/v1/namespaces?includeObject=Object", "application/json", "application/yaml;as=Table;g=meta.k8s.io;v=v1beta1", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`))
	f.Add("GET", "/api/v1/namespaces?includeObject=x", "", table, []byte(nil))
	f.Add("GET", "/api/v1/namespaces/demo/pods?watch=true", "", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json", []byte(nil))
	f.Add("GET", "/apis/x.example.com/v1/ys", "", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1;q=0", []byte(nil))
	f.Add("GET", "/api/v1/nodes", "", "*/*;as=Table;g=meta.k8s.io;v=v1;stream=watch;sv=v2,text/*", []byte(nil))
	f.Fuzz(func(t *testing.T, method, path, contentType, accept string, body []byte) {
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
			req.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			cancel()
			if rec.Code < 100 || rec.Code > 599 {
				t.Fatalf("%s %s: status %d", m, path, rec.Code)
			}
			var answer struct {
				Kind string `json:"kind"`
			}
			if rec.Code >= 400 && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") &&
				(json.Unmarshal(rec.Body.Bytes(), &answer) != nil || answer.Kind != "Status") {
				t.Fatalf("%s %s: %d without a Status body: %s", m, path, rec.Code, rec.Body.Bytes())
			}
		}
	})
}
