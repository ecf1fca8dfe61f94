// Command record sends the scenarios of testdata/registry/recorded/scenarios to a real
// kube-apiserver and writes each one's requests and answers to
// testdata/registry/recorded/<scenario>.json, which registry's replay test reads.
//
// Run from the repository root with the control plane up:
//
//	go run ./testdata/registry/recorded/record [-kubeconfig FILE] [scenario ...]
//
// A scenario works in its own namespace (recordings-<scenario>) and names its cluster-scoped
// objects recordings-<scenario>-*; both are deleted before it runs and after. Its setup requests
// must succeed (409 AlreadyExists is fine for shared CRDs); they are not part of the corpus.
// Before each request the recorder lists what the scenario watches until two lists agree (the
// controllers have settled) and records what changed since the previous request: the world the
// request saw. Then it sends the request and records the status, the Warning headers and the body
// byte for byte (indented in the file; compacting it gives the bytes back).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/testdata/internal/kubeclient"
)

// scenario is one file of scenarios/.
type scenario struct {
	Description string `json:"description"`
	// Watch lists the collections whose objects make up the world: paths with $NS; a
	// cluster-scoped list keeps the objects named with the scenario's prefix, or those in Names.
	Watch []watch `json:"watch"`
	// Setup requests build the prerequisite state; they are not recorded as requests.
	Setup []step `json:"setup"`
	// Requests are the corpus.
	Requests []step `json:"requests"`
	// NamespaceLabels label the scenario's namespace.
	NamespaceLabels map[string]string `json:"namespaceLabels"`
	// NoNamespace skips creating the namespace (a scenario about namespaces).
	NoNamespace bool `json:"noNamespace"`
}

type watch struct {
	Path  string   `json:"path"`
	Names []string `json:"names"`
}

type step struct {
	Name        string            `json:"name"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	ContentType string            `json:"contentType"`
	Headers     map[string]string `json:"headers"`
	// Body is an object sent as compact JSON; Raw is sent as it is; Fill is Raw with $FILL
	// replaced by FillSize 'x' bytes (a body past the limits, without storing it).
	Body     any    `json:"body"`
	Raw      string `json:"raw"`
	FillSize int    `json:"fillSize"`
	// Wait, in setup, polls the path until it answers 200 (a CRD being served).
	Wait bool `json:"wait"`
	// SleepMs waits before the request (a grace period running out).
	SleepMs int `json:"sleepMs"`
}

// recording is the file the replay reads.
type recording struct {
	Scenario    string   `json:"scenario"`
	Description string   `json:"description"`
	Namespace   string   `json:"namespace"`
	Steps       []record `json:"steps"`
}

type record struct {
	Name     string   `json:"name"`
	World    world    `json:"world"`
	Request  request  `json:"request"`
	Response response `json:"response"`
}

// world is what changed in the watched collections since the previous step.
type world struct {
	Put    []json.RawMessage `json:"put,omitempty"`
	Delete []objectKey       `json:"delete,omitempty"`
}

type objectKey struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

type request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body,omitempty"`
	// FillSize: Body holds $FILL, to be replaced by FillSize 'x' bytes.
	FillSize int `json:"fillSize,omitempty"`
}

type response struct {
	Status int `json:"status"`
	// Date is the response's Date header: the server's clock when it answered.
	Date        string          `json:"date"`
	Warnings    []string        `json:"warnings,omitempty"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body,omitempty"`
	// BodyText is a body that is not JSON.
	BodyText string `json:"bodyText,omitempty"`
}

// client is the recorder's connection to the real server.
type client struct{ *kubeclient.Client }

func main() {
	kubeconfig := flag.String("kubeconfig", "/tmp/realcluster/kubeconfig", "kubeconfig of the cluster to record")
	dir := flag.String("dir", "testdata/registry/recorded", "directory with scenarios/ and the recordings")
	check := flag.Bool("check", false, "only parse the scenarios and count their requests")
	flag.Parse()
	names := flag.Args()
	if len(names) == 0 {
		files, _ := filepath.Glob(filepath.Join(*dir, "scenarios", "*.yaml"))
		for _, f := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
		}
	}
	if *check {
		total := 0
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join(*dir, "scenarios", name+".yaml"))
			if err != nil {
				fail(err)
			}
			var sc scenario
			if err := yaml.UnmarshalStrict(data, &sc); err != nil {
				fail(fmt.Errorf("%s: %w", name, err))
			}
			fmt.Printf("%s: %d requests\n", name, len(sc.Requests))
			total += len(sc.Requests)
		}
		fmt.Printf("total: %d requests\n", total)
		return
	}
	kc, err := kubeclient.New(*kubeconfig)
	if err != nil {
		fail(err)
	}
	c := &client{kc}
	total := 0
	for _, name := range names {
		n, err := c.recordScenario(*dir, name)
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		fmt.Printf("%s: %d requests\n", name, n)
		total += n
	}
	fmt.Printf("total: %d requests\n", total)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "record:", err)
	os.Exit(1)
}

