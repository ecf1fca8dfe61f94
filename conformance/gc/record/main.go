// Command record runs the deletion scenarios of testdata/gc/scenarios against a real
// kube-apiserver + kube-controller-manager (garbage collector, namespace, deployment and
// replicaset controllers) and writes what the cluster did to testdata/gc/recorded: for each step,
// the objects before the request, the request, the response, every state each object went
// through (from watches) and the objects once the controllers are quiet.
//
//	cd conformance && go run ./gc/record -kubeconfig /tmp/realcluster/kubeconfig
//
// Scenarios create their own namespaces (prefix "gc-") and delete them first if they exist.
// In ownerReferences, a uid of the form "$uid:Kind/namespace/name" (or "$uid:Kind/name" for
// cluster-scoped objects) is replaced by the uid of that object, created earlier.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// Scenario is one file of testdata/gc/scenarios.
type Scenario struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Namespaces  []string         `json:"namespaces"`
	Setup       []map[string]any `json:"setup"`
	// WaitFor lists "Kind/namespace=count" conditions to wait for after setup (controllers
	// creating ReplicaSets and Pods).
	WaitFor []string `json:"waitFor"`
	Steps   []Step   `json:"steps"`
}

// Step is one request.
type Step struct {
	Op     string         `json:"op"` // create, delete, patch
	Target Target         `json:"target"`
	Body   map[string]any `json:"body,omitempty"`
	// Settle overrides the quiet time (seconds) that ends the step.
	Settle int `json:"settle,omitempty"`
}

// Target names an object.
type Target struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// Recorded is the fixture written for a scenario.
type Recorded struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Steps       []RecordedStep `json:"steps"`
}

// RecordedStep is what the cluster did for one step.
type RecordedStep struct {
	Request  Step             `json:"request"`
	Time     string           `json:"time"`
	Before   []map[string]any `json:"before"`
	Code     int              `json:"code"`
	Response map[string]any   `json:"response"`
	After    []map[string]any `json:"after"`
	// Histories maps "apiVersion kind namespace/name" to the object's successive states
	// (nil entry = deleted), from watch events.
	Histories map[string][]map[string]any `json:"histories"`
}

var resources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "configmaps"}, {Version: "v1", Resource: "secrets"}, {Version: "v1", Resource: "pods"},
	{Version: "v1", Resource: "namespaces"}, {Version: "v1", Resource: "events"},
	{Group: "apps", Version: "v1", Resource: "deployments"}, {Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "batch", Version: "v1", Resource: "jobs"}, {Version: "v1", Resource: "serviceaccounts"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	{Group: "gc.writepath.test", Version: "v1", Resource: "widgets"},
	{Group: "gc.writepath.test", Version: "v1", Resource: "clusterwidgets"},
}

type recorder struct {
	cfg    *rest.Config
	http   *http.Client
	dyn    dynamic.Interface
	mapper meta.ResettableRESTMapper
	uids   map[string]string
	scope  map[string]bool // namespaces of the scenario
}

func main() {
	kubeconfig := flag.String("kubeconfig", "/tmp/realcluster/kubeconfig", "kubeconfig of the real cluster")
	dir := flag.String("testdata", "../testdata/gc", "testdata/gc directory")
	only := flag.String("run", "", "record only scenarios whose name contains one of these comma-separated strings")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	must(err)
	hc, err := rest.HTTPClientFor(cfg)
	must(err)
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	r := &recorder{cfg: cfg, http: hc, dyn: dynamic.NewForConfigOrDie(cfg),
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
	files, err := filepath.Glob(filepath.Join(*dir, "scenarios", "*.yaml"))
	must(err)
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(err)
		var sc Scenario
		must(yaml.UnmarshalStrict(data, &sc))
		if *only != "" && !matchesAny(sc.Name, strings.Split(*only, ",")) {
			continue
		}
		fmt.Fprintln(os.Stderr, "recording", sc.Name)
		rec := r.record(sc)
		out, err := json.MarshalIndent(rec, "", "  ")
		must(err)
		must(os.WriteFile(filepath.Join(*dir, "recorded", sc.Name+".json"), append(out, '\n'), 0o644))
	}
}

