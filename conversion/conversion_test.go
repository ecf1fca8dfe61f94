package conversion_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

const goldenDir = "../testdata/conversion/"

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := goldenDir + name
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run UPDATE_GOLDEN=1 go test ./conversion")
	assert.Equal(t, string(want), got, "golden %s", name)
}

func crdWith(t *testing.T, edit func(spec map[string]any)) map[string]any {
	t.Helper()
	data, err := os.ReadFile(goldenDir + "widgets-crd.yaml")
	require.NoError(t, err)
	obj, err := codec.DecodeObject(data)
	require.NoError(t, err)
	edit(obj["spec"].(map[string]any))
	return obj
}

func describeErr(err error) string {
	var st *status.Error
	if !errors.As(err, &st) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s\n", st.StatusCode(), st.Reason)
	if st.Details == nil || len(st.Details.Causes) == 0 {
		fmt.Fprintf(&b, "  %s\n", st.Message)
		return b.String()
	}
	for _, c := range st.Details.Causes {
		msg := c.Message
		if strings.HasPrefix(msg, "Invalid value: [") || len(msg) > 400 {
			// the versions quoted in full: keep the detail.
			msg = "Invalid value: ..." + msg[strings.LastIndex(msg, ": "):]
		}
		fmt.Fprintf(&b, "  %s: %s\n", c.Field, msg)
	}
	return b.String()
}

// TestFromCRDErrors: the CRDs the apiserver rejects, with its messages.
func TestFromCRDErrors(t *testing.T) {
	versions := func(spec map[string]any) []any { return spec["versions"].([]any) }
	setStorage := func(i int, b bool) func(map[string]any) {
		return func(spec map[string]any) { versions(spec)[i].(map[string]any)["storage"] = b }
	}
	conv := func(c string) func(map[string]any) {
		return func(spec map[string]any) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(c), &m))
			spec["conversion"] = m
		}
	}
	cases := []struct {
		name string
		edit func(map[string]any)
	}{
		{"zero storage versions", setStorage(2, false)},
		{"two storage versions", setStorage(0, true)},
		{"unknown strategy", conv(`{"strategy":"Magic"}`)},
		{"empty strategy", conv(`{"strategy":""}`)},
		{"webhook without clientConfig", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"]}}`)},
		{"webhook with url and service", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a","service":{"namespace":"n","name":"s"}}}}`)},
		{"webhook over http", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"http://u:p@a/x?y=1#z"}}}`)},
		{"webhook service", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"service":{"namespace":"","name":"s","port":0,"path":"/a//B_b"}}}}`)},
		// apiextensions hands the name and namespace to ValidateWebhookService swapped: an
		// empty name is reported at service.namespace.
		{"webhook service without a name", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"service":{"namespace":"n","name":"","path":"/a//B_b"}}}}`)},
		{"review versions missing", conv(`{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://a"}}}`)},
		{"review versions unknown and duplicate", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v2","v2","V3"],"clientConfig":{"url":"https://a"}}}`)},
		{"None with webhook", conv(`{"strategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a"}}}`)},
		{"conversion not an object", func(spec map[string]any) { spec["conversion"] = "None" }},
		{"caBundle not base64", conv(`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a","caBundle":"***"}}}`)},
	}
	var b strings.Builder
	for _, tc := range cases {
		_, err := conversion.FromCRD(crdWith(t, tc.edit))
		if assert.Error(t, err, tc.name) {
			fmt.Fprintf(&b, "== %s\n%s", tc.name, describeErr(err))
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteString("\n")
			}
		}
	}
	golden(t, "crd-errors.golden", b.String())
}

func TestFromCRDWebhook(t *testing.T) {
	crd, err := conversion.FromCRD(crdWith(t, func(spec map[string]any) {
		spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"conversionReviewVersions": []any{"v1beta1", "v1"},
			"clientConfig":             map[string]any{"service": map[string]any{"namespace": "ns", "name": "conv", "path": "/convert"}, "caBundle": "ICAK"}}}
	}))
	require.NoError(t, err)
	assert.Equal(t, conversion.StrategyWebhook, crd.Strategy)
	assert.Equal(t, &conversion.Webhook{Service: &conversion.Service{Namespace: "ns", Name: "conv", Path: "/convert", Port: 443},
		ConversionReviewVersions: []string{"v1beta1", "v1"}}, crd.Webhook, "whitespace-only caBundle is no caBundle; port defaults to 443")
	_, err = conversion.New(crd, conversion.Options{})
	assert.ErrorContains(t, err, "cannot be resolved without a cluster")
}