func expand(s, ns, prefix string) string {
	return strings.NewReplacer("$NS", ns, "$PREFIX", prefix).Replace(s)
}

// body returns the bytes to send (with $FILL still in for fill bodies) and the content type.
func (s step) body(ns, prefix string) (string, string, error) {
	ct := s.ContentType
	if ct == "" {
		switch s.Method {
		case "PATCH":
			ct = "application/merge-patch+json"
		default:
			ct = "application/json"
		}
	}
	switch {
	case s.Raw != "":
		return expand(s.Raw, ns, prefix), ct, nil
	case s.Body != nil:
		b, err := json.Marshal(s.Body)
		if err != nil {
			return "", "", err
		}
		return expand(string(b), ns, prefix), ct, nil
	}
	return "", "", nil
}

func (c *client) recordScenario(dir, name string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "scenarios", name+".yaml"))
	if err != nil {
		return 0, err
	}
	var sc scenario
	if err := yaml.UnmarshalStrict(data, &sc); err != nil {
		return 0, err
	}
	ns := "recordings-" + name
	prefix := ns
	if err := c.cleanup(ns, prefix, sc, true); err != nil {
		return 0, err
	}
	defer c.cleanup(ns, prefix, sc, false)
	if !sc.NoNamespace {
		nsObj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns, "labels": sc.NamespaceLabels}}
		b, _ := json.Marshal(nsObj)
		if code, _, body, err := c.Do("POST", "/api/v1/namespaces", map[string]string{"Content-Type": "application/json", "User-Agent": kubeclient.UserAgent}, b); err != nil || code != 201 {
			return 0, fmt.Errorf("create namespace: %d %s %v", code, body, err)
		}
	}
	for _, s := range sc.Setup {
		if err := c.setup(s, ns, prefix); err != nil {
			return 0, err
		}
	}
	if !sc.NoNamespace {
		// The scenario's namespace is part of its world (cluster-scoped lists keep the prefix).
		sc.Watch = append([]watch{{Path: "/api/v1/namespaces"}}, sc.Watch...)
	}
	rec := recording{Scenario: name, Description: sc.Description, Namespace: ns}
	prev := map[string]json.RawMessage{}
	uidOf := map[string]string{}
	for _, s := range sc.Requests {
		if s.SleepMs > 0 {
			time.Sleep(time.Duration(s.SleepMs) * time.Millisecond)
		}
		snap, err := c.settled(sc, ns, prefix)
		if err != nil {
			return 0, err
		}
		var w world
		keys := make([]string, 0, len(snap))
		for k := range snap {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !bytes.Equal(prev[k], snap[k]) {
				w.Put = append(w.Put, snap[k])
			}
		}
		var gone []string
		for k := range prev {
			if _, ok := snap[k]; !ok {
				gone = append(gone, k)
			}
		}
		sort.Strings(gone)
		for _, k := range gone {
			var key objectKey
			_ = json.Unmarshal([]byte(k), &key)
			w.Delete = append(w.Delete, key)
		}
		prev = snap

		body, ct, err := s.body(ns, prefix)
		if err != nil {
			return 0, err
		}
		body, err = uids(body, uidOf)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.Name, err)
		}
		headers := map[string]string{"Accept": "application/json", "User-Agent": kubeclient.UserAgent}
		if body != "" || s.Method == "POST" || s.Method == "PUT" || s.Method == "PATCH" {
			headers["Content-Type"] = ct
		}
		for k, v := range s.Headers {
			if v == "" {
				delete(headers, k)
				continue
			}
			headers[k] = v
		}
		send := []byte(body)
		if s.FillSize > 0 {
			send = []byte(strings.Replace(body, "$FILL", strings.Repeat("x", s.FillSize), 1))
		}
		if body == "" {
			send = nil
		}
		path := expand(s.Path, ns, prefix)
		code, h, rb, err := c.Do(s.Method, path, headers, send)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.Name, err)
		}
		resp := response{Status: code, Date: h.Get("Date"), Warnings: h.Values("Warning"), ContentType: h.Get("Content-Type")}
		if json.Valid(rb) && len(bytes.TrimSpace(rb)) > 0 {
			var ind bytes.Buffer
			if err := json.Indent(&ind, bytes.TrimSpace(rb), "", "  "); err != nil {
				return 0, err
			}
			// Compacting the indented form must give the bytes back.
			var back bytes.Buffer
			_ = json.Compact(&back, ind.Bytes())
			if !bytes.Equal(back.Bytes(), bytes.TrimSpace(rb)) {
				resp.BodyText = string(rb)
			} else {
				resp.Body = ind.Bytes()
			}
		} else {
			resp.BodyText = string(rb)
		}
		var named struct {
			Metadata struct {
				UID string `json:"uid"`
			} `json:"metadata"`
		}
		if json.Unmarshal(rb, &named) == nil && named.Metadata.UID != "" {
			uidOf[s.Name] = named.Metadata.UID
		}
		rec.Steps = append(rec.Steps, record{
			Name:     s.Name,
			World:    w,
			Request:  request{Method: s.Method, Path: path, Headers: headers, Body: body, FillSize: s.FillSize},
			Response: resp,
		})
		fmt.Printf("  %-40s %s %s -> %d\n", s.Name, s.Method, path, code)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return 0, err
	}
	return len(rec.Steps), os.WriteFile(filepath.Join(dir, name+".json"), out.Bytes(), 0o644)
}

