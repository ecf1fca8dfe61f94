// Package openapi checks cluster's /openapi and aggregated discovery documents with the
// decoders clients use: client-go's discovery and RESTMapper, k8s.io/api's protobuf types.
package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/writepath/writepath/cluster"
)

type server struct {
	t   *testing.T
	srv *cluster.Server
	cfg *rest.Config
	hc  *http.Client
}

func start(t *testing.T) *server {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	t.Cleanup(srv.Close)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	require.NoError(t, err)
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	return &server{t: t, srv: srv, cfg: cfg, hc: hc}
}

func (s *server) get(path, accept string) ([]byte, http.Header) {
	s.t.Helper()
	req, err := http.NewRequest("GET", s.srv.URL+path, nil)
	require.NoError(s.t, err)
	req.Header.Set("Accept", accept)
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	require.Equal(s.t, 200, resp.StatusCode, "%s: %s", path, b)
	return b, resp.Header
}

func (s *server) post(path, body string) {
	s.t.Helper()
	req, err := http.NewRequest("POST", s.srv.URL+path, strings.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(s.t, 201, resp.StatusCode, "%s: %s", path, b)
}

const crontabCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"crontabs.stable.example.com"},
 "spec":{"group":"stable.example.com","scope":"Namespaced",
  "names":{"plural":"crontabs","singular":"crontab","kind":"CronTab","listKind":"CronTabList","shortNames":["ct"]},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","description":"CronTab runs a command.","properties":{
    "spec":{"type":"object","description":"What to run.","properties":{
     "cronSpec":{"type":"string","description":"When to run."},
     "replicas":{"type":"integer","default":1},
     "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
      "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"x-kubernetes-int-or-string":true}}}}}},
    "status":{"type":"object","properties":{"lastScheduleTime":{"type":"string"}}}}}}}]}}`

// The aggregated discovery document in protobuf decodes, with k8s.io/api's generated types, to
// the same list as its JSON form.
func TestAggregatedDiscoveryProtobufDecodesAsJSON(t *testing.T) {
	s := start(t)
	s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crontabCRD)
	for _, p := range []string{"/api", "/apis"} {
		j, h := s.get(p, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", h.Get("Content-Type"))
		var want apidiscoveryv2.APIGroupDiscoveryList
		require.NoError(t, json.Unmarshal(j, &want))
		pb, h := s.get(p, "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
		assert.Equal(t, "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", h.Get("Content-Type"))
		require.True(t, bytes.HasPrefix(pb, []byte("k8s\x00")), "%q", pb[:min(len(pb), 8)])
		var u runtime.Unknown
		require.NoError(t, u.Unmarshal(pb[4:]))
		assert.Equal(t, "apidiscovery.k8s.io/v2", u.APIVersion)
		assert.Equal(t, "APIGroupDiscoveryList", u.Kind)
		var got apidiscoveryv2.APIGroupDiscoveryList
		require.NoError(t, got.Unmarshal(u.Raw))
		got.TypeMeta = want.TypeMeta
		assert.Equal(t, want, got, p)
		assert.NotEmpty(t, got.Items, p)
	}
}

// client-go's discovery client and its RESTMapper find built-in and custom resources through
// the aggregated documents.
func TestClientGoDiscoveryAndRESTMapper(t *testing.T) {
	s := start(t)
	s.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crontabCRD)
	var accepts []string
	cfg := rest.CopyConfig(s.cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.URL.Path == "/api" || r.URL.Path == "/apis" {
				accepts = append(accepts, r.Header.Get("Accept"))
			}
			return rt.RoundTrip(r)
		})
	})
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	groups, resources, err := dc.ServerGroupsAndResources()
	require.NoError(t, err)
	require.NotEmpty(t, accepts)
	assert.True(t, strings.HasPrefix(accepts[0], discovery.AcceptV2), accepts[0])
	names := map[string]bool{}
	for _, g := range groups {
		names[g.Name] = true
	}
	assert.True(t, names["apps"] && names["stable.example.com"], "%v", names)
	found := map[string]bool{}
	for _, rl := range resources {
		for _, r := range rl.APIResources {
			found[rl.GroupVersion+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"apps/v1/deployments", "apps/v1/deployments/scale", "v1/pods/log", "stable.example.com/v1/crontabs", "stable.example.com/v1/crontabs/status"} {
		assert.True(t, found[want], want)
	}

	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	m, err := mapper.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"})
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, m.Resource)
	m, err = mapper.RESTMapping(schema.GroupKind{Group: "stable.example.com", Kind: "CronTab"})
	require.NoError(t, err)
	assert.Equal(t, "crontabs", m.Resource.Resource)
	assert.Equal(t, "namespace", string(m.Scope.Name()))
	gvr, err := restmapper.NewShortcutExpander(mapper, dc, nil).ResourceFor(schema.GroupVersionResource{Resource: "ct"})
	if assert.NoError(t, err) {
		assert.Equal(t, "crontabs", gvr.Resource, "short name through the shortcut expander")
	}
	// Events are in core and events.k8s.io: the core group comes first, as on the apiserver.
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: "events"})
	require.NoError(t, err)
	assert.Equal(t, "", gvk.Group)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