func TestWarnings(t *testing.T) {
	crd, err := conversion.FromCRD(crdWith(t, func(spec map[string]any) {
		vs := spec["versions"].([]any)
		vs[1].(map[string]any)["deprecated"] = true
		vs = append(vs, map[string]any{"name": "v2beta1", "served": true, "storage": false, "schema": vs[2].(map[string]any)["schema"]},
			map[string]any{"name": "v3", "served": false, "storage": false, "schema": vs[2].(map[string]any)["schema"]},
			map[string]any{"name": "v0", "served": true, "storage": false, "deprecated": true, "deprecationWarning": "v0 is gone soon", "schema": vs[2].(map[string]any)["schema"]})
		spec["versions"] = vs
	}))
	require.NoError(t, err)
	for v, want := range map[string][]string{
		"v1alpha1": {"example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"},
		"v1beta1":  {"example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"},
		"v0":       {"v0 is gone soon"},
		"v1":       nil,
		"v2beta1":  nil,
		"nope":     nil,
	} {
		assert.Equal(t, want, crd.Warnings(v), v)
	}
	// no newer served version: the bare text.
	crd, err = conversion.FromCRD(crdWith(t, func(spec map[string]any) {
		vs := spec["versions"].([]any)
		vs[2].(map[string]any)["deprecated"] = true
		vs[1].(map[string]any)["served"] = false
	}))
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com/v1 Widget is deprecated"}, crd.Warnings("v1"))
	assert.Equal(t, []string{"example.com/v1alpha1 Widget is deprecated"}, crd.Warnings("v1alpha1"))
}

func TestCompareVersions(t *testing.T) {
	ordered := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"}
	for i := range ordered {
		for j := range ordered {
			got := schema.CompareVersions(ordered[i], ordered[j])
			switch {
			case i < j:
				assert.Positive(t, got, "%s vs %s", ordered[i], ordered[j])
			case i > j:
				assert.Negative(t, got, "%s vs %s", ordered[i], ordered[j])
			default:
				assert.Zero(t, got)
			}
		}
	}
}

// webhookCRD returns the widgets CRD with a Webhook strategy pointing at url.
func webhookCRD(t *testing.T, url string, ca []byte, reviewVersions ...string) *conversion.CRD {
	rv := make([]any, len(reviewVersions))
	for i, v := range reviewVersions {
		rv[i] = v
	}
	obj := crdWith(t, func(spec map[string]any) {
		cc := map[string]any{"url": url}
		if ca != nil {
			cc["caBundle"] = ca
		}
		spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": rv, "clientConfig": cc}}
	})
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	crd, err := conversion.FromCRDBytes(b)
	require.NoError(t, err)
	return crd
}

