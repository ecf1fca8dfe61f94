package cluster_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/cluster"
)

// get fetches path with an Accept header and returns the status, body and headers.
func (c *client) get(path, accept string) (int, []byte, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest("GET", c.srv.URL+path, nil)
	require.NoError(c.t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("Authorization", "Bearer "+c.srv.Token)
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, b, resp.Header
}

func gunzipJSON(t *testing.T, file string) any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.NewDecoder(zr).Decode(&v))
	return v
}

type openAPIIndex struct {
	Paths map[string]struct {
		URL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

func (c *client) openAPIIndex() openAPIIndex {
	c.t.Helper()
	code, b, h := c.get("/openapi/v3", "application/json")
	require.Equal(c.t, 200, code, "%s", b)
	assert.Equal(c.t, "text/plain; charset=utf-8", h.Get("Content-Type"), "kube-openapi leaves it to net/http's sniffing")
	assert.Equal(c.t, "no-cache, private", h.Get("Cache-Control"))
	var idx openAPIIndex
	require.NoError(c.t, json.Unmarshal(b, &idx))
	return idx
}

// Every built-in group version of /openapi/v3 is the document the real apiserver served
// (data/openapi/v3), reached through the index's serverRelativeURL with the apiserver's caching
// headers.
func TestOpenAPIV3BuiltinAsRecorded(t *testing.T) {
	c := start(t, cluster.Options{})
	idx := c.openAPIIndex()
	files, err := filepath.Glob("data/openapi/v3/*.json.gz")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	other, err := filepath.Glob("data/openapi/v3-other/*.json.gz")
	require.NoError(t, err)
	require.NotEmpty(t, other)
	files = append(files, other...)
	for _, f := range files {
		p := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(f), ".json.gz"), "__", "/")
		e, ok := idx.Paths[p]
		if !assert.True(t, ok, "index has %s", p) {
			continue
		}
		require.True(t, strings.HasPrefix(e.URL, "/openapi/v3/"+p+"?hash="), e.URL)
		hash := strings.TrimPrefix(e.URL, "/openapi/v3/"+p+"?hash=")
		code, b, h := c.get(e.URL, "application/json")
		require.Equal(t, 200, code, "%s: %s", e.URL, b)
		assert.Equal(t, "application/json", h.Get("Content-Type"), p)
		assert.Equal(t, `"`+hash+`"`, h.Get("Etag"), p)
		assert.Equal(t, "public, immutable", h.Get("Cache-Control"), p)
		assert.Equal(t, "Accept", h.Get("Vary"), p)
		assert.NotEmpty(t, h.Get("Expires"), p)
		var got any
		require.NoError(t, json.Unmarshal(b, &got), p)
		assert.Equal(t, gunzipJSON(t, f), got, p)
	}
}

func TestOpenAPIV3HashAndNegotiation(t *testing.T) {
	c := start(t, cluster.Options{})
	url := c.openAPIIndex().Paths["apis/apps/v1"].URL
	require.NotEmpty(t, url)

	// Without a hash: the document, its ETag, not cached.
	code, _, h := c.get("/openapi/v3/apis/apps/v1", "")
	assert.Equal(t, 200, code)
	assert.NotEmpty(t, h.Get("Etag"))
	assert.Equal(t, "no-cache, private", h.Get("Cache-Control"))
	assert.Empty(t, h.Get("Expires"))

	// A stale hash is moved permanently to the current one.
	req, err := http.NewRequest("GET", c.srv.URL+"/openapi/v3/apis/apps/v1?hash=0123", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.srv.Token)
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	assert.Equal(t, url, resp.Header.Get("Location"))

	// An unknown path is 404; an Accept without JSON is 406.
	code, _, _ = c.get("/openapi/v3/apis/nope/v1", "")
	assert.Equal(t, 404, code)
	code, _, _ = c.get(url, "text/plain")
	assert.Equal(t, 406, code)
}

