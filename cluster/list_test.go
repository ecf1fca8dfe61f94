package cluster_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

func createListConfigMaps(t *testing.T, c *client, ns string, names ...string) {
	t.Helper()
	for _, n := range names {
		code, body, _ := c.do("POST", "/api/v1/namespaces/"+ns+"/configmaps", "application/json",
			fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"name":%q}}}`, n, n))
		require.Equal(t, 201, code, "create %s: %v", n, body)
	}
}

func TestListResourceVersionSemantics(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	createListConfigMaps(t, c, "demo", "a", "b")
	_, first, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps/a", "", "")
	rvA := meta(first)["resourceVersion"].(string)
	createListConfigMaps(t, c, "demo", "c")

	_, l, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps", "", "")
	assert.NotEmpty(t, meta(l)["resourceVersion"])
	assert.Len(t, l["items"], 3)

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?resourceVersion="+rvA+"&resourceVersionMatch=Exact", "", "")
	require.Equal(t, 200, code, "%v", l)
	assert.Equal(t, rvA, meta(l)["resourceVersion"], "an Exact list is read at its revision")
	assert.Len(t, l["items"], 1, "at a's revision only a exists")

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?resourceVersion="+rvA+"&resourceVersionMatch=NotOlderThan", "", "")
	require.Equal(t, 200, code)
	assert.Len(t, l["items"], 3, "NotOlderThan reads the current state")

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?resourceVersion=999999&resourceVersionMatch=Exact", "", "")
	assert.Equal(t, 504, code)
	assert.Contains(t, l["message"], "Timeout: Too large resource version: 999999, current: ")

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?resourceVersionMatch=Exact", "", "")
	assert.Equal(t, 422, code)
	assert.Equal(t, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`, l["message"])

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?resourceVersion=x", "", "")
	assert.Equal(t, 400, code)
	assert.Equal(t, `invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax`, l["message"])
}

func TestListLimitContinue(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	createListConfigMaps(t, c, "demo", "a", "b", "c", "d", "e")

	_, l, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps?limit=2", "", "")
	md := meta(l)
	rv := md["resourceVersion"].(string)
	tok, _ := md["continue"].(string)
	require.NotEmpty(t, tok)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	require.NoError(t, err)
	assert.Equal(t, `{"v":"meta.k8s.io/v1","rv":`+rv+`,"start":"b\u0000"}`, string(raw), "the apiserver's token")
	assert.Equal(t, float64(3), md["remainingItemCount"])

	createListConfigMaps(t, c, "demo", "bb") // after the first page's revision: not in the continued list
	_, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?limit=2&continue="+tok, "", "")
	names := []string{}
	for _, it := range l["items"].([]any) {
		names = append(names, meta(it.(map[string]any))["name"].(string))
	}
	assert.Equal(t, []string{"c", "d"}, names)
	assert.Equal(t, rv, meta(l)["resourceVersion"], "a continued list is read at the first page's revision")

	// With a selector, the page holds `limit` selected items and no remaining count.
	_, l, _ = c.do("GET", "/api/v1/configmaps?limit=1&labelSelector=name!%3Da", "", "")
	require.Len(t, l["items"], 1)
	assert.Equal(t, "b", meta(l["items"].([]any)[0].(map[string]any))["name"])
	assert.Nil(t, meta(l)["remainingItemCount"])
	tok = meta(l)["continue"].(string)
	raw, _ = base64.RawURLEncoding.DecodeString(tok)
	assert.Contains(t, string(raw), `"start":"demo/b\u0000"`, "an all-namespaces token holds namespace/name")

	// resourceVersion=0 is the watch cache's list, which ignores the limit.
	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?limit=2&resourceVersion=0", "", "")
	require.Equal(t, 200, code)
	assert.Len(t, l["items"], 6, "every item, one page")
	assert.Nil(t, meta(l)["continue"])
	assert.Nil(t, meta(l)["remainingItemCount"])

	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?continue=abc", "", "")
	assert.Equal(t, 400, code)
	assert.Contains(t, l["message"], "invalid continue token: continue key is not valid: ")
	code, l, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps?continue="+tok+"&resourceVersion=5", "", "")
	assert.Equal(t, 400, code)
	assert.Equal(t, "specifying resource version is not allowed when using continue", l["message"])
}