// hook is a test webhook: it records the bodies it gets and answers with answer(review).
type hook struct {
	mu     sync.Mutex
	bodies [][]byte
	answer func(r *conversion.Review) (int, string)
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf strings.Builder
	b := make([]byte, 4096)
	for {
		n, err := r.Body.Read(b)
		buf.Write(b[:n])
		if err != nil {
			break
		}
	}
	h.mu.Lock()
	h.bodies = append(h.bodies, []byte(buf.String()))
	h.mu.Unlock()
	review, err := conversion.ParseReview([]byte(buf.String()))
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	code, body := h.answer(review)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

func convertAll(r *conversion.Review, edit func(o map[string]any)) []map[string]any {
	var out []map[string]any
	for _, o := range r.Objects {
		c, _ := value.DeepCopyMap(o)
		c["apiVersion"] = r.DesiredAPIVersion
		if edit != nil {
			edit(c)
		}
		out = append(out, c)
	}
	return out
}

func ok(r *conversion.Review, objs []map[string]any) (int, string) {
	b, _ := r.ResponseBody(objs, nil)
	return 200, string(b)
}

var fixedUID = func() string { return "11111111-2222-4333-8444-555555555555" }

// TestWebhook runs the converter against an HTTPS webhook (httptest, caBundle trusted) for
// good and bad answers; the outputs and errors are in testdata/conversion/webhook.golden.
func TestWebhook(t *testing.T) {
	h := &hook{}
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	ca := pemOf(srv)
	single := decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","namespace":"ns","uid":"u1","labels":{"app":"w"},"generation":2},"spec":{"size":1,"legacy":"x"}}`)
	list := decode(`{"apiVersion":"example.com/v1alpha1","kind":"WidgetList","metadata":{},"items":[
		{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a","uid":"u1"}},
		{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"b","uid":"u2"}},
		{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"c","uid":"u3"}}]}`)
	cases := []struct {
		name   string
		list   bool
		review []string
		answer func(r *conversion.Review) (int, string)
	}{
		{"ok", false, []string{"v1"}, func(r *conversion.Review) (int, string) { return ok(r, convertAll(r, nil)) }},
		{"ok-v1beta1-review", false, []string{"v1beta1", "v1"}, func(r *conversion.Review) (int, string) { return ok(r, convertAll(r, nil)) }},
		{"ok-list-only-other-versions-sent", true, []string{"v1"}, func(r *conversion.Review) (int, string) { return ok(r, convertAll(r, nil)) }},
		{"labels-changed-metadata-restored", false, []string{"v1"}, func(r *conversion.Review) (int, string) {
			return ok(r, convertAll(r, func(o map[string]any) {
				o["metadata"] = map[string]any{"name": "a", "namespace": "ns", "uid": "u1", "labels": map[string]any{"app": "w", "v": "1"}, "generation": int64(9)}
			}))
		}},
		{"fewer-objects", true, []string{"v1"}, func(r *conversion.Review) (int, string) { return ok(r, convertAll(r, nil)[:1]) }},
		{"wrong-uid", false, []string{"v1"}, func(r *conversion.Review) (int, string) { r.UID = "other"; return ok(r, convertAll(r, nil)) }},
		{"wrong-uid-v1beta1-not-checked", false, []string{"v1beta1"}, func(r *conversion.Review) (int, string) { r.UID = "other"; return ok(r, convertAll(r, nil)) }},
		{"changed-name", false, []string{"v1"}, func(r *conversion.Review) (int, string) {
			return ok(r, convertAll(r, func(o map[string]any) { o["metadata"].(map[string]any)["name"] = "z" }))
		}},
		{"changed-name-in-list", true, []string{"v1"}, func(r *conversion.Review) (int, string) {
			return ok(r, convertAll(r, func(o map[string]any) { o["metadata"].(map[string]any)["name"] = "z" }))
		}},
		{"wrong-version", false, []string{"v1"}, func(r *conversion.Review) (int, string) {
			return ok(r, convertAll(r, func(o map[string]any) { o["apiVersion"] = "example.com/v1beta1" }))
		}},
		{"invalid-json", false, []string{"v1"}, func(r *conversion.Review) (int, string) { return 200, `{"response":` }},
		{"failure", false, []string{"v1"}, func(r *conversion.Review) (int, string) {
			b, _ := r.ResponseBody(nil, errors.New("size 1 has no v1 equivalent"))
			return 200, string(b)
		}},
		{"http-500", false, []string{"v1"}, func(r *conversion.Review) (int, string) { return 500, `oops` }},
		{"bad-label", false, []string{"v1"}, func(r *conversion.Review) (int, string) {
			return ok(r, convertAll(r, func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"app": "-"} }))
		}},
		{"no-supported-review-version", false, []string{"v7"}, nil},
	}
	var b strings.Builder
	for _, tc := range cases {
		h.answer = tc.answer
		h.bodies = nil
		review := tc.review
		if review[0] == "v7" {
			review = []string{"v1"}
		}
		crd := webhookCRD(t, srv.URL+"/convert/", ca, review...)
		if tc.review[0] == "v7" {
			// the apiserver rejects such a CRD; a CRD built in code can still have it.
			crd.Webhook.ConversionReviewVersions = []string{"v7"}
		}
		c, err := conversion.New(crd, conversion.Options{UID: fixedUID})
		require.NoError(t, err)
		in := single
		if tc.list {
			in = list
		}
		before, _ := value.DeepCopyMap(in)
		var out map[string]any
		if tc.list {
			out, err = c.ConvertList(in, "v1")
		} else {
			out, err = c.Convert(in, "v1")
		}
		assert.Equal(t, before, in, "%s: input modified", tc.name)
		fmt.Fprintf(&b, "== %s\n", tc.name)
		for _, body := range h.bodies {
			fmt.Fprintf(&b, "request: %s", body)
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			var ce *conversion.Error
			assert.ErrorAs(t, err, &ce)
		} else {
			j, _ := codec.EncodeJSON(out)
			fmt.Fprintf(&b, "output: %s\n", j)
		}
	}
	golden(t, "webhook.golden", b.String())
}