// startWithCRDs starts a cluster holding the CRDs of testdata/cluster/openapi/crds.yaml.
func startWithCRDs(t *testing.T) *client {
	t.Helper()
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	b, err := os.ReadFile("../testdata/cluster/openapi/crds.yaml")
	require.NoError(t, err)
	var objs []map[string]any
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var o map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &o))
		objs = append(objs, o)
	}
	require.NoError(t, c.Load(context.Background(), objs))
	srv := cluster.StartTLS(c)
	t.Cleanup(srv.Close)
	return &client{t: t, srv: srv, hc: srvClient(srv)}
}

func readJSON(t *testing.T, file string) any {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

// The documents of the CRDs' served group versions are those the real apiserver published
// for the same CRDs (testdata/cluster/openapi/crd-v3, record.sh), and the index lists them.
func TestOpenAPIV3CRDsAsRecorded(t *testing.T) {
	c := startWithCRDs(t)
	idx := c.openAPIIndex()
	recorded := readJSON(t, "../testdata/cluster/openapi/crd-v3/index.json").(map[string]any)["paths"].(map[string]any)
	var want, got []string
	for p := range recorded {
		want = append(want, p)
	}
	for p := range idx.Paths {
		got = append(got, p)
	}
	assert.ElementsMatch(t, want, got, "the index names the paths the apiserver's does")
	files, err := filepath.Glob("../testdata/cluster/openapi/crd-v3/apis__*.json")
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		p := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(f), ".json"), "__", "/")
		code, b, _ := c.get(idx.Paths[p].URL, "application/json")
		require.Equal(t, 200, code, p)
		var doc any
		require.NoError(t, json.Unmarshal(b, &doc))
		assert.Equal(t, readJSON(t, f), doc, p)
	}
	_, ok := idx.Paths["apis/other.example.org/v1"]
	assert.False(t, ok, "a version that is not served has no document")
}

// The CRDs' paths and definitions in /openapi/v2 are the real apiserver's (its shared
// parameters, #/parameters/..., read in place).
func TestOpenAPIV2CRDsAsRecorded(t *testing.T) {
	c := startWithCRDs(t)
	code, b, h := c.get("/openapi/v2", "application/json")
	require.Equal(t, 200, code)
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, []string{"Accept-Encoding", "Accept"}, h.Values("Vary"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	rec := readJSON(t, "../testdata/cluster/openapi/crd-v2.json").(map[string]any)
	params := rec["parameters"].(map[string]any)
	var inline func(v any) any
	inline = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/parameters/") {
				return params[strings.TrimPrefix(ref, "#/parameters/")]
			}
			out := map[string]any{}
			for k, e := range x {
				out[k] = inline(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = inline(e)
			}
			return out
		}
		return v
	}
	paths := doc["paths"].(map[string]any)
	defs := doc["definitions"].(map[string]any)
	for p, want := range rec["paths"].(map[string]any) {
		assert.Equal(t, inline(want), paths[p], p)
	}
	for d, want := range rec["definitions"].(map[string]any) {
		assert.Equal(t, want, defs[d], d)
	}
	assert.NotNil(t, defs["io.k8s.api.apps.v1.Deployment"], "the built-in definitions stay")
}

// /openapi/v2 answers JSON, protobuf for either of its media type names (kubectl sends both),
// and 406 with no body for anything else, with the apiserver's headers (headers.txt).
func TestOpenAPIV2Headers(t *testing.T) {
	c := start(t, cluster.Options{})
	for _, tc := range []struct{ accept, contentType string }{
		{"application/json", "application/json"},
		{"", "application/json"},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		{"application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.9,application/com.github.proto-openapi.spec.v2@v1.0+protobuf,application/json;q=0.8", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"},
		{"application/json;q=0.5,application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.4", "application/json"},
	} {
		code, b, h := c.get("/openapi/v2", tc.accept)
		require.Equal(t, 200, code, tc.accept)
		assert.Equal(t, tc.contentType, h.Get("Content-Type"), tc.accept)
		assert.Equal(t, "no-cache, private", h.Get("Cache-Control"), tc.accept)
		assert.Equal(t, []string{"Accept-Encoding", "Accept"}, h.Values("Vary"), tc.accept)
		assert.Len(t, h.Get("Etag"), 130, tc.accept)
		if tc.contentType == "application/json" {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(b, &doc))
			assert.Equal(t, "2.0", doc["swagger"])
		}
	}
	code, b, _ := c.get("/openapi/v2", "text/plain")
	assert.Equal(t, http.StatusNotAcceptable, code)
	assert.Empty(t, b)
}

