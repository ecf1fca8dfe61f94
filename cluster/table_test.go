package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/codec/protobuf"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func tableCluster(t *testing.T) (*cluster.FakeClock, http.Handler) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	h := c.Handler()
	for _, b := range []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`,
	} {
		require.Equal(t, 201, serve(h, "POST", "/api/v1/namespaces", "", b).Code)
	}
	return clock, h
}

func serve(h http.Handler, method, path, accept, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return m
}

// TestTablePodAge: a Pod's row as kubectl get -o wide prints it, AGE from the fake clock.
func TestTablePodAge(t *testing.T) {
	clock, h := tableCluster(t)
	rec := serve(h, "POST", "/api/v1/namespaces/demo/pods", "", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}`)
	require.Equal(t, 201, rec.Code, rec.Body.String())
	clock.Step(150 * time.Second)
	rec = serve(h, "GET", "/api/v1/namespaces/demo/pods", tableAccept, "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	tbl := decodeMap(t, rec.Body.Bytes())
	assert.Equal(t, "Table", tbl["kind"])
	var names []string
	for _, c := range tbl["columnDefinitions"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}, names)
	rows := tbl["rows"].([]any)
	require.Len(t, rows, 1)
	row := rows[0].(map[string]any)
	assert.Equal(t, []any{"web", "0/2", "Pending", "0", "2m30s", "<none>", "<none>", "<none>", "<none>"}, row["cells"])
	obj := row["object"].(map[string]any)
	assert.Equal(t, "PartialObjectMetadata", obj["kind"])
	assert.Equal(t, "meta.k8s.io/v1", obj["apiVersion"])
}

// TestTableWatch: kubectl get -w: each event carries a one-row Table, only the first with
// columnDefinitions.
func TestTableWatch(t *testing.T) {
	_, h := tableCluster(t)
	require.Equal(t, 201, serve(h, "POST", "/api/v1/namespaces/demo/configmaps", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"x":"1"}}`).Code)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=0", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", tableAccept)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	lines := bufio.NewScanner(resp.Body)
	require.True(t, lines.Scan())
	first := decodeMap(t, lines.Bytes())
	assert.Equal(t, "ADDED", first["type"])
	ft := first["object"].(map[string]any)
	assert.Equal(t, "Table", ft["kind"])
	assert.Len(t, ft["columnDefinitions"], 3)
	assert.Equal(t, []any{"a", float64(1), "0s"}, ft["rows"].([]any)[0].(map[string]any)["cells"])
	require.Equal(t, 201, serve(h, "POST", "/api/v1/namespaces/demo/configmaps", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`).Code)
	require.True(t, lines.Scan())
	second := decodeMap(t, lines.Bytes())
	st := second["object"].(map[string]any)
	assert.Equal(t, "ADDED", second["type"])
	assert.Nil(t, st["columnDefinitions"])
	assert.Contains(t, st, "columnDefinitions")
	assert.Equal(t, []any{"b", float64(0), "0s"}, st["rows"].([]any)[0].(map[string]any)["cells"])
}

// TestPartialObjectMetadataProtobuf: the metadata client's Accept gets protobuf
// PartialObjectMetadata(List) for built-in and custom resources, and watch frames.
func TestPartialObjectMetadataProtobuf(t *testing.T) {
	_, h := tableCluster(t)
	require.Equal(t, 201, serve(h, "POST", "/api/v1/namespaces/demo/configmaps", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}}}`).Code)
	const pom = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	const poml = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	rec := serve(h, "GET", "/api/v1/namespaces/demo/configmaps/a", pom, "")
	require.Equal(t, 200, rec.Code)
	assert.Equal(t, "application/vnd.kubernetes.protobuf", rec.Header().Get("Content-Type"))
	obj, err := protobuf.Decode(rec.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "PartialObjectMetadata", obj["kind"])
	assert.Equal(t, map[string]any{"x": "y"}, obj["metadata"].(map[string]any)["labels"])
	rec = serve(h, "GET", "/api/v1/namespaces/demo/configmaps", poml, "")
	require.Equal(t, 200, rec.Code)
	list, err := protobuf.Decode(rec.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, "PartialObjectMetadataList", list["kind"])
	assert.Len(t, list["items"], 1)

	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=0", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", pom)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "application/vnd.kubernetes.protobuf;stream=watch", resp.Header.Get("Content-Type"))
	var size [4]byte
	_, err = io.ReadFull(resp.Body, size[:])
	require.NoError(t, err)
	frame := make([]byte, 4+(int(size[0])<<24|int(size[1])<<16|int(size[2])<<8|int(size[3])))
	copy(frame, size[:])
	_, err = io.ReadFull(resp.Body, frame[4:])
	require.NoError(t, err)
	typ, ev, _, err := protobuf.ReadWatchEvent(frame)
	require.NoError(t, err)
	assert.Equal(t, "ADDED", typ)
	assert.Equal(t, "PartialObjectMetadata", ev["kind"])
}

// TestNotAcceptableOrNotFound: a resource that is not served answers 404 whatever Accept
// asks (the route does not exist); a served one 406.
func TestNotAcceptableOrNotFound(t *testing.T) {
	_, h := tableCluster(t)
	for path, want := range map[string]int{
		"/api/v1/namespaces/demo/configmaps":                              406,
		"/apis/example.com/v1/namespaces/demo/widgets":                    404,
		"/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations": 404,
	} {
		rec := serve(h, "GET", path, "text/plain", "")
		assert.Equal(t, want, rec.Code, "%s: %s", path, rec.Body.String())
	}
}

// BenchmarkTableList: a list of 1,000 Pods as kubectl get asks for it (Table) and as JSON.
func BenchmarkTableList(b *testing.B) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending})
	require.NoError(b, err)
	h := c.Handler()
	require.Equal(b, 201, serve(h, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`).Code)
	for i := 0; i < 1000; i++ {
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p` + strconv.Itoa(i) + `"},"spec":{"containers":[{"name":"a","image":"x"}]}}`
		require.Equal(b, 201, serve(h, "POST", "/api/v1/namespaces/demo/pods", "", body).Code)
	}
	for _, accept := range []string{tableAccept, "application/json"} {
		b.Run(strings.SplitN(accept, ";", 2)[0]+map[bool]string{true: "-table", false: ""}[accept == tableAccept], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rec := serve(h, "GET", "/api/v1/namespaces/demo/pods", accept, ""); rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