func (c *client) setup(s step, ns, prefix string) error {
	path := expand(s.Path, ns, prefix)
	if s.Wait {
		for i := 0; i < 100; i++ {
			code, _, _, err := c.GetJSON(path)
			if err == nil && code == 200 {
				return nil
			}
			time.Sleep(200 * time.Millisecond)
		}
		return fmt.Errorf("setup: %s never answered 200", path)
	}
	body, ct, err := s.body(ns, prefix)
	if err != nil {
		return err
	}
	headers := map[string]string{"Accept": "application/json", "User-Agent": kubeclient.UserAgent, "Content-Type": ct}
	for k, v := range s.Headers {
		headers[k] = v
	}
	var send []byte
	if body != "" {
		send = []byte(body)
	}
	method := s.Method
	if method == "" {
		method = "POST"
	}
	code, _, rb, err := c.Do(method, path, headers, send)
	if err != nil {
		return err
	}
	if code/100 != 2 && code != 409 {
		return fmt.Errorf("setup %s %s: %d %s", method, path, code, rb)
	}
	return nil
}

// snapshot lists the watched collections: key -> object bytes.
func (c *client) snapshot(sc scenario, ns, prefix string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, w := range sc.Watch {
		path := expand(w.Path, ns, prefix)
		code, list, _, err := c.GetJSON(path)
		if err != nil {
			return nil, err
		}
		if code == 404 {
			continue
		}
		if code != 200 {
			return nil, fmt.Errorf("list %s: %d", path, code)
		}
		apiVersion, _ := list["apiVersion"].(string)
		kind := strings.TrimSuffix(list["kind"].(string), "List")
		items, _ := list["items"].([]any)
		cluster := !strings.Contains(path, "/namespaces/")
		for _, it := range items {
			obj := it.(map[string]any)
			md, _ := obj["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			if cluster {
				keep := strings.HasPrefix(name, prefix)
				for _, n := range w.Names {
					keep = keep || n == name
				}
				if !keep {
					continue
				}
			}
			if obj["apiVersion"] == nil {
				obj["apiVersion"] = apiVersion
			}
			if obj["kind"] == nil {
				obj["kind"] = kind
			}
			namespace, _ := md["namespace"].(string)
			k, _ := json.Marshal(objectKey{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name})
			// The list's item order of keys is lost by the map; the world is data, not bytes.
			b, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			out[string(k)] = b
		}
	}
	return out, nil
}