// FuzzOpenAPIFromCRD creates a CRD from random bytes (what the API accepts of them) and asks
// for every OpenAPI document and the aggregated discovery: no panic, every answer a valid
// status, the documents valid JSON, and the built-in documents still there.
func FuzzOpenAPIFromCRD(f *testing.F) {
	b, err := os.ReadFile("../testdata/cluster/openapi/crds.yaml")
	require.NoError(f, err)
	for _, doc := range strings.Split(string(b), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(f, err)
		f.Add(j)
	}
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"as.a.b"},"spec":{"group":"a.b","scope":"Cluster","names":{"plural":"as","kind":"A"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`))
	f.Fuzz(func(t *testing.T, crd []byte) {
		c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Unix(0, 0).UTC())})
		require.NoError(t, err)
		h := c.Handler()
		serve := func(method, path, accept string, body []byte) *httptest.ResponseRecorder {
			req := httptest.NewRequest(method, path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		serve("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", crd)
		rec := serve("GET", "/openapi/v3", "", nil)
		require.Equal(t, 200, rec.Code)
		var idx openAPIIndex
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &idx))
		require.Contains(t, idx.Paths, "apis/apps/v1")
		for p, e := range idx.Paths {
			if !builtinOpenAPIPath(p) {
				rec := serve("GET", e.URL, "application/json", nil)
				require.Equal(t, 200, rec.Code, p)
				require.True(t, json.Valid(rec.Body.Bytes()), p)
			}
		}
		// The protobuf form encodes the same CRD paths and definitions the JSON form adds (the
		// JSON one re-encodes the whole 2 MB document: too slow for fuzzing).
		rec = serve("GET", "/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", nil)
		require.Equal(t, 200, rec.Code)
		require.NotEmpty(t, rec.Body.Bytes())
		for _, accept := range []string{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"} {
			rec := serve("GET", "/apis", accept, nil)
			require.Equal(t, 200, rec.Code, accept)
		}
	})
}

// builtinOpenAPIPath reports whether p is one of the recorded built-in /openapi/v3 paths.
func builtinOpenAPIPath(p string) bool {
	name := strings.ReplaceAll(p, "/", "__") + ".json.gz"
	return fileExists("data/openapi/v3/"+name) || fileExists("data/openapi/v3-other/"+name)
}

// Documents are read while CRDs are created: every answer is whole (the index's URLs resolve or
// redirect to a newer hash) and the cache is safe for concurrent use (run with -race).
func TestOpenAPIConcurrentWithCRDs(t *testing.T) {
	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(time.Unix(0, 0).UTC())})
	require.NoError(t, err)
	h := c.Handler()
	serve := func(method, path, accept string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				rec := serve("GET", "/openapi/v3", "", nil)
				var idx openAPIIndex
				if !assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &idx)) {
					return
				}
				for p, e := range idx.Paths {
					if strings.HasPrefix(p, "apis/g") {
						code := serve("GET", e.URL, "", nil).Code
						assert.Contains(t, []int{200, 301, 404}, code, p) // 404: its CRD was replaced meanwhile
					}
				}
				assert.Equal(t, 200, serve("GET", "/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", nil).Code)
				assert.Equal(t, 200, serve("GET", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", nil).Code)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		crd := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.g%d.example.com"},
		"spec":{"group":"g%d.example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object"}}}}}]}}`, i, i)
		require.Equal(t, 201, serve("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", []byte(crd)).Code)
	}
	close(done)
	wg.Wait()
	rec := serve("GET", "/openapi/v3", "", nil)
	var idx openAPIIndex
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &idx))
	for i := 0; i < 5; i++ {
		assert.Contains(t, idx.Paths, fmt.Sprintf("apis/g%d.example.com/v1", i))
	}
}
