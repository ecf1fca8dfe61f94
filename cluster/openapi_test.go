package cluster_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	assert.Equal(c.t, "application/json", h.Get("Content-Type"))
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

	// Without a hash: the document, its ETag, no caching headers.
	code, _, h := c.get("/openapi/v3/apis/apps/v1", "")
	assert.Equal(t, 200, code)
	assert.NotEmpty(t, h.Get("Etag"))
	assert.Empty(t, h.Get("Cache-Control"))

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
