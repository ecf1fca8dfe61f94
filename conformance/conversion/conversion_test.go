// Package conversion compares writepath's conversion package with the converters of
// k8s.io/apiextensions-apiserver v0.37.2 (nopConverter and webhookConverter behind
// crConverter), against the same httptest TLS webhook, on generated objects and webhook
// behaviours: equal outputs and equal errors.
package conversion

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	refconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/conversion"
)

const group = "conv.writepath.test"

var versions = []string{"v1alpha1", "v1beta1", "v1"}

// crdObject is the CRD as a map (for writepath) and typed (for the reference).
func crdObject(strategy string, url string, caBundle []byte, reviewVersions []string) (map[string]any, *v1.CustomResourceDefinition) {
	props := `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`
	var vs []any
	for i, v := range versions {
		var sc map[string]any
		_ = json.Unmarshal([]byte(props), &sc)
		vs = append(vs, map[string]any{"name": v, "served": true, "storage": i == len(versions)-1, "schema": map[string]any{"openAPIV3Schema": sc}})
	}
	conv := map[string]any{"strategy": strategy}
	if strategy == "Webhook" {
		rv := make([]any, len(reviewVersions))
		for i, v := range reviewVersions {
			rv[i] = v
		}
		conv["webhook"] = map[string]any{"conversionReviewVersions": rv,
			"clientConfig": map[string]any{"url": url, "caBundle": caBundle}}
	}
	m := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{"group": group, "scope": "Namespaced",
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": vs, "conversion": conv}}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	var typed v1.CustomResourceDefinition
	if err := yaml.Unmarshal(b, &typed); err != nil {
		panic(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	return back, &typed
}

// timeoutWrapper shortens the reference client's 30s timeout, as writepath's ClientOptions do.
func timeoutWrapper(d time.Duration) webhook.AuthenticationInfoResolverWrapper {
	return func(r webhook.AuthenticationInfoResolver) webhook.AuthenticationInfoResolver {
		return &timeoutResolver{r, d}
	}
}

type timeoutResolver struct {
	webhook.AuthenticationInfoResolver
	d time.Duration
}

func (t *timeoutResolver) ClientConfigFor(hostPort string) (*rest.Config, error) {
	c, err := t.AuthenticationInfoResolver.ClientConfigFor(hostPort)
	if err == nil {
		c.Timeout = t.d
	}
	return c, err
}

type pair struct {
	ref  runtime.ObjectConvertor
	ours *conversion.Converter
}

func newPair(t testing.TB, strategy, url string, ca []byte, reviewVersions []string, timeout time.Duration) pair {
	m, typed := crdObject(strategy, url, ca, reviewVersions)
	f, err := refconversion.NewCRConverterFactory(nil, timeoutWrapper(timeout))
	require.NoError(t, err)
	safe, _, err := f.NewConverter(typed)
	require.NoError(t, err)
	crd, err := conversion.FromCRD(m)
	require.NoError(t, err)
	var caller conversion.Caller
	if strategy == "Webhook" {
		cl, err := conversion.NewClient(crd, conversion.ClientOptions{Timeout: timeout})
		require.NoError(t, err)
		caller = cl
	}
	ours, err := conversion.New(crd, conversion.Options{Caller: caller})
	require.NoError(t, err)
	return pair{ref: safe, ours: ours}
}

var uidRx = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func errText(err error) string {
	if err == nil {
		return ""
	}
	return uidRx.ReplaceAllString(err.Error(), "<uid>")
}

// run converts in with both and compares.
func (p pair) compare(t *testing.T, in map[string]any, isList bool, version, label string) bool {
	t.Helper()
	gv := schema.GroupVersion{Group: group, Version: version}
	var refOut map[string]any
	var refErr error
	if isList {
		l := &unstructured.UnstructuredList{}
		l.SetUnstructuredContent(runtime.DeepCopyJSON(in))
		var o runtime.Object
		if o, refErr = p.ref.ConvertToVersion(l, gv); refErr == nil {
			refOut = o.(*unstructured.UnstructuredList).UnstructuredContent()
		}
	} else {
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(in)}
		var o runtime.Object
		if o, refErr = p.ref.ConvertToVersion(u, gv); refErr == nil {
			refOut = o.(*unstructured.Unstructured).UnstructuredContent()
		}
	}
	refBodies := takeBodies()
	var out map[string]any
	var err error
	if isList {
		out, err = p.ours.ConvertList(in, version)
	} else {
		out, err = p.ours.Convert(in, version)
	}
	requestsCompared += len(refBodies)
	ok := assert.Equal(t, refBodies, takeBodies(), "%s: requests sent to the webhook", label)
	ok = assert.Equal(t, errText(refErr), errText(err), "%s: error", label) && ok
	if refErr == nil && err == nil {
		ok = assert.Equal(t, refOut, out, "%s: output", label) && ok
	}
	return ok
}

// behaviours of the test webhook, chosen per case.
var behaviours = []string{"ok", "ok", "ok", "labels", "annotations", "metachange", "fewer", "more", "wronguid", "changename",
	"changenamespace", "changeuid", "changekind", "wrongversion", "invalidjson", "failure", "failurenomsg", "noresponse",
	"status500", "status500status", "text404", "badlabel", "badannotation", "labelnumber", "nometadata", "metadatastring",
	"nokind", "nullobject", "stringobject", "v1beta1answer", "noreviewkind", "wrongreviewkind", "emptybody", "nolabels",
	"emptyapiversion", "badcontenttype", "uidnumber", "responsestring", "objectsobject", "kindnumber", "statusnumber",
	"codestring", "detailslist", "causesbad", "metadatalist", "resultnull", "objectsnull", "textplain200"}

var behaviour atomic.Value

// requestsCompared counts the webhook requests compared byte for byte.
var requestsCompared int

func convertObj(o map[string]any, desired string) map[string]any {
	out := runtime.DeepCopyJSON(o)
	out["apiVersion"] = desired
	if spec, ok := out["spec"].(map[string]any); ok {
		if strings.HasSuffix(desired, "/v1") {
			if s, ok := spec["size"]; ok {
				spec["count"] = s
				delete(spec, "size")
			}
		} else if s, ok := spec["count"]; ok {
			spec["size"] = s
			delete(spec, "count")
		}
	}
	return out
}

// bodies records the request bodies the webhook receives, to compare what both sides send.
var bodies struct {
	sync.Mutex
	list []string
}

func takeBodies() []string {
	bodies.Lock()
	defer bodies.Unlock()
	out := bodies.list
	bodies.list = nil
	return out
}

func handler(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	bodies.Lock()
	bodies.list = append(bodies.list, uidRx.ReplaceAllString(r.Method+" "+r.URL.String()+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Accept")+"\n"+string(raw), "<uid>"))
	bodies.Unlock()
	var review map[string]any
	if err := json.Unmarshal(raw, &review); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	req := review["request"].(map[string]any)
	desired := req["desiredAPIVersion"].(string)
	objs, _ := req["objects"].([]any)
	var converted []any
	for _, o := range objs {
		converted = append(converted, convertObj(o.(map[string]any), desired))
	}
	setMeta := func(k string, v any) {
		for _, c := range converted {
			md, _ := c.(map[string]any)["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
				c.(map[string]any)["metadata"] = md
			}
			md[k] = v
		}
	}
	resp := map[string]any{"uid": req["uid"], "result": map[string]any{"status": "Success"}}
	out := map[string]any{"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": resp}
	b := behaviour.Load().(string)
	switch b {
	case "labels":
		setMeta("labels", map[string]any{"converted": "yes"})
	case "nolabels":
		for _, c := range converted {
			if md, ok := c.(map[string]any)["metadata"].(map[string]any); ok {
				delete(md, "labels")
			}
		}
	case "annotations":
		setMeta("annotations", map[string]any{"example.com/converted": "true"})
	case "metachange":
		setMeta("generation", 42)
		setMeta("finalizers", []any{"x/y"})
	case "fewer":
		if len(converted) > 0 {
			converted = converted[:len(converted)-1]
		}
	case "more":
		converted = append(converted, map[string]any{"apiVersion": desired, "kind": "Widget"})
	case "wronguid":
		resp["uid"] = "wrong"
	case "changename":
		setMeta("name", "other")
	case "changenamespace":
		setMeta("namespace", "elsewhere")
	case "changeuid":
		setMeta("uid", "u-2")
	case "changekind":
		for _, c := range converted {
			c.(map[string]any)["kind"] = "Gadget"
		}
	case "wrongversion":
		for _, c := range converted {
			c.(map[string]any)["apiVersion"] = group + "/v9"
		}
	case "emptyapiversion":
		for _, c := range converted {
			delete(c.(map[string]any), "apiVersion")
		}
	case "invalidjson":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"response": {`))
		return
	case "failure":
		resp["result"] = map[string]any{"status": "Failure", "message": "cannot convert: spec.size is too large"}
	case "failurenomsg":
		resp["result"] = map[string]any{"status": "Failure"}
	case "noresponse":
		delete(out, "response")
	case "status500":
		http.Error(w, "internal trouble", 500)
		return
	case "status500status":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"webhook says no","code":500}`))
		return
	case "text404":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		_, _ = w.Write([]byte("not here\n"))
		return
	case "badlabel":
		setMeta("labels", map[string]any{"bad key!": "-x-"})
	case "badannotation":
		setMeta("annotations", map[string]any{"Not/Valid/Key": "v"})
	case "labelnumber":
		setMeta("labels", map[string]any{"n": 1})
	case "nometadata":
		for _, c := range converted {
			delete(c.(map[string]any), "metadata")
		}
	case "metadatastring":
		for _, c := range converted {
			c.(map[string]any)["metadata"] = "m"
		}
	case "nokind":
		for _, c := range converted {
			delete(c.(map[string]any), "kind")
		}
	case "nullobject":
		for i := range converted {
			converted[i] = nil
		}
	case "stringobject":
		for i := range converted {
			converted[i] = "obj"
		}
	case "v1beta1answer":
		out["apiVersion"] = "apiextensions.k8s.io/v1beta1"
	case "noreviewkind":
		delete(out, "kind")
		delete(out, "apiVersion")
	case "wrongreviewkind":
		out["kind"] = "AdmissionReview"
	case "emptybody":
		w.WriteHeader(200)
		return
	case "badcontenttype":
		w.Header().Set("Content-Type", "application/json; charset")
	case "uidnumber":
		resp["uid"] = 5
	case "responsestring":
		out["response"] = "converted"
	case "objectsobject":
		resp["convertedObjects"] = map[string]any{}
		_ = json.NewEncoder(w).Encode(out)
		return
	case "objectsnull":
		resp["convertedObjects"] = nil
		_ = json.NewEncoder(w).Encode(out)
		return
	case "kindnumber":
		out["kind"] = 5
	case "statusnumber":
		resp["result"] = map[string]any{"status": 1}
	case "codestring":
		resp["result"] = map[string]any{"status": "Success", "code": "200"}
	case "detailslist":
		resp["result"] = map[string]any{"status": "Failure", "details": []any{}}
	case "causesbad":
		resp["result"] = map[string]any{"status": "Failure", "message": "m", "details": map[string]any{"causes": []any{map[string]any{"reason": 1}}}}
	case "metadatalist":
		resp["result"] = map[string]any{"status": "Success", "metadata": []any{}}
	case "resultnull":
		resp["result"] = nil
	case "textplain200":
		w.Header().Set("Content-Type", "text/plain")
	}
	resp["convertedObjects"] = converted
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	_ = json.NewEncoder(w).Encode(out)
}

// gen builds a random Widget at a random version.
func gen(r *rand.Rand, i int) map[string]any {
	v := versions[r.Intn(len(versions))]
	spec := map[string]any{}
	if r.Intn(4) > 0 {
		spec["size"] = int64(r.Intn(100))
	}
	if r.Intn(3) == 0 {
		spec["color"] = []string{"red", "<blue>", "gr&en", ""}[r.Intn(4)]
	}
	if r.Intn(4) == 0 {
		spec["ratio"] = r.Float64() * 1e6
	}
	if r.Intn(5) == 0 {
		spec["list"] = []any{int64(1), "two", nil, map[string]any{"x": true}}
	}
	md := map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": "ns", "uid": fmt.Sprintf("uid-%d", i)}
	if r.Intn(2) == 0 {
		md["labels"] = map[string]any{"app": "w"}
	}
	if r.Intn(4) == 0 {
		md["annotations"] = map[string]any{"a": "b"}
	}
	if r.Intn(6) == 0 {
		md["generation"] = int64(3)
	}
	obj := map[string]any{"apiVersion": group + "/" + v, "kind": "Widget", "metadata": md, "spec": spec}
	switch r.Intn(40) {
	case 0:
		obj["apiVersion"] = group + "/v9" // not a version of the CRD
	case 1:
		obj["apiVersion"] = "other.group/v1"
	case 2:
		obj = map[string]any{"apiVersion": group + "/" + v, "kind": "Widget"} // empty object
	case 3:
		delete(obj, "kind")
	}
	return obj
}

func genList(r *rand.Rand, i int) map[string]any {
	n := r.Intn(5)
	items := make([]any, n)
	for j := range items {
		items[j] = gen(r, i*10+j)
	}
	return map[string]any{"apiVersion": group + "/" + versions[r.Intn(len(versions))], "kind": "WidgetList", "metadata": map[string]any{}, "items": items}
}

func count(normal, long int) int {
	if os.Getenv("WRITEPATH_LONG") == "1" {
		return long
	}
	return normal
}

func target(r *rand.Rand) string {
	if r.Intn(30) == 0 {
		return "v7" // not a version of the CRD
	}
	return versions[r.Intn(len(versions))]
}

func TestNone(t *testing.T) {
	p := newPair(t, "None", "", nil, nil, time.Second)
	r := rand.New(rand.NewSource(1))
	n := count(2000, 100000)
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		isList := r.Intn(4) == 0
		var in map[string]any
		if isList {
			in = genList(r, i)
		} else {
			in = gen(r, i)
		}
		if !p.compare(t, in, isList, target(r), fmt.Sprintf("case %d", i)) {
			fails++
		}
	}
	t.Logf("None: %d cases", n)
}

func TestWebhook(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(handler))
	defer srv.Close()
	ca := pemCert(srv)
	pairs := map[string]pair{
		"v1":         newPair(t, "Webhook", srv.URL+"/convert", ca, []string{"v1"}, 5*time.Second),
		"v1beta1":    newPair(t, "Webhook", srv.URL+"/convert", ca, []string{"v1beta1", "v1"}, 5*time.Second),
		"unknown-v1": newPair(t, "Webhook", srv.URL+"/convert", ca, []string{"v2", "v1"}, 5*time.Second),
	}
	names := []string{"v1", "v1beta1", "unknown-v1"}
	r := rand.New(rand.NewSource(2))
	n := count(1500, 100000)
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		b := behaviours[r.Intn(len(behaviours))]
		behaviour.Store(b)
		rv := names[r.Intn(len(names))]
		isList := r.Intn(4) == 0
		var in map[string]any
		if isList {
			in = genList(r, i)
		} else {
			in = gen(r, i)
		}
		if !pairs[rv].compare(t, in, isList, target(r), fmt.Sprintf("case %d (%s, review %s, list %v)", i, b, rv, isList)) {
			fails++
		}
	}
	t.Logf("Webhook: %d cases, %d webhook requests compared byte for byte", n, requestsCompared)
}

