package cluster

import (
	"bytes"
	"context"
	"crypto/sha512"
	"embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// OpenAPI (/openapi/v3 and /openapi/v2), as kube-apiserver 1.37 serves them to kubectl explain,
// kubectl apply and diff, and client-go's OpenAPI clients.
//
// The built-in group versions are the documents a real 1.37 apiserver served, recorded
// (data/openapi, with the commands that recorded them) and embedded; the custom resources' are
// built from their CRDs' served versions (openapi_crd.go). Nothing is built in New: each document
// is built on its first request and kept until the CRDs change (the names and resourceVersions of
// the stored CRDs are the key), so a fresh cluster costs nothing until a client asks.

//go:embed data/openapi/v3/*.json.gz data/openapi/v3-other/*.json.gz data/openapi/v2.json.gz data/openapi/crd-v3-definitions.json.gz
var openAPIData embed.FS

// openAPIDoc is one served document with its hash: the upper-case hex SHA-512 of its bytes, as
// the apiserver's ETag and ?hash= parameter are.
type openAPIDoc struct {
	body []byte
	hash string
}

func newOpenAPIDoc(body []byte) *openAPIDoc {
	sum := sha512.Sum512(body)
	return &openAPIDoc{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
}

// builtinV3 is the recorded document of every built-in path of /openapi/v3 ("api/v1",
// "apis/apps/v1", ...), decompressed on first use.
var builtinV3 = sync.OnceValues(func() (map[string]*openAPIDoc, error) {
	docs := map[string]*openAPIDoc{}
	// v3 holds the group versions' documents (internal/gen reads them too), v3-other the rest
	// (api, apis, apis/<group>, version, ...).
	for _, dir := range []string{"data/openapi/v3", "data/openapi/v3-other"} {
		files, err := openAPIData.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name, ok := strings.CutSuffix(f.Name(), ".json.gz")
			if !ok {
				continue
			}
			b, err := gunzipFile(dir + "/" + f.Name())
			if err != nil {
				return nil, err
			}
			docs[strings.ReplaceAll(name, "__", "/")] = newOpenAPIDoc(b)
		}
	}
	return docs, nil
})

func gunzipFile(name string) ([]byte, error) {
	data, err := openAPIData.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return codec.Gunzip(data)
}

// openAPIState is what /openapi serves for one state of the stored CRDs.
type openAPIState struct {
	key string
	// v3 holds every /openapi/v3 document by path; index is /openapi/v3 itself.
	v3    map[string]*openAPIDoc
	index *openAPIDoc
	// crds are the stored CRDs the documents were built for.
	crds []map[string]any

	// /openapi/v2: the CRDs' paths and definitions, then each form when first asked for.
	v2Once          sync.Once
	v2Paths, v2Defs map[string]any
	v2Err           error
	v2JSONOnce      sync.Once
	v2JSON          *openAPIDoc
	v2JSONErr       error
	v2ProtOnce      sync.Once
	v2Prot          *openAPIDoc
	v2ProtErr       error
}

// openAPICache keeps the state for the CRDs last seen.
type openAPICache struct {
	mu    sync.Mutex
	state *openAPIState
}

// openAPI returns the documents for the CRDs stored now, building them when the CRDs changed
// since the last call.
func (c *Cluster) openAPI(ctx context.Context) (*openAPIState, error) {
	crds, key, err := c.storedCRDs(ctx)
	if err != nil {
		return nil, err
	}
	c.openapi.mu.Lock()
	defer c.openapi.mu.Unlock()
	if s := c.openapi.state; s != nil && s.key == key {
		return s, nil
	}
	builtin, err := builtinV3()
	if err != nil {
		return nil, err
	}
	s := &openAPIState{key: key, v3: map[string]*openAPIDoc{}}
	for p, d := range builtin {
		s.v3[p] = d
	}
	s.crds = crds
	custom, err := crdOpenAPIV3(crds) // openapi_crd.go
	if err != nil {
		return nil, err
	}
	for p, d := range custom {
		if _, ok := s.v3[p]; !ok { // a built-in group version is never replaced by a CRD's
			s.v3[p] = d
		}
	}
	type entry struct {
		URL string `json:"serverRelativeURL"`
	}
	paths := map[string]entry{}
	for p, d := range s.v3 {
		paths[p] = entry{URL: "/openapi/v3/" + p + "?hash=" + d.hash}
	}
	b, err := json.Marshal(struct {
		Paths map[string]entry `json:"paths"`
	}{paths})
	if err != nil {
		return nil, err
	}
	s.index = newOpenAPIDoc(b)
	c.openapi.state = s
	return s, nil
}

// storedCRDs lists the stored CRDs and the key of their state: their names and resourceVersions.
func (c *Cluster) storedCRDs(ctx context.Context) ([]map[string]any, string, error) {
	l, err := c.store.List(ctx, ListRequest{Prefix: Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}})
	if err != nil {
		return nil, "", err
	}
	var key strings.Builder
	crds := make([]map[string]any, 0, len(l.Items))
	for _, o := range l.Items {
		md, _ := o.Value["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		rv, _ := md["resourceVersion"].(string)
		key.WriteString(name + "\x00" + rv + "\x00")
		crds = append(crds, o.Value)
	}
	return crds, key.String(), nil
}

// serveOpenAPIV3 answers /openapi/v3 (the index) and /openapi/v3/<path> as the apiserver's
// kube-openapi handler does: a ?hash= other than the document's current one is redirected to it
// (301), and a request with the current hash may be cached for a year.
func (c *Cluster) serveOpenAPIV3(rw http.ResponseWriter, r *http.Request, p string) {
	s, err := c.openAPI(r.Context())
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(p, "/openapi/v3"), "/")
	if rest == "" {
		// kube-openapi writes the index without a Content-Type: net/http sniffs text/plain.
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-cache, private")
		http.ServeContent(rw, r, "/openapi/v3", time.Time{}, bytes.NewReader(s.index.body))
		return
	}
	d, ok := s.v3[rest]
	if !ok {
		rw.Header().Set("Cache-Control", "no-cache, private")
		rw.WriteHeader(http.StatusNotFound)
		return
	}
	rw.Header().Set("Vary", "Accept")
	rw.Header().Set("Cache-Control", "no-cache, private")
	if !acceptsJSON(r.Header.Get("Accept")) {
		rw.WriteHeader(http.StatusNotAcceptable)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Etag", strconv.Quote(d.hash))
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != d.hash {
			u := *r.URL
			u.RawQuery = "hash=" + d.hash
			rw.Header().Set("Location", u.String())
			rw.WriteHeader(http.StatusMovedPermanently)
			return
		}
		rw.Header().Set("Cache-Control", "public, immutable")
		rw.Header().Set("Expires", c.clock.Now().AddDate(1, 0, 0).UTC().Format(time.RFC1123))
	}
	http.ServeContent(rw, r, "", time.Time{}, bytes.NewReader(d.body))
}

// acceptsJSON reports whether an Accept header takes application/json (no header, */*,
// application/* or application/json).
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, cl := range parseMediaRanges(accept) {
		if mt := cl.typ + "/" + cl.subtype; mt == "*/*" || mt == "application/*" || mt == "application/json" {
			return true
		}
	}
	return false
}

// openAPIPath reports whether p is served by the OpenAPI handlers.
func openAPIPath(p string) bool {
	return p == "/openapi/v2" || p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/")
}

// serveOpenAPI answers /openapi/v2 and /openapi/v3[/...].
func (c *Cluster) serveOpenAPI(rw http.ResponseWriter, r *http.Request, p string) {
	if p == "/openapi/v2" {
		c.serveOpenAPIV2(rw, r) // openapi_v2.go
		return
	}
	c.serveOpenAPIV3(rw, r, p)
}
