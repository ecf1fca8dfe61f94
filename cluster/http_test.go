package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

type client struct {
	t   *testing.T
	srv *cluster.Server
	hc  *http.Client
}

func start(t *testing.T, opts cluster.Options) *client {
	if opts.Clock == nil {
		opts.Clock = cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	}
	c, err := cluster.New(opts)
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	t.Cleanup(srv.Close)
	return &client{t: t, srv: srv, hc: srvClient(srv)}
}

// srvClient trusts the server's certificate through the kubeconfig it writes, as kubectl would.
func srvClient(srv *cluster.Server) *http.Client {
	return kubeconfigClient(srv.Kubeconfig())
}

func (c *client) do(method, path, contentType, body string) (int, map[string]any, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	require.NoError(c.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+c.srv.Token)
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	var m map[string]any
	if len(b) > 0 && b[0] == '{' {
		require.NoError(c.t, json.Unmarshal(b, &m), "%s %s: %s", method, path, b)
	}
	return resp.StatusCode, m, resp.Header
}

func meta(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

func TestServerBasics(t *testing.T) {
	c := start(t, cluster.Options{})
	code, v, _ := c.do("GET", "/version", "", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, "v1.37.2", v["gitVersion"])
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		code, _, _ := c.do("GET", p, "", "")
		assert.Equal(t, 200, code, p)
	}

	code, api, _ := c.do("GET", "/api", "", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, []any{"v1"}, api["versions"])
	code, core, _ := c.do("GET", "/api/v1", "", "")
	assert.Equal(t, 200, code)
	names := map[string]map[string]any{}
	for _, r := range core["resources"].([]any) {
		names[r.(map[string]any)["name"].(string)] = r.(map[string]any)
	}
	assert.Contains(t, names, "configmaps")
	assert.Equal(t, []any{"cm"}, names["configmaps"]["shortNames"])
	assert.Contains(t, names, "pods/status")
	code, apps, _ := c.do("GET", "/apis/apps/v1", "", "")
	assert.Equal(t, 200, code)
	for _, r := range apps["resources"].([]any) {
		if r.(map[string]any)["name"] == "deployments/scale" {
			assert.Equal(t, "Scale", r.(map[string]any)["kind"])
			assert.Equal(t, "autoscaling", r.(map[string]any)["group"])
		}
	}
	code, groups, _ := c.do("GET", "/apis", "", "")
	assert.Equal(t, 200, code)
	var groupNames []string
	for _, g := range groups["groups"].([]any) {
		groupNames = append(groupNames, g.(map[string]any)["name"].(string))
		if g.(map[string]any)["name"] == "autoscaling" {
			assert.Equal(t, "autoscaling/v2", g.(map[string]any)["preferredVersion"].(map[string]any)["groupVersion"], "the preferred version is the highest")
		}
	}
	assert.Contains(t, groupNames, "apps")
	code, _, _ = c.do("GET", "/apis/nosuch.example.com/v1", "", "")
	assert.Equal(t, 404, code)
}