func matchesAny(name string, subs []string) bool {
	for _, s := range subs {
		if s != "" && strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (r *recorder) path(t Target) (string, error) {
	gv, err := schema.ParseGroupVersion(t.APIVersion)
	if err != nil {
		return "", err
	}
	m, err := r.mapper.RESTMapping(gv.WithKind(t.Kind).GroupKind(), gv.Version)
	if err != nil {
		r.mapper.Reset()
		if m, err = r.mapper.RESTMapping(gv.WithKind(t.Kind).GroupKind(), gv.Version); err != nil {
			return "", err
		}
	}
	p := "/apis/" + t.APIVersion
	if gv.Group == "" {
		p = "/api/v1"
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		p += "/namespaces/" + t.Namespace
	}
	p += "/" + m.Resource.Resource
	if t.Name != "" {
		p += "/" + t.Name
	}
	return p, nil
}

func (r *recorder) do(method, path, contentType string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		must(err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(r.cfg.Host, "/")+path, rd)
	must(err)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.http.Do(req)
	must(err)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

func substitute(v any, uids map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			out[k] = substitute(x, uids)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = substitute(x, uids)
		}
		return out
	case string:
		if strings.HasPrefix(t, "$uid:") {
			u, ok := uids[strings.TrimPrefix(t, "$uid:")]
			if !ok {
				panic("unknown uid reference " + t)
			}
			return u
		}
	}
	return v
}

func targetOf(obj map[string]any) Target {
	u := unstructured.Unstructured{Object: obj}
	return Target{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

func uidKey(t Target) string {
	if t.Namespace == "" {
		return t.Kind + "/" + t.Name
	}
	return t.Kind + "/" + t.Namespace + "/" + t.Name
}

func (r *recorder) cleanup(sc Scenario) {
	for _, ns := range sc.Namespaces {
		r.do("DELETE", "/api/v1/namespaces/"+ns, "", nil)
	}
	for _, o := range sc.Setup {
		t := targetOf(o)
		if t.Namespace != "" || t.Kind == "Namespace" {
			continue
		}
		p, err := r.path(t)
		if err != nil {
			continue
		}
		// Strip finalizers, then delete.
		r.do("PATCH", p, "application/merge-patch+json", map[string]any{"metadata": map[string]any{"finalizers": nil}})
		if t.Kind != "CustomResourceDefinition" {
			r.do("DELETE", p, "", nil)
		}
	}
	// Wait for the namespaces to go, stripping finalizers of what is left inside.
	for i := 0; i < 120; i++ {
		left := false
		for _, ns := range sc.Namespaces {
			if code, _ := r.do("GET", "/api/v1/namespaces/"+ns, "", nil); code != 404 {
				left = true
				for _, gvr := range resources {
					if gvr.Resource == "namespaces" || gvr.Resource == "clusterroles" || gvr.Resource == "customresourcedefinitions" || gvr.Resource == "clusterwidgets" {
						continue
					}
					l, err := r.dyn.Resource(gvr).Namespace(ns).List(context.TODO(), metav1.ListOptions{})
					if err != nil {
						continue
					}
					for _, it := range l.Items {
						if len(it.GetFinalizers()) > 0 {
							p, _ := r.path(targetOf(it.Object))
							r.do("PATCH", p, "application/merge-patch+json", map[string]any{"metadata": map[string]any{"finalizers": nil}})
						}
					}
				}
			}
		}
		if !left {
			break
		}
		time.Sleep(time.Second)
	}
}

func (r *recorder) record(sc Scenario) Recorded {
	r.uids = map[string]string{}
	r.scope = map[string]bool{}
	for _, ns := range sc.Namespaces {
		r.scope[ns] = true
	}
	r.cleanup(sc)
	for _, ns := range sc.Namespaces {
		code, body := r.do("POST", "/api/v1/namespaces", "application/json", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
		if code != 201 {
			panic(fmt.Sprintf("create namespace %s: %d %v", ns, code, body))
		}
		r.uids["Namespace/"+ns] = body["metadata"].(map[string]any)["uid"].(string)
	}
	for _, o := range sc.Setup {
		o = substitute(o, r.uids).(map[string]any)
		t := targetOf(o)
		t.Name = ""
		p, err := r.path(t)
		if err != nil && t.Kind != "CustomResourceDefinition" {
			// A kind whose CRD was just created: wait for discovery.
			for i := 0; i < 30 && err != nil; i++ {
				time.Sleep(time.Second)
				r.mapper.Reset()
				p, err = r.path(t)
			}
		}
		must(err)
		code, body := r.do("POST", p, "application/json", o)
		if code != 201 {
			panic(fmt.Sprintf("create %v: %d %v", targetOf(o), code, body))
		}
		r.uids[uidKey(targetOf(body))] = body["metadata"].(map[string]any)["uid"].(string)
		if t.Kind == "CustomResourceDefinition" {
			time.Sleep(3 * time.Second)
			r.mapper.Reset()
		}
	}
	r.waitFor(sc.WaitFor)
	r.settle(3*time.Second, nil)
	rec := Recorded{Name: sc.Name, Description: sc.Description}
	for _, st := range sc.Steps {
		rec.Steps = append(rec.Steps, r.step(st))
	}
	return rec
}

func (r *recorder) waitFor(conds []string) {
	for _, c := range conds {
		kindNS, want, _ := strings.Cut(c, "=")
		var n int
		fmt.Sscan(want, &n)
		kind, ns, _ := strings.Cut(kindNS, "/")
		for i := 0; i < 60; i++ {
			got := 0
			for _, o := range r.snapshot() {
				if targetOf(o).Kind == kind && targetOf(o).Namespace == ns {
					got++
				}
			}
			if got >= n {
				break
			}
			time.Sleep(time.Second)
		}
	}
}

// inScope keeps the scenario's objects: those in its namespaces, its namespaces, and the
// cluster-scoped objects it created (named gc-...).
func (r *recorder) inScope(o map[string]any) bool {
	if io, ok := o["involvedObject"].(map[string]any); ok && o["kind"] == "Event" {
		// Events about cluster-scoped objects land in "default".
		ns, _ := io["namespace"].(string)
		name, _ := io["name"].(string)
		kind, _ := io["kind"].(string)
		if ns == "" && kind != "Namespace" {
			return strings.HasPrefix(name, "gc-")
		}
	}
	t := targetOf(o)
	if t.Namespace != "" {
		return r.scope[t.Namespace]
	}
	if t.Kind == "Namespace" {
		return r.scope[t.Name]
	}
	return strings.HasPrefix(t.Name, "gc-") || strings.HasSuffix(t.Name, ".gc.writepath.test")
}

func (r *recorder) snapshot() []map[string]any {
	var out []map[string]any
	for _, gvr := range resources {
		l, err := r.dyn.Resource(gvr).List(context.TODO(), metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, it := range l.Items {
			if r.inScope(it.Object) {
				out = append(out, it.Object)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return creation(out[i]) < creation(out[j])
	})
	return out
}

func creation(o map[string]any) string {
	u := unstructured.Unstructured{Object: o}
	ts := u.GetCreationTimestamp().UTC().Format(time.RFC3339)
	// Pad the resourceVersion so objects created in the same second keep their order.
	return ts + fmt.Sprintf("%020s", u.GetResourceVersion())
}

// settle waits until no watched object in scope changes for quiet.
func (r *recorder) settle(quiet time.Duration, started func()) map[string][]map[string]any {
	hist := map[string][]map[string]any{}
	var mu sync.Mutex
	last := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, gvr := range resources {
		l, err := r.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		w, err := r.dyn.Resource(gvr).Watch(ctx, metav1.ListOptions{ResourceVersion: l.GetResourceVersion()})
		if err != nil {
			continue
		}
		go func() {
			for ev := range w.ResultChan() {
				u, ok := ev.Object.(*unstructured.Unstructured)
				if !ok || !r.inScope(u.Object) {
					continue
				}
				key := historyKey(u.Object)
				mu.Lock()
				last = time.Now()
				if ev.Type == watch.Deleted {
					hist[key] = append(hist[key], nil)
				} else {
					hist[key] = append(hist[key], u.Object)
				}
				mu.Unlock()
			}
		}()
	}
	mu.Lock()
	last = time.Now()
	mu.Unlock()
	if started != nil {
		started()
	}
	for {
		time.Sleep(250 * time.Millisecond)
		mu.Lock()
		done := time.Since(last) > quiet
		mu.Unlock()
		if done {
			break
		}
	}
	cancel()
	mu.Lock()
	defer mu.Unlock()
	return hist
}

func historyKey(o map[string]any) string {
	t := targetOf(o)
	ns := t.Namespace
	if ns != "" {
		ns += "/"
	}
	return t.APIVersion + " " + t.Kind + " " + ns + t.Name
}

func (r *recorder) step(st Step) RecordedStep {
	st.Body = substituteMap(st.Body, r.uids)
	rs := RecordedStep{Request: st, Before: r.snapshot()}
	quiet := 4 * time.Second
	if st.Settle > 0 {
		quiet = time.Duration(st.Settle) * time.Second
	}
	type out struct {
		code int
		body map[string]any
	}
	done := make(chan out, 1)
	var hist map[string][]map[string]any
	started := make(chan struct{})
	go func() {
		<-started
		t := st.Target
		switch st.Op {
		case "create":
			t.Name = ""
			p, err := r.path(t)
			must(err)
			c, b := r.do("POST", p, "application/json", st.Body)
			if c == 201 {
				r.uids[uidKey(targetOf(b))] = b["metadata"].(map[string]any)["uid"].(string)
			}
			done <- out{c, b}
		case "delete":
			p, err := r.path(t)
			must(err)
			var body any
			if st.Body != nil {
				body = st.Body
			}
			c, b := r.do("DELETE", p, "application/json", body)
			done <- out{c, b}
		case "patch":
			p, err := r.path(t)
			must(err)
			c, b := r.do("PATCH", p, "application/merge-patch+json", st.Body)
			done <- out{c, b}
		default:
			panic("unknown op " + st.Op)
		}
	}()
	rs.Time = time.Now().UTC().Format(time.RFC3339)
	histCh := make(chan map[string][]map[string]any)
	go func() { histCh <- r.settleAfter(started, quiet) }()
	o := <-done
	hist = <-histCh
	rs.Code, rs.Response = o.code, o.body
	rs.After = r.snapshot()
	rs.Histories = hist
	return rs
}

// settleAfter starts the watches, lets the request go, and waits for quiet.
func (r *recorder) settleAfter(started chan struct{}, quiet time.Duration) map[string][]map[string]any {
	return r.settle(quiet, func() { close(started) })
}

func substituteMap(m map[string]any, uids map[string]string) map[string]any {
	if m == nil {
		return nil
	}
	return substitute(m, uids).(map[string]any)
}