// TestWebhookTimeout: a webhook slower than the timeout fails the conversion.
func TestWebhookTimeout(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	defer close(done)
	crd := webhookCRD(t, srv.URL, pemOf(srv), "v1")
	cl, err := conversion.NewClient(crd, conversion.ClientOptions{Timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/?timeout=100ms", cl.URL())
	c, err := conversion.New(crd, conversion.Options{Caller: cl})
	require.NoError(t, err)
	_, err = c.Convert(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"}}`), "v1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "conversion webhook for example.com/v1alpha1, Kind=Widget failed: Post \""+srv.URL+"/?timeout=100ms\": ")
	assert.Contains(t, err.Error(), "deadline exceeded")
}

// TestWebhookUntrusted: without the caBundle the test server's certificate is not trusted.
func TestWebhookUntrusted(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := conversion.New(webhookCRD(t, srv.URL, nil, "v1"), conversion.Options{})
	require.NoError(t, err)
	_, err = c.Convert(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"}}`), "v1")
	assert.ErrorContains(t, err, "tls: failed to verify certificate: x509: certificate signed by unknown authority")
}

// TestWebhookSkipsSameVersion: nothing to convert, no call.
func TestWebhookSkipsSameVersion(t *testing.T) {
	calls := 0
	c, err := conversion.New(webhookCRD(t, "https://unused.example", nil, "v1"), conversion.Options{Caller: callerFunc(func([]byte) (*conversion.Response, error) {
		calls++
		return nil, errors.New("unexpected call")
	})})
	require.NoError(t, err)
	obj := decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"}}`)
	out, err := c.Convert(obj, "v1")
	require.NoError(t, err)
	assert.Equal(t, obj, out)
	out, err = c.Convert(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget"}`), "v1")
	require.NoError(t, err, "an empty object is converted without the webhook")
	assert.Equal(t, "example.com/v1", out["apiVersion"])
	out, err = c.ConvertList(decode(`{"apiVersion":"example.com/v1alpha1","kind":"WidgetList","items":[{"apiVersion":"example.com/v1","kind":"Widget"}]}`), "v1")
	require.NoError(t, err)
	assert.Equal(t, "example.com/v1", out["apiVersion"])
	assert.Zero(t, calls)
}

type callerFunc func(body []byte) (*conversion.Response, error)

func (f callerFunc) Call(_ context.Context, body []byte) (*conversion.Response, error) {
	return f(body)
}

func TestConvertErrors(t *testing.T) {
	c, err := conversion.New(widgets(), conversion.Options{})
	require.NoError(t, err)
	for _, tc := range []struct {
		obj, to, want string
		list          bool
	}{
		{`{"apiVersion":"example.com/v9","kind":"Widget"}`, "v1", "request to convert CR from an invalid group/version: example.com/v9", false},
		{`{"apiVersion":"example.com/v1","kind":"Widget"}`, "v9", "request to convert CR to an invalid group/version: example.com/v9", false},
		{`{"apiVersion":"other.com/v1","kind":"Widget"}`, "v1", `other.com/v1, Kind=Widget is unstructured and is not suitable for converting to "example.com/v1"`, false},
		{`{"apiVersion":"a/b/c","kind":"Widget"}`, "v1", `/, Kind=Widget is unstructured and is not suitable for converting to "example.com/v1"`, false},
		{`{"apiVersion":"example.com/v1","kind":"WidgetList","items":[{"apiVersion":"example.com/v1"},{"apiVersion":"example.com/v0"}]}`, "v1", "request to convert CR list failed, list index 1 has invalid group/version: example.com/v0", true},
	} {
		var err error
		if tc.list {
			_, err = c.ConvertList(decode(tc.obj), tc.to)
		} else {
			_, err = c.Convert(decode(tc.obj), tc.to)
		}
		assert.EqualError(t, err, tc.want, tc.obj)
		var ce *conversion.Error
		if assert.ErrorAs(t, err, &ce) {
			assert.Equal(t, 500, ce.StatusCode())
		}
	}
}

func TestRegistry(t *testing.T) {
	reg := conversion.NewRegistry("v1")
	id := func(o map[string]any) (map[string]any, error) { return o, nil }
	require.NoError(t, reg.Register("v1beta1", conversion.Spoke{ToHub: id, FromHub: id}))
	assert.Error(t, reg.Register("v1", conversion.Spoke{ToHub: id, FromHub: id}), "the hub")
	assert.Error(t, reg.Register("v1beta1", conversion.Spoke{ToHub: id, FromHub: id}), "twice")
	assert.Error(t, reg.Register("v2", conversion.Spoke{ToHub: id}), "half a spoke")
	_, err := reg.ConvertObject(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget"}`), "example.com/v1")
	assert.EqualError(t, err, `no converter registered for version "v1alpha1"`)
	_, err = reg.ConvertObject(decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget"}`), "other.com/v1")
	assert.Error(t, err)
	// through the converter: the spoke may not rename the object.
	require.NoError(t, reg.Register("v1alpha1", conversion.Spoke{ToHub: func(o map[string]any) (map[string]any, error) {
		o["metadata"].(map[string]any)["name"] = "renamed"
		return o, nil
	}, FromHub: id}))
	crd := widgets()
	crd.Strategy = conversion.StrategyWebhook
	crd.Webhook = &conversion.Webhook{ConversionReviewVersions: []string{"v1"}}
	c, err := conversion.New(crd, conversion.Options{Caller: reg})
	require.NoError(t, err)
	_, err = c.Convert(decode(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"a"}}`), "v1beta1")
	assert.EqualError(t, err, "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid object: must have the same name: a != renamed")
	out, err := c.Convert(decode(`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"},"spec":{"x":1}}`), "v1")
	require.NoError(t, err)
	assert.Equal(t, decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"x":1}}`), out)
	resp, err := reg.Call(context.Background(), []byte(`{"kind":"Nope"}`))
	require.NoError(t, err)
	assert.Equal(t, 400, resp.StatusCode)
}

func TestRoundTripAndMigrationGolden(t *testing.T) {
	c, err := conversion.New(widgets(), conversion.Options{})
	require.NoError(t, err)
	data, err := os.ReadFile(goldenDir + "widgets.yaml")
	require.NoError(t, err)
	objs, err := codec.DecodeDocuments(data)
	require.NoError(t, err)
	before := make([]map[string]any, len(objs))
	for i, o := range objs {
		before[i], _ = value.DeepCopyMap(o)
	}
	var b strings.Builder
	b.WriteString("== round trips\n")
	for _, rt := range c.CheckRoundTrip(objs) {
		fmt.Fprintf(&b, "%s %s lossless=%v err=%v\n", rt.Object, strings.Join(rt.Path, "->"), rt.Lossless(), rt.Err)
		for _, ch := range rt.Changes {
			fmt.Fprintf(&b, "  %s\n", ch)
		}
	}
	b.WriteString("== migration\n")
	m := c.PlanMigration(objs)
	for _, w := range m.Writes {
		j, _ := codec.EncodeJSON(w.Written)
		fmt.Fprintf(&b, "%s from %s: %s\n", w.Object, w.From, j)
		for _, ch := range w.Changes {
			fmt.Fprintf(&b, "  %s\n", ch)
		}
	}
	fmt.Fprintf(&b, "stranded: %d, storedVersions: %v\n", len(m.Stranded), m.StoredVersions)
	assert.Equal(t, before, objs, "inputs modified")
	golden(t, "roundtrip-migration.golden", b.String())
}

func TestDiff(t *testing.T) {
	got := conversion.Diff(decode(`{"apiVersion":"a/v1","a":{"b":[1,2,{"c":3}],"d":"x"},"e":1}`), decode(`{"apiVersion":"a/v2","a":{"b":[1,{"c":3}],"f":true},"e":1.0}`))
	var lines []string
	for _, c := range got {
		lines = append(lines, c.String())
	}
	assert.Equal(t, []string{
		"a.b[1]: changed from 2 to {\"c\":3}",
		"a.b[2]: lost (was {\"c\":3})",
		"a.d: lost (was \"x\")",
		"a.f: added (true)",
		"e: changed from 1 to 1",
	}, lines)
}

func TestReadUnknownStoredVersion(t *testing.T) {
	c, err := conversion.New(widgets(), conversion.Options{})
	require.NoError(t, err)
	_, err = c.Read(decode(`{"apiVersion":"example.com/v0","kind":"Widget","metadata":{"name":"a"}}`), "v1")
	assert.EqualError(t, err, "request to convert CR from an invalid group/version: example.com/v0")
	// malformed metadata read back from storage is dropped, not an error (the storage decoder's
	// dropInvalidMetadata); a missing generation is repaired.
	out, err := c.Read(decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":7,"labels":{"a":"b"}}}`), "v1")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"labels": map[string]any{"a": "b"}, "generation": int64(1)}, out["metadata"])
	// the same metadata in a conversion is an error (400, as on decode).
	_, err = c.ConvertAndPrune(decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":7}}`), "v1beta1")
	var st *status.Error
	require.ErrorAs(t, err, &st)
	assert.Equal(t, 400, st.StatusCode())
}

// TestBadCABundle: the apiserver accepts an invalid caBundle on create; the webhook client
// cannot be built from it.
func TestBadCABundle(t *testing.T) {
	crd := webhookCRD(t, "https://a.example", []byte("not a cert"), "v1")
	_, err := conversion.New(crd, conversion.Options{})
	assert.EqualError(t, err, "unable to load root certificates: unable to parse bytes as PEM block")
}

// TestResultsShareNothing: modifying any result leaves the input alone.
func TestResultsShareNothing(t *testing.T) {
	c, err := conversion.New(widgets(), conversion.Options{})
	require.NoError(t, err)
	in := decode(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","labels":{"x":"y"},"generation":1},"spec":{"size":1,"extra":{"kept":"k"}}}`)
	other := decode(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"a"},"spec":{"size":1}}`)
	before, _ := value.DeepCopyMap(in)
	beforeOther, _ := value.DeepCopyMap(other)
	scribble := func(m map[string]any) {
		for _, v := range m {
			if sub, ok := v.(map[string]any); ok {
				scribble2(sub)
			}
		}
	}
	for _, f := range []func() (map[string]any, error){
		func() (map[string]any, error) { return c.Convert(in, "v1alpha1") },
		func() (map[string]any, error) { return c.ConvertAndPrune(in, "v1alpha1") },
		func() (map[string]any, error) { return c.ConvertAndPrune(in, "v1") },
		func() (map[string]any, error) { return c.ConvertAndPrune(other, "v1alpha1") },
		func() (map[string]any, error) { return c.Read(in, "v1") },
		func() (map[string]any, error) { return c.Read(in, "v1alpha1") },
		func() (map[string]any, error) { return c.Read(other, "v1beta1") },
		func() (map[string]any, error) { return c.ToStorage(in) },
	} {
		out, err := f()
		require.NoError(t, err)
		scribble(out)
	}
	assert.Equal(t, before, in)
	assert.Equal(t, beforeOther, other)
}

func scribble2(m map[string]any) {
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			scribble2(sub)
		} else {
			m[k] = "scribbled"
		}
	}
	m["new"] = true
}

func TestPlan(t *testing.T) {
	crd := widgets()
	for _, tc := range []struct {
		verb, version string
		steps         []string
	}{
		{"create", "v1beta1", []string{"v1beta1->v1beta1", "v1beta1->v1", "v1->v1beta1"}},
		{"update", "v1alpha1", []string{"v1->v1alpha1", "v1alpha1->v1alpha1", "v1alpha1->v1", "v1->v1alpha1"}},
		{"patch", "v1", []string{"v1->v1", "v1->v1", "v1->v1", "v1->v1"}},
		{"list", "v1beta1", []string{"v1->v1beta1"}},
		{"watch", "v1alpha1", []string{"v1->v1alpha1"}},
	} {
		steps, _, err := crd.Plan(conversion.Request{Verb: tc.verb, Version: tc.version})
		require.NoError(t, err)
		var got []string
		for _, s := range steps {
			got = append(got, s.From+"->"+s.To)
		}
		assert.Equal(t, tc.steps, got, "%s %s", tc.verb, tc.version)
	}
	_, _, err := crd.Plan(conversion.Request{Verb: "frobnicate", Version: "v1"})
	assert.Error(t, err)
}