func TestServerCRUD(t *testing.T) {
	c := start(t, cluster.Options{})
	code, ns, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code, "%v", ns)

	code, cm, _ := c.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},"data":{"k":"v"}}`)
	require.Equal(t, 201, code, "%v", cm)
	assert.NotEmpty(t, meta(cm)["uid"])
	assert.Equal(t, "2026-12-01T00:00:00Z", meta(cm)["creationTimestamp"], "the cluster's clock")
	rv := meta(cm)["resourceVersion"].(string)

	code, got, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps/app", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, rv, meta(got)["resourceVersion"])
	assert.Equal(t, meta(cm)["uid"], meta(got)["uid"])

	code, patched, _ := c.do("PATCH", "/api/v1/namespaces/demo/configmaps/app", "application/merge-patch+json", `{"data":{"k":"w"}}`)
	require.Equal(t, 200, code, "%v", patched)
	assert.NotEqual(t, rv, meta(patched)["resourceVersion"])

	// A stale update is the apiserver's 409.
	code, conflict, _ := c.do("PUT", "/api/v1/namespaces/demo/configmaps/app", "application/json",
		fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"demo","resourceVersion":%q},"data":{"k":"x"}}`, rv))
	assert.Equal(t, 409, code)
	assert.Equal(t, `Operation cannot be fulfilled on configmaps "app": the object has been modified; please apply your changes to the latest version and try again`, conflict["message"])

	code, list, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, "ConfigMapList", list["kind"])
	assert.Len(t, list["items"], 1)

	// No creates in a namespace that does not exist (NamespaceLifecycle).
	code, missing, _ := c.do("POST", "/api/v1/namespaces/nope/configmaps", "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"}}`)
	assert.Equal(t, 404, code, "%v", missing)
}

// The garbage collector runs after writes: a foreground delete of an owner removes the dependent
// and then the owner; deleting a namespace removes its content and then the namespace.
func TestServerCascades(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	code, owner, _ := c.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	require.Equal(t, 201, code)
	dep := fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q,"blockOwnerDeletion":true}]}}`, meta(owner)["uid"])
	code, created, _ := c.do("POST", "/api/v1/namespaces/demo/secrets", "application/json", dep)
	require.Equal(t, 201, code, "%v", created)

	code, deleted, _ := c.do("DELETE", "/api/v1/namespaces/demo/configmaps/owner?propagationPolicy=Foreground", "", "")
	require.Equal(t, 200, code, "%v", deleted)
	assert.Contains(t, meta(deleted)["finalizers"], "foregroundDeletion", "the answer is the Terminating owner")
	code, _, _ = c.do("GET", "/api/v1/namespaces/demo/secrets/dependent", "", "")
	assert.Equal(t, 404, code, "the dependent is gone")
	code, _, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps/owner", "", "")
	assert.Equal(t, 404, code, "then the owner")

	code, _, _ = c.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"content"}}`)
	require.Equal(t, 201, code)
	code, _, _ = c.do("DELETE", "/api/v1/namespaces/demo", "", "")
	require.Equal(t, 200, code)
	code, _, _ = c.do("GET", "/api/v1/namespaces/demo/configmaps/content", "", "")
	assert.Equal(t, 404, code)
	code, _, _ = c.do("GET", "/api/v1/namespaces/demo", "", "")
	assert.Equal(t, 404, code, "the namespace controller finalized the namespace")
}

type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

func (c *client) watch(ctx context.Context, path string) (<-chan watchEvent, int) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.srv.URL+path, nil)
	require.NoError(c.t, err)
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	ch := make(chan watchEvent, 100)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var ev watchEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				ch <- ev
			}
		}
	}()
	return ch, resp.StatusCode
}

func next(t *testing.T, ch <-chan watchEvent) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the watch ended")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}
	return watchEvent{}
}

// WatchList, as client-go's informers use it by default: the initial ADDED events end with a
// BOOKMARK annotated k8s.io/initial-events-end, then changes follow.
func TestServerWatchList(t *testing.T) {
	c := start(t, cluster.Options{})
	c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	code, cm, _ := c.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	require.Equal(t, 201, code)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, code := c.watch(ctx, "/api/v1/namespaces/demo/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	require.Equal(t, 200, code)
	ev := next(t, ch)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "ConfigMap", ev.Object["kind"])
	assert.Equal(t, meta(cm)["uid"], meta(ev.Object)["uid"])
	ev = next(t, ch)
	assert.Equal(t, "BOOKMARK", ev.Type)
	assert.Equal(t, map[string]any{"k8s.io/initial-events-end": "true"}, meta(ev.Object)["annotations"])

	code, _, _ = c.do("PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/merge-patch+json", `{"data":{"x":"y"}}`)
	require.Equal(t, 200, code)
	ev = next(t, ch)
	assert.Equal(t, "MODIFIED", ev.Type)
	assert.Equal(t, map[string]any{"x": "y"}, ev.Object["data"])
	c.do("DELETE", "/api/v1/namespaces/demo/configmaps/a", "", "")
	ev = next(t, ch)
	assert.Equal(t, "DELETED", ev.Type)

	// A watch from a revision the history no longer holds is a 410 in an ERROR event.
	small := start(t, cluster.Options{Store: cluster.NewMemoryStore(cluster.MemoryOptions{History: 2})})
	small.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	for i := 0; i < 6; i++ {
		small.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json", fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"}}`, i))
	}
	ch2, code := small.watch(ctx, "/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=1")
	require.Equal(t, 200, code)
	ev = next(t, ch2)
	assert.Equal(t, "ERROR", ev.Type)
	assert.Equal(t, float64(410), ev.Object["code"])
	assert.Equal(t, "Expired", ev.Object["reason"])
}

func TestServerTokens(t *testing.T) {
	c := start(t, cluster.Options{Tokens: map[string]registry.User{"admin-token": cluster.Admin}})
	code, _, _ := c.do("GET", "/api/v1/namespaces", "", "")
	assert.Equal(t, 200, code)
	req, _ := http.NewRequest("GET", c.srv.URL+"/api/v1/namespaces", nil)
	req.Header.Set("Authorization", "Bearer wrong")
	resp, err := c.hc.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, string(b))
}