// settled lists until two consecutive snapshots agree.
func (c *client) settled(sc scenario, ns, prefix string) (map[string]json.RawMessage, error) {
	prev, err := c.snapshot(sc, ns, prefix)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 20; i++ {
		time.Sleep(150 * time.Millisecond)
		cur, err := c.snapshot(sc, ns, prefix)
		if err != nil {
			return nil, err
		}
		if same(prev, cur) {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

func same(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// cleanup deletes the scenario's namespace and cluster-scoped objects; wait says to wait until
// the namespace is gone.
func (c *client) cleanup(ns, prefix string, sc scenario, wait bool) error {
	h := map[string]string{"Accept": "application/json", "User-Agent": kubeclient.UserAgent}
	for _, w := range sc.Watch {
		if strings.Contains(w.Path, "/namespaces/") || strings.HasSuffix(w.Path, "/namespaces") ||
			strings.Contains(w.Path, "customresourcedefinitions") {
			continue
		}
		path := expand(w.Path, ns, prefix)
		code, list, _, err := c.GetJSON(path)
		if err != nil || code != 200 {
			continue
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			md, _ := it.(map[string]any)["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			if strings.HasPrefix(name, prefix) {
				// Finalizers would keep it: drop them first.
				_, _, _, _ = c.Do("PATCH", path+"/"+name, map[string]string{"Content-Type": "application/merge-patch+json", "User-Agent": kubeclient.UserAgent}, []byte(`{"metadata":{"finalizers":null}}`))
				_, _, _, _ = c.Do("DELETE", path+"/"+name, h, nil)
			}
		}
	}
	if sc.NoNamespace {
		// Namespaces named with the prefix.
		code, list, _, err := c.GetJSON("/api/v1/namespaces")
		if err == nil && code == 200 {
			items, _ := list["items"].([]any)
			for _, it := range items {
				md, _ := it.(map[string]any)["metadata"].(map[string]any)
				name, _ := md["name"].(string)
				if strings.HasPrefix(name, prefix) {
					_, _, _, _ = c.Do("DELETE", "/api/v1/namespaces/"+name, h, nil)
				}
			}
		}
	}
	// Objects with finalizers in the namespace would keep it Terminating: drop them.
	for _, w := range sc.Watch {
		if !strings.Contains(w.Path, "/namespaces/") {
			continue
		}
		path := expand(w.Path, ns, prefix)
		code, list, _, err := c.GetJSON(path)
		if err != nil || code != 200 {
			continue
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			md, _ := it.(map[string]any)["metadata"].(map[string]any)
			if f, _ := md["finalizers"].([]any); len(f) > 0 {
				name, _ := md["name"].(string)
				_, _, _, _ = c.Do("PATCH", path+"/"+name, map[string]string{"Content-Type": "application/merge-patch+json", "User-Agent": kubeclient.UserAgent}, []byte(`{"metadata":{"finalizers":null}}`))
			}
		}
	}
	_, _, _, _ = c.Do("DELETE", "/api/v1/namespaces/"+ns, h, nil)
	if !wait {
		return nil
	}
	for i := 0; i < 300; i++ {
		code, _, _, err := c.GetJSON("/api/v1/namespaces/" + ns)
		if err != nil {
			return err
		}
		gone := code == 404
		if sc.NoNamespace {
			_, list, _, _ := c.GetJSON("/api/v1/namespaces")
			items, _ := list["items"].([]any)
			for _, it := range items {
				md, _ := it.(map[string]any)["metadata"].(map[string]any)
				if name, _ := md["name"].(string); strings.HasPrefix(name, prefix) {
					gone = false
				}
			}
		}
		if gone {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("namespace %s not gone after 60s", ns)
}

// uids replaces ${uid:STEP} with the uid in the answer to the earlier request STEP (an owner
// reference, a precondition).
func uids(body string, uidOf map[string]string) (string, error) {
	for {
		i := strings.Index(body, "${uid:")
		if i < 0 {
			return body, nil
		}
		j := strings.Index(body[i:], "}")
		if j < 0 {
			return "", fmt.Errorf("unterminated ${uid: in %q", body)
		}
		step := body[i+len("${uid:") : i+j]
		uid, ok := uidOf[step]
		if !ok {
			return "", fmt.Errorf("no uid answered to step %q", step)
		}
		body = body[:i] + uid + body[i+j+1:]
	}
}
