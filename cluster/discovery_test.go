package cluster_test

import (
	"encoding/json"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/cluster"
)

// discoveryEntries flattens an APIGroupDiscoveryList into "group/version/resource" -> the
// resource's entry (JSON), and the group order.
func discoveryEntries(t *testing.T, b []byte) (map[string]string, []string) {
	t.Helper()
	var doc struct {
		Kind  string `json:"kind"`
		Items []struct {
			Metadata map[string]any `json:"metadata"`
			Versions []struct {
				Version   string            `json:"version"`
				Freshness string            `json:"freshness"`
				Resources []json.RawMessage `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, "APIGroupDiscoveryList", doc.Kind)
	out := map[string]string{}
	var groups []string
	for _, g := range doc.Items {
		name, _ := g.Metadata["name"].(string)
		groups = append(groups, name)
		for _, v := range g.Versions {
			assert.Equal(t, "Current", v.Freshness)
			for _, r := range v.Resources {
				var m map[string]any
				require.NoError(t, json.Unmarshal(r, &m))
				norm, _ := json.Marshal(m)
				out[name+"/"+v.Version+"/"+m["resource"].(string)] = string(norm)
			}
		}
	}
	return out, groups
}

// Every resource both serve is described alike (verbs, kinds, scope, names, subresources).
func TestAggregatedDiscoveryMatchesRecorded(t *testing.T) {
	c := start(t, cluster.Options{})
	for _, p := range []string{"/api", "/apis"} {
		req, err := http.NewRequest("GET", c.srv.URL+p, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		var body json.RawMessage
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", resp.Header.Get("Content-Type"))
		assert.Equal(t, "Accept", resp.Header.Get("Vary"))
		got, _ := discoveryEntries(t, body)
		recorded, err := os.ReadFile("../testdata/cluster/discovery" + p + ".json")
		require.NoError(t, err)
		want, wantGroups := discoveryEntries(t, recorded)
		_, gotGroups := discoveryEntries(t, body)
		assert.Equal(t, wantGroups, gotGroups, "%s: groups in the apiserver's order", p)
		shared := 0
		for k, w := range want {
			if g, ok := got[k]; ok {
				shared++
				assert.JSONEq(t, w, g, k)
			}
		}
		assert.Greater(t, shared, 10, p)
	}
}

// Accept chooses the form: v2 JSON, protobuf, or the legacy document, by q and then by order; a
// matching If-None-Match is 304; v2beta1 alone or text/plain is 406 on /apis (testdata/cluster/openapi;
// /api and the group versions word it otherwise: TestLegacyDiscoveryNegotiation).
func TestAggregatedDiscoveryNegotiation(t *testing.T) {
	c := start(t, cluster.Options{})
	const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	const pb = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	for _, tc := range []struct{ accept, contentType, apiVersion string }{
		{v2 + ",application/json", v2, "apidiscovery.k8s.io/v2"},
		{v2beta1 + ",application/json", "application/json", ""}, // v2beta1 is not served by 1.37
		{"application/json;q=0.5," + v2 + ";q=0.9", v2, "apidiscovery.k8s.io/v2"},
		{"application/json," + v2, "application/json", ""},
		{v2 + ";q=0.8," + pb, pb, ""},
		{"application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList,application/json", "application/json", ""},
	} {
		req, err := http.NewRequest("GET", c.srv.URL+"/apis", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", tc.accept)
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		var body map[string]any
		if !strings.HasPrefix(tc.contentType, "application/vnd") {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body), tc.accept)
		}
		resp.Body.Close()
		assert.Equal(t, tc.contentType, resp.Header.Get("Content-Type"), tc.accept)
		if tc.apiVersion != "" {
			assert.Equal(t, tc.apiVersion, body["apiVersion"], tc.accept)
			req.Header.Set("If-None-Match", resp.Header.Get("Etag"))
			resp, err := c.hc.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusNotModified, resp.StatusCode, tc.accept)
		}
		if tc.contentType == "application/json" {
			assert.Equal(t, "APIGroupList", body["kind"], tc.accept)
		}
	}
}

func TestAggregatedDiscoveryNotAcceptable(t *testing.T) {
	c := start(t, cluster.Options{})
	want := map[string]any{}
	b, err := os.ReadFile("../testdata/cluster/openapi/discovery-v2beta1-apis.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &want))
	for _, accept := range []string{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "text/plain"} {
		for _, p := range []string{"/apis"} {
			req, err := http.NewRequest("GET", c.srv.URL+p, nil)
			require.NoError(t, err)
			req.Header.Set("Accept", accept)
			resp, err := c.hc.Do(req)
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
			resp.Body.Close()
			assert.Equal(t, http.StatusNotAcceptable, resp.StatusCode, accept)
			assert.Equal(t, want, got, accept)
		}
	}
}

// With CRDs, the aggregated documents describe their groups as the real server did
// (testdata/cluster/openapi/discovery-v2-*.json, recorded with crds.yaml): versions in order,
// resources, subresources, short names, categories; the groups in the apiserver's order.
func TestAggregatedDiscoveryCRDsAsRecorded(t *testing.T) {
	c := startWithCRDs(t)
	for _, p := range []string{"/api", "/apis"} {
		_, b, h := c.get(p, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", h.Get("Content-Type"))
		got, gotGroups := discoveryEntries(t, b)
		rec, err := os.ReadFile("../testdata/cluster/openapi/discovery-v2-" + strings.TrimPrefix(p, "/") + ".json")
		require.NoError(t, err)
		want, wantGroups := discoveryEntries(t, rec)
		assert.Equal(t, wantGroups, gotGroups, p)
		for k, w := range want {
			if strings.Contains(k, "example") {
				assert.JSONEq(t, w, got[k], k)
			}
		}
		var gotDoc, wantDoc map[string]any
		require.NoError(t, json.Unmarshal(b, &gotDoc))
		require.NoError(t, json.Unmarshal(rec, &wantDoc))
		for i, g := range wantDoc["items"].([]any) {
			name := g.(map[string]any)["metadata"].(map[string]any)["name"]
			if s, _ := name.(string); strings.Contains(s, "example") {
				var versions []any
				for _, v := range gotDoc["items"].([]any)[i].(map[string]any)["versions"].([]any) {
					versions = append(versions, v.(map[string]any)["version"])
				}
				var wantVersions []any
				for _, v := range g.(map[string]any)["versions"].([]any) {
					wantVersions = append(wantVersions, v.(map[string]any)["version"])
				}
				assert.Equal(t, wantVersions, versions, s)
			}
		}
	}
}

// The legacy /apis lists the groups in the order the real apiserver lists them
// (internal/gen/testdata/discovery/cluster/apis.json, recorded): by APIService priority.
func TestDiscoveryGroupOrder(t *testing.T) {
	c := start(t, cluster.Options{})
	_, b, _ := c.get("/apis", "application/json")
	var got, want struct {
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	rec, err := os.ReadFile("../internal/gen/testdata/discovery/cluster/apis.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(rec, &want))
	assert.Equal(t, want, got)
}

// The legacy documents by Accept as the real server answered (testdata/cluster/openapi/
// legacy-discovery.json, record-legacy.sh): YAML when asked, 406 in the words of the handler that
// refuses (the aggregator's for /apis and a group, the legacy handler's for /api and a group
// version unless a known media type had parameters it does not take), a plain 404 for an unknown
// group and a Status 404 for an unknown version. storageVersionHash, which the apiserver lists
// beside each resource, is not served.
func TestLegacyDiscoveryNegotiation(t *testing.T) {
	c := startWithCRDs(t) // recorded with crds.yaml's CRDs
	b, err := os.ReadFile("../testdata/cluster/openapi/legacy-discovery.json")
	require.NoError(t, err)
	var cases []struct {
		Path, Accept, ContentType, Body string
		Code                            int
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	normalize := func(v any) any {
		m, _ := v.(map[string]any)
		if addrs, ok := m["serverAddressByClientCIDRs"].([]any); ok {
			for _, a := range addrs {
				a.(map[string]any)["serverAddress"] = "HOST"
			}
		}
		// The CRDs' groups come last; the apiserver orders groups of equal priority (every CRD
		// group's) as its APIService lister hands them over, which was not the same in two
		// recordings: compared by name.
		if gs, ok := m["groups"].([]any); ok {
			sort.SliceStable(gs, func(i, j int) bool {
				ni, nj := gs[i].(map[string]any)["name"].(string), gs[j].(map[string]any)["name"].(string)
				ci, cj := strings.Contains(ni, "example"), strings.Contains(nj, "example")
				return ci && cj && ni < nj
			})
		}
		if rs, ok := m["resources"].([]any); ok {
			for _, r := range rs {
				delete(r.(map[string]any), "storageVersionHash")
			}
		}
		return v
	}
	for _, tc := range cases {
		name := tc.Path + " " + tc.Accept
		code, body, h := c.get(tc.Path, tc.Accept)
		assert.Equal(t, tc.Code, code, name)
		assert.Equal(t, tc.ContentType, h.Get("Content-Type"), name)
		var want, got any
		switch {
		case strings.HasPrefix(tc.ContentType, "application/json"):
			require.NoError(t, json.Unmarshal([]byte(tc.Body), &want), name)
			require.NoError(t, json.Unmarshal(body, &got), "%s: %s", name, body)
		case tc.ContentType == "application/yaml":
			require.NoError(t, yaml.Unmarshal([]byte(tc.Body), &want), name)
			require.NoError(t, yaml.Unmarshal(body, &got), "%s: %s", name, body)
		default:
			want, got = tc.Body, string(body)
		}
		assert.Equal(t, normalize(want), normalize(got), name)
	}
}