// Concurrent writers to one object: optimistic concurrency holds and no update is lost. 50
// goroutines × 200 updates with WRITEPATH_LONG=1 (10 × 10 by default: every success costs a
// retry per other writer), each a read-modify-write PUT retried on 409.
func TestServerConcurrentUpdates(t *testing.T) {
	c := start(t, cluster.Options{})
	c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	code, _, _ := c.do("POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"n":"0"}}`)
	require.Equal(t, 201, code)
	writers, updates := 10, 10
	if os.Getenv("WRITEPATH_LONG") != "" {
		writers, updates = 50, 200
	}
	var ok, conflicts atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < updates; {
				req, _ := http.NewRequest("GET", c.srv.URL+"/api/v1/namespaces/demo/configmaps/n", nil)
				resp, err := c.hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var cm map[string]any
				err = json.NewDecoder(resp.Body).Decode(&cm)
				resp.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				var n int
				fmt.Sscan(cm["data"].(map[string]any)["n"].(string), &n)
				cm["data"] = map[string]any{"n": fmt.Sprint(n + 1)}
				body, _ := json.Marshal(cm)
				req, _ = http.NewRequest("PUT", c.srv.URL+"/api/v1/namespaces/demo/configmaps/n", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err = c.hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
					done++
				case 409:
					conflicts.Add(1)
				default:
					t.Errorf("PUT answered %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	_, cm, _ := c.do("GET", "/api/v1/namespaces/demo/configmaps/n", "", "")
	assert.Equal(t, fmt.Sprint(writers*updates), cm["data"].(map[string]any)["n"], "every successful update counted once (%d conflicts retried)", conflicts.Load())
	assert.Equal(t, int64(writers*updates), ok.Load())
}

// Objects loaded at start (a CRD and its custom resource among them) are served; the CRD is
// Established, its resource discoverable and its objects readable over HTTP.
func TestServerLoadCRD(t *testing.T) {
	c := start(t, cluster.Options{})
	crdYAML, err := os.ReadFile("../testdata/examples/crontab-crd.yaml")
	require.NoError(t, err)
	crd, err := decodeYAML(crdYAML)
	require.NoError(t, err)
	cr := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "hourly", "namespace": "jobs"},
		"spec":     map[string]any{"cronSpec": "0 * * * *", "image": "busybox"}}
	require.NoError(t, c.srv.Load(context.Background(), []map[string]any{cr, crd}), "the CRD is created first, the namespace on demand")

	code, got, _ := c.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+meta(crd)["name"].(string), "", "")
	require.Equal(t, 200, code)
	var established string
	for _, x := range got["status"].(map[string]any)["conditions"].([]any) {
		if x.(map[string]any)["type"] == "Established" {
			established = x.(map[string]any)["status"].(string)
		}
	}
	assert.Equal(t, "True", established)
	code, rl, _ := c.do("GET", "/apis/stable.example.com/v1", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, "crontabs", rl["resources"].([]any)[0].(map[string]any)["name"])
	code, obj, _ := c.do("GET", "/apis/stable.example.com/v1/namespaces/jobs/crontabs/hourly", "", "")
	require.Equal(t, 200, code, "%v", obj)
	assert.Equal(t, "0 * * * *", obj["spec"].(map[string]any)["cronSpec"])
	code, _, _ = c.do("GET", "/api/v1/namespaces/jobs", "", "")
	assert.Equal(t, 200, code, "the namespace was created for it")
}

// TestWatchEventBytes: a watch event carries the object in the bytes a GET answers it with (a
// Service's port keys in managedFields in the field manager's order, 80 before 443, not sorted
// as strings), and two watchers of the resource read the same line.
func TestWatchEventBytes(t *testing.T) {
	c := start(t, cluster.Options{})
	c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchLine := func() <-chan []byte {
		req, err := http.NewRequestWithContext(ctx, "GET", c.srv.URL+"/api/v1/namespaces/demo/services?watch=1&resourceVersion=1", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+c.srv.Token)
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		lines := make(chan []byte, 4)
		go func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines <- append([]byte(nil), sc.Bytes()...)
			}
		}()
		return lines
	}
	w1, w2 := watchLine(), watchLine()
	code, _, _ := c.do("POST", "/api/v1/namespaces/demo/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"name":"https","port":443},{"name":"http","port":80}]}}`)
	require.Equal(t, 201, code)
	req, err := http.NewRequest("GET", c.srv.URL+"/api/v1/namespaces/demo/services/web", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.srv.Token)
	resp, err := c.hc.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	var l1, l2 []byte
	select {
	case l1 = <-w1:
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	select {
	case l2 = <-w2:
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	assert.Equal(t, `{"type":"ADDED","object":`+strings.TrimSuffix(string(got), "\n")+`}`, string(l1))
	assert.Equal(t, string(l1), string(l2))
	i80, i443 := strings.Index(string(l1), `k:{\"port\":80`), strings.Index(string(l1), `k:{\"port\":443`)
	require.True(t, i80 >= 0 && i443 >= 0, "%s", l1)
	assert.Less(t, i80, i443)
}