// TestWebhookTransport: an unreachable webhook, an untrusted certificate and a timeout fail with
// the same words.
func TestWebhookTransport(t *testing.T) {
	obj := map[string]any{"apiVersion": group + "/v1alpha1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": int64(1)}}
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		behaviour.Store("ok")
		handler(w, r)
	}))
	defer slow.Close()
	other := httptest.NewTLSServer(http.HandlerFunc(handler))
	defer other.Close()
	closed := httptest.NewTLSServer(http.HandlerFunc(handler))
	closedURL := closed.URL
	closed.Close()
	behaviour.Store("ok")
	for _, tc := range []struct {
		name, url string
		ca        []byte
		prefix    bool
	}{
		{"untrusted", other.URL + "/convert", nil, false},
		{"refused", closedURL + "/convert", pemCert(slow), false},
		{"timeout", slow.URL + "/convert", pemCert(slow), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, "Webhook", tc.url, tc.ca, []string{"v1"}, 500*time.Millisecond)
			_, refErr := p.ref.ConvertToVersion(&unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}, schema.GroupVersion{Group: group, Version: "v1"})
			_, err := p.ours.Convert(obj, "v1")
			require.Error(t, refErr)
			require.Error(t, err)
			if tc.prefix {
				// the deadline text races between the client's timer and the context's.
				want := errText(refErr)
				assert.True(t, strings.HasPrefix(errText(err), want[:strings.Index(want, "timeout=")]), "ours %q, reference %q", err, refErr)
				return
			}
			assert.Equal(t, errText(refErr), errText(err))
		})
	}
}