func TestListFieldSelectors(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	createListConfigMaps(t, c, "demo", "a", "b")
	code, _, _ = c.do("POST", "/api/v1/namespaces/demo/secrets", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"example.com/x"}`)
	require.Equal(t, 201, code)

	_, l, _ := c.do("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Db,metadata.namespace%3Ddemo", "", "")
	assert.Len(t, l["items"], 1)
	_, l, _ = c.do("GET", "/api/v1/namespaces/demo/secrets?fieldSelector=type%3Dexample.com/x", "", "")
	assert.Len(t, l["items"], 1)
	_, l, _ = c.do("GET", "/api/v1/namespaces/demo/secrets?fieldSelector=type!%3Dexample.com/x", "", "")
	assert.Len(t, l["items"], 0)

	code, l, _ = c.do("GET", "/api/v1/configmaps?fieldSelector=data.x%3D1", "", "")
	assert.Equal(t, 400, code)
	assert.Equal(t, `"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`, l["message"])
	code, l, _ = c.do("GET", "/api/v1/pods?fieldSelector=spec.foo%3D1", "", "")
	assert.Equal(t, 400, code)
	assert.Equal(t, "field label not supported: spec.foo", l["message"])
	code, l, _ = c.do("GET", "/api/v1/pods?fieldSelector=nonsense", "", "")
	assert.Equal(t, 400, code)
	assert.Equal(t, "invalid selector: 'nonsense'; can't understand 'nonsense'", l["message"])
}

// A watch with a label selector: an object that comes to match is ADDED, one that stops
// matching is DELETED, as the watch cache converts them.
func TestWatchSelectorTransitions(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	createListConfigMaps(t, c, "demo", "a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, code := c.watch(ctx, "/api/v1/namespaces/demo/configmaps?watch=true&labelSelector=team%3Dx")
	require.Equal(t, 200, code)

	code, _, _ = c.do("PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/merge-patch+json", `{"metadata":{"labels":{"team":"x"}}}`)
	require.Equal(t, 200, code)
	ev := next(t, events)
	assert.Equal(t, "ADDED", ev.Type)
	code, _, _ = c.do("PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/merge-patch+json", `{"data":{"k":"v"}}`)
	require.Equal(t, 200, code)
	assert.Equal(t, "MODIFIED", next(t, events).Type)
	code, after, _ := c.do("PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/merge-patch+json", `{"metadata":{"labels":{"team":"y"}}}`)
	require.Equal(t, 200, code)
	ev = next(t, events)
	assert.Equal(t, "DELETED", ev.Type)
	assert.Equal(t, "x", meta(ev.Object)["labels"].(map[string]any)["team"], "DELETED carries the object as it last matched")
	assert.Equal(t, meta(after)["resourceVersion"], meta(ev.Object)["resourceVersion"], "at the new resourceVersion")
}

func TestWatchTimeoutSeconds(t *testing.T) {
	c := start(t, cluster.Options{})
	events, code := c.watch(context.Background(), "/api/v1/namespaces?watch=true&timeoutSeconds=1")
	require.Equal(t, 200, code)
	for range events { // the stream ends by itself
	}
}

// PartialObjectMetadata output, as kube-apiserver 1.37 answered the same requests (recorded
// with curl against ../shared/tools/realcluster, 2026-12-02): metadata alone, a list's items null
// when none is selected.
func TestPartialObjectMetadata(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	createListConfigMaps(t, c, "demo", "a", "b")
	get := func(path, accept string) (int, map[string]any, string) {
		req, err := http.NewRequest("GET", c.srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", accept)
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return resp.StatusCode, m, resp.Header.Get("Content-Type")
	}
	// The metadata client asks for protobuf first (TestPartialObjectMetadataProtobuf); JSON here.
	const listAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	code, l, ct := get("/api/v1/namespaces/demo/configmaps?limit=1", listAccept)
	require.Equal(t, 200, code)
	assert.Equal(t, "application/json", ct)
	assert.Equal(t, "PartialObjectMetadataList", l["kind"])
	assert.Equal(t, "meta.k8s.io/v1", l["apiVersion"])
	assert.NotEmpty(t, meta(l)["continue"])
	assert.Equal(t, float64(1), meta(l)["remainingItemCount"])
	item := l["items"].([]any)[0].(map[string]any)
	assert.Equal(t, "PartialObjectMetadata", item["kind"])
	assert.Equal(t, "a", meta(item)["name"])
	assert.Len(t, item, 3, "kind, apiVersion, metadata")

	_, l, _ = get("/api/v1/namespaces/demo/configmaps?labelSelector=x%3Dy", listAccept)
	v, present := l["items"]
	assert.True(t, present)
	assert.Nil(t, v, "no items: null")

	code, o, _ := get("/api/v1/namespaces/demo/configmaps/a", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
	require.Equal(t, 200, code)
	assert.Equal(t, "PartialObjectMetadata", o["kind"])
	assert.Nil(t, o["data"])
	// A list asked for as an object, and the reverse: 406 in the apiserver's words.
	code, o, _ = get("/api/v1/namespaces/demo/configmaps/a", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	assert.Equal(t, 406, code)
	assert.Equal(t, "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)", o["message"])
	code, o, _ = get("/api/v1/namespaces/demo/configmaps", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	assert.Equal(t, 406, code)
	assert.Equal(t, "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)", o["message"])
	assert.Equal(t, "NotAcceptable", o["reason"])

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/api/v1/namespaces/demo/configmaps?watch=true", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
	resp, err := c.hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var ev watchEvent
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ev))
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "PartialObjectMetadata", ev.Object["kind"])
}
