package cluster_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
)

// tableStep is one request of testdata/cluster/table/steps.json.
type tableStep struct {
	Name        string         `json:"name"`
	Method      string         `json:"method"`
	Path        string         `json:"path"`
	Accept      string         `json:"accept"`
	Body        map[string]any `json:"body"`
	ContentType string         `json:"contentType"`
	Compare     *bool          `json:"compare"`
}

type tableRecording struct {
	Name        string `json:"name"`
	Code        int    `json:"code"`
	ContentType string `json:"contentType"`
	Date        string `json:"date"`
	Sent        string `json:"sent"`
	Body        any    `json:"body"`
	BodyBase64  string `json:"bodyBase64"`
}

// TestTableRecorded replays the requests recorded from kube-apiserver 1.37 by
// testdata/cluster/table/record.py (Tables of every printed kind the fixture creates, their
// includeObject variants, 406s, PartialObjectMetadata in JSON and protobuf) against an
// in-process cluster whose fake clock stands, at each request, where the real server's Date
// header stood, so that AGE cells and timestamps agree. uids and resourceVersions are
// normalised; everything else must be equal.
func TestTableRecorded(t *testing.T) {
	replayTableRecording(t, true)
}

// replayTableRecording replays steps.json into a fresh cluster as TestTableRecorded describes,
// comparing the answers when compare is set, and returns the cluster and its clock.
func replayTableRecording(t *testing.T, compare bool) (*cluster.Cluster, *cluster.FakeClock) {
	dir := filepath.Join("..", "testdata", "cluster", "table")
	var steps struct {
		Steps []tableStep `json:"steps"`
	}
	var rec struct {
		Responses []tableRecording `json:"responses"`
	}
	readJSONInto(t, filepath.Join(dir, "steps.json"), &steps)
	readJSONInto(t, filepath.Join(dir, "recorded.json"), &rec)
	require.Len(t, rec.Responses, len(steps.Steps), "recorded.json is of another steps.json: rerun record.py")
	first, err := http.ParseTime(rec.Responses[0].Date)
	require.NoError(t, err)
	clock := cluster.NewFakeClock(first.UTC())
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	h := c.Handler()
	for i, s := range steps.Steps {
		want := rec.Responses[i]
		require.Equal(t, s.Name, want.Name)
		if at, ok := recordedInstant(want, s.Method != "GET"); ok && at.After(clock.Now()) {
			clock.Step(at.Sub(clock.Now()))
		}
		var body []byte
		if s.Body != nil {
			body, err = json.Marshal(s.Body)
			require.NoError(t, err)
		}
		req := httptest.NewRequest(s.Method, s.Path, bytes.NewReader(body))
		if body != nil {
			ct := s.ContentType
			if ct == "" {
				ct = "application/json"
			}
			req.Header.Set("Content-Type", ct)
		}
		if s.Accept != "" {
			req.Header.Set("Accept", s.Accept)
		}
		req.Header.Set("User-Agent", "Python-urllib/3") // the recorder's, which names the field manager
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, req)
		if !compare && s.Method == "GET" {
			continue
		}
		if s.Compare != nil && !*s.Compare || !compare {
			// The writes that build the state succeed as they did (but for the "default"
			// ServiceAccount, which writepath's service account controller made already).
			if s.Method != "GET" && rr.Code != want.Code && !(rr.Code == 409 && s.Name == "create/serviceaccount/default") {
				t.Errorf("%s: %d, recorded %d: %s", s.Name, rr.Code, want.Code, rr.Body.String())
			}
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			assert.Equal(t, want.Code, rr.Code, "status of %s %s (Accept %q): %s", s.Method, s.Path, s.Accept, rr.Body.String())
			wantMT, wantParams, _ := mime.ParseMediaType(want.ContentType)
			gotMT, _, _ := mime.ParseMediaType(rr.Header().Get("Content-Type"))
			if wantParams["stream"] == "watch" {
				wantMT += ";stream=watch"
				if gotMT == protobufMedia {
					gotMT += ";stream=watch"
				}
			}
			assert.Equal(t, wantMT, gotMT, "content type")
			var wantBody, gotBody any
			if want.BodyBase64 != "" {
				raw, err := base64.StdEncoding.DecodeString(want.BodyBase64)
				require.NoError(t, err)
				wantBody = decodeRecordedBody(t, wantMT, raw)
			} else {
				wantBody = want.Body
				wantBody = roundTrip(t, wantBody)
			}
			gotBody = decodeRecordedBody(t, gotMT, rr.Body.Bytes())
			for _, d := range knownTableDifferences[s.Name] {
				wantBody, gotBody = dropPath(wantBody, d), dropPath(gotBody, d)
			}
			if dump := os.Getenv("TABLE_RECORDED_DUMP"); dump != "" {
				b, _ := json.MarshalIndent(map[string]any{"name": s.Name, "want": normaliseRecorded(wantBody), "got": normaliseRecorded(gotBody)}, "", " ")
				_ = os.WriteFile(filepath.Join(dump, strings.ReplaceAll(s.Name, "/", "_")+".json"), b, 0o644)
			}
			assert.Equal(t, normaliseRecorded(wantBody), normaliseRecorded(gotBody), "body of %s %s (Accept %q)", s.Method, s.Path, s.Accept)
		})
	}
	return c, clock
}

