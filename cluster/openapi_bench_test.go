package cluster_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/cluster"
)

// BenchmarkOpenAPI: a fresh cluster (New), then the documents kubectl explain and apply read
// (/openapi/v3, a group version, /openapi/v2 in protobuf) and the aggregated /apis, without and
// with the CRDs of testdata/cluster/openapi/crds.yaml. The process-wide decoding of the embedded
// documents happens before the timer.
func BenchmarkOpenAPI(b *testing.B) {
	data, err := os.ReadFile("../testdata/cluster/openapi/crds.yaml")
	require.NoError(b, err)
	var crds [][]byte
	for _, doc := range strings.Split(string(data), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(b, err)
		crds = append(crds, j)
	}
	run := func(b *testing.B, withCRDs bool) {
		for i := 0; i < b.N; i++ {
			c, err := cluster.New(cluster.Options{})
			require.NoError(b, err)
			h := c.Handler()
			serve := func(method, path, accept string, body []byte) int {
				req := httptest.NewRequest(method, path, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", accept)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Code
			}
			if withCRDs {
				b.StopTimer()
				for _, crd := range crds {
					require.Equal(b, 201, serve("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", crd))
				}
				b.StartTimer()
			}
			for _, r := range []struct{ path, accept string }{
				{"/openapi/v3", ""}, {"/openapi/v3/apis/apps/v1", "application/json"},
				{"/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"},
				{"/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"},
			} {
				if code := serve("GET", r.path, r.accept, nil); code != 200 {
					b.Fatalf("%s: %d", r.path, code)
				}
			}
		}
	}
	run(b, true) // the embedded documents, decoded once per process (the parent runs once)
	b.Run("builtin", func(b *testing.B) { run(b, false) })
	b.Run("crds", func(b *testing.B) { run(b, true) })
}