// TestKubectlAsRecorded: kubectl 1.37.2 prints against writepath what it printed against the
// real control plane for the same objects (testdata/cluster/table/kubectl.json, recorded by
// record_kubectl.py after record.py), the clock standing where each command started. Skipped
// without a kubectl binary ($KUBECTL, ~/.cache/realcluster/bin/kubectl, PATH).
func TestKubectlAsRecorded(t *testing.T) {
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		kubectl = filepath.Join(os.Getenv("HOME"), ".cache", "realcluster", "bin", "kubectl")
	}
	if _, err := os.Stat(kubectl); err != nil {
		p, err := exec.LookPath("kubectl")
		if err != nil {
			t.Skip("no kubectl binary")
		}
		kubectl = p
	}
	var rec struct {
		Commands []struct {
			Args     []string `json:"args"`
			Sent     string   `json:"sent"`
			Done     string   `json:"done"`
			ExitCode int      `json:"exitCode"`
			Stdout   string   `json:"stdout"`
		} `json:"commands"`
	}
	readJSONInto(t, filepath.Join("..", "testdata", "cluster", "table", "kubectl.json"), &rec)
	c, clock := replayTableRecording(t, false)
	srv := cluster.StartTLS(c)
	defer srv.Close()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, srv.Kubeconfig(), 0o600))
	run := func(args []string) (string, int) {
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kc}, args...)...).Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return uuidPattern.ReplaceAllString(string(out), "<uid>"), code
	}
	for _, cmd := range rec.Commands {
		want := uuidPattern.ReplaceAllString(cmd.Stdout, "<uid>")
		// The real server printed at an instant between the command's start and end (kubectl
		// reads discovery first): the clock stands at the start, then, when the two are in
		// different seconds and the output differs, at the end.
		var got string
		var code int
		for _, instant := range []string{cmd.Sent, cmd.Done} {
			if at, err := time.Parse(time.RFC3339Nano, instant); err == nil && at.After(clock.Now()) {
				clock.Step(at.Sub(clock.Now()))
			}
			if got, code = run(cmd.Args); got == want {
				break
			}
		}
		assert.Equal(t, cmd.ExitCode, code, "kubectl %v", cmd.Args)
		assert.Equal(t, want, got, "kubectl %v", cmd.Args)
	}
}

// knownTableDifferences are the fields (dotted paths, list indexes as numbers) where the
// stored objects differ from the real server's for reasons outside Table output, each named:
//   - PersistentVolume(Claim)s: kube-apiserver defaults status.phase to Pending and its
//     StorageObjectInUseProtection admission plugin adds the pv(c)-protection finalizer;
//     writepath does neither yet (schema defaults, admission plugins), so the STATUS cell and
//     the finalizers differ.
//   - FlowSchemas: kube-apiserver's APF configuration controller writes the Dangling condition
//     (the last cell) into status; writepath runs no such controller.
//   - Services of type NodePort and LoadBalancer: their cluster IPs are allocated from
//     realcluster's --service-cluster-ip-range (10.96.0.0/24) there and from the apiserver's
//     default range (10.0.0.0/24) here, so the CLUSTER-IP cells differ.
//   - The Deployment after its scale was patched: kube-controller-manager writes its status a
//     moment later (another second here), writepath's controller within the request.
//   - CustomResourceDefinitions: kube-apiserver's apiextensions controllers write the
//     Established and NamesAccepted conditions through the status subresource, a second
//     managedFields entry (manager kube-apiserver) that writepath's CRD status lacks.
var knownTableDifferences = map[string][]string{
	"table/get/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/tbl-fs": {"rows.0.cells.5", "rows.0.object.metadata.managedFields"},
	"table/list/apis/apps/v1/namespaces/tbl/deployments":                {"rows.1.object.metadata.managedFields"},
	"table/list/api/v1/namespaces/tbl/services":                         {"rows.2.cells.2", "rows.3.cells.2"},
	"table/list/apis/apiextensions.k8s.io/v1/customresourcedefinitions": {"rows.0.object.metadata.managedFields", "rows.1.object.metadata.managedFields"},
	"table/list/api/v1/namespaces/tbl/persistentvolumeclaims":           {"rows.0.cells.1", "rows.0.object.metadata.finalizers"},
	"table/list/api/v1/persistentvolumes":                               {"rows.0.cells.4", "rows.0.object.metadata.finalizers"},
}

// dropPath removes the value at a dotted path (a list index is a number, * every index).
func dropPath(v any, path string) any {
	v = roundTripAny(v)
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if p != "*" {
			continue
		}
		cur := v
		for _, q := range parts[:i] {
			switch x := cur.(type) {
			case map[string]any:
				cur = x[q]
			case []any:
				n, _ := strconv.Atoi(q)
				if n < len(x) {
					cur = x[n]
				}
			}
		}
		l, _ := cur.([]any)
		for n := range l {
			v = dropPath(v, strings.Join(append(append(append([]string(nil), parts[:i]...), strconv.Itoa(n)), parts[i+1:]...), "."))
		}
		return v
	}
	cur := v
	for i, p := range parts {
		last := i == len(parts)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				delete(x, p)
				return v
			}
			cur = x[p]
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n >= len(x) {
				return v
			}
			if last {
				x[n] = "<dropped>"
				return v
			}
			cur = x[n]
		default:
			return v
		}
	}
	return v
}

func roundTripAny(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out, err := codec.DecodeValue(b)
	if err != nil {
		return v
	}
	return out
}

// recordedInstant is when the real server handled a step: for a write, the time it wrote into
// the object (its newest managedFields time, else its creationTimestamp); else when the
// recorder sent the request (to the microsecond; the Date header, written after the answer was
// computed, may already be the next second).
func recordedInstant(r tableRecording, write bool) (time.Time, bool) {
	if body, ok := r.Body.(map[string]any); ok && write && r.Code < 300 {
		md, _ := body["metadata"].(map[string]any)
		var newest time.Time
		mfs, _ := md["managedFields"].([]any)
		for _, mf := range mfs {
			m, _ := mf.(map[string]any)
			ts, _ := m["time"].(string)
			if t, err := time.Parse(time.RFC3339, ts); err == nil && t.After(newest) {
				newest = t
			}
		}
		if ts, _ := md["creationTimestamp"].(string); newest.IsZero() && ts != "" {
			newest, _ = time.Parse(time.RFC3339, ts)
		}
		if !newest.IsZero() {
			return newest, true
		}
	}
	if at, err := time.Parse(time.RFC3339Nano, r.Sent); err == nil {
		return at, true
	}
	at, err := http.ParseTime(r.Date)
	return at, err == nil
}

func readJSONInto(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v), path)
}

func roundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := codec.DecodeValue(b)
	require.NoError(t, err)
	return out
}

// decodeRecordedBody reads a body by its media type: protobuf through writepath's decoder
// (both sides alike), YAML and JSON as values.
func decodeRecordedBody(t *testing.T, mediaType string, raw []byte) any {
	t.Helper()
	switch mediaType {
	case protobufMedia:
		obj, err := protobuf.Decode(raw)
		require.NoError(t, err)
		return obj
	case protobufMedia + ";stream=watch":
		var events []any
		for len(raw) > 0 {
			typ, obj, rest, err := protobuf.ReadWatchEvent(raw)
			require.NoError(t, err)
			events = append(events, map[string]any{"type": typ, "object": obj})
			raw = rest
		}
		return events
	case "application/yaml":
		docs, err := codec.DecodeDocuments(raw)
		require.NoError(t, err)
		require.Len(t, docs, 1)
		return docs[0]
	}
	v, err := codec.DecodeValue(raw)
	if err == nil {
		return v
	}
	// A JSON watch stream: one event per line.
	var events []any
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		ev, err := codec.DecodeValue(line)
		if err != nil {
			return string(raw)
		}
		events = append(events, ev)
	}
	return events
}

const protobufMedia = "application/vnd.kubernetes.protobuf"

// normaliseRecorded replaces the values two servers give differently: uids (also inside
// strings, such as a Job's controller-uid label, and map keys), resourceVersions and continue tokens (which
// carry one).
func normaliseRecorded(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch k {
			case "uid", "resourceVersion", "continue":
				if s, ok := e.(string); ok && s != "" {
					out[k] = "<" + k + ">"
					continue
				}
			}
			// A uid in a key: managedFields' k:{"uid":...} of an ownerReference.
			out[uuidPattern.ReplaceAllString(k, "<uid>")] = normaliseRecorded(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normaliseRecorded(e)
		}
		return out
	case string:
		return uuidPattern.ReplaceAllString(x, "<uid>")
	}
	return v
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestEventsV1PrintedAsCore: events.k8s.io Events (as recorded) print as the apiserver printed
// them, the core Event printer's cells.
func TestEventsV1PrintedAsCore(t *testing.T) {
	var rec struct {
		Responses []tableRecording `json:"responses"`
	}
	readJSONInto(t, filepath.Join("..", "testdata", "cluster", "table", "recorded.json"), &rec)
	var raw, tbl tableRecording
	for _, r := range rec.Responses {
		switch r.Name {
		case "raw/events.k8s.io":
			raw = r
		case "table/list/apis/events.k8s.io/v1/namespaces/tbl/events":
			tbl = r
		}
	}
	require.NotNil(t, raw.Body)
	at, err := http.ParseTime(tbl.Date)
	require.NoError(t, err)
	list := roundTrip(t, raw.Body).(map[string]any)
	got := cluster.PrintTableForTest(list, at)
	want := roundTrip(t, tbl.Body).(map[string]any)
	assert.Equal(t, want["columnDefinitions"], got["columnDefinitions"])
	require.Len(t, got["rows"], 1)
	assert.Equal(t, want["rows"].([]any)[0].(map[string]any)["cells"], got["rows"].([]any)[0].(map[string]any)["cells"])
}
