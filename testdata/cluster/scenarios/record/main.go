// Command record runs the scenarios of testdata/cluster/scenarios/*.yaml against a real
// kube-apiserver with kube-controller-manager and writes what it answered to
// testdata/cluster/scenarios/recorded/<file>.json, which cluster's TestScenarioReplay replays
// against a fresh in-process cluster per scenario.
//
// Run from the repository root with the control plane of ../shared/tools/realcluster up:
//
//	go run ./testdata/cluster/scenarios/record [-kubeconfig FILE] [-kubectl BIN] [file[/scenario] ...]
//	go run ./testdata/cluster/scenarios/record -check   # parse and count, no cluster
//
// A scenario works in its own namespace (sc-<scenario>, created by its first, recorded step)
// and names its cluster-scoped objects sc-<scenario>-* (CRDs: <plural>.sc-<scenario>.example.com);
// those are deleted before it runs and after. Before each step that follows a write the
// recorder lists the scenario's settle collections until two lists agree (the controllers have
// settled). A step is one request (its status, Date, Warning headers and body recorded), a watch
// opened (its events recorded when a later step collects it, once the stream has been quiet for
// a second), a wait (the request polled until a condition holds; the last answer recorded), or a
// kubectl command run against a recording proxy (every request it sends but discovery and
// OpenAPI, with the answers, so that the replay needs no kubectl).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/internal/convhook"
	"github.com/writepath/writepath/testdata/internal/kubeclient"
)

// file is one scenarios/*.yaml.
type file struct {
	Description string `json:"description"`
	// Settle and Cleanup apply to every scenario of the file (see scenario).
	Settle    []string   `json:"settle"`
	Cleanup   []string   `json:"cleanup"`
	Scenarios []scenario `json:"scenarios"`
}

type scenario struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// NoNamespace: the scenario creates no namespace of its own.
	NoNamespace bool `json:"noNamespace"`
	// Settle are collections listed until two lists agree before a step that follows a write
	// (besides the namespace's Pods, ReplicaSets and Deployments).
	Settle []string `json:"settle"`
	// Cleanup are cluster-scoped collections whose objects named for the scenario are deleted
	// before and after it.
	Cleanup []string `json:"cleanup"`
	// ConversionWebhook runs a CRD conversion webhook (internal/convhook) for the scenario on
	// 127.0.0.1, where the apiserver on this machine reaches it: $WEBHOOK_URL and $WEBHOOK_CA in
	// the steps are its URL and caBundle.
	ConversionWebhook *convhook.Spec `json:"conversionWebhook"`
	Steps             []step         `json:"steps"`
}

type step struct {
	Name        string            `json:"name"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	ContentType string            `json:"contentType"`
	Headers     map[string]string `json:"headers"`
	// Body is sent as compact JSON, Raw as it is; $FILL in Raw stands for FillSize 'x' bytes.
	Body     any    `json:"body"`
	Raw      string `json:"raw"`
	FillSize int    `json:"fillSize"`
	// Watch opens a watch stream on Path under this name; Collect closes the named one and
	// records its events.
	Watch   string `json:"watch"`
	Collect string `json:"collect"`
	// Wait polls the request until the condition holds.
	Wait *wait `json:"wait"`
	// Kubectl runs kubectl with these arguments (and Stdin) through the recording proxy.
	Kubectl []string `json:"kubectl"`
	Stdin   string   `json:"stdin"`
	// SleepMs waits before the step.
	SleepMs int `json:"sleepMs"`
}

// wait is a condition on an answer: its status, a field's value (dotted path; a list element
// chosen by [key=value]), or the number of a list's items.
type wait struct {
	Status int    `json:"status"`
	Field  string `json:"field"`
	Equals any    `json:"equals"`
	// Present: the field exists (any value); without Equals or Present, it is absent.
	Present bool `json:"present"`
	// Warned: the answer carries a Warning header.
	Warned bool `json:"warned"`
	Items  *int `json:"items"`
}

// Recording files.

type recordedFile struct {
	Source    string             `json:"source"`
	Server    string             `json:"server"`
	Scenarios []recordedScenario `json:"scenarios"`
}

type recordedScenario struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Webhook is the conversion webhook the scenario ran, with the URL and caBundle it had.
	Webhook *recordedWebhook `json:"webhook,omitempty"`
	// ServiceCIDR is the server's default ServiceCIDR, for a scenario that names its
	// addresses (${svcip:N}).
	ServiceCIDR string         `json:"serviceCIDR,omitempty"`
	Steps       []recordedStep `json:"steps"`
}

type recordedWebhook struct {
	Spec     convhook.Spec `json:"spec"`
	URL      string        `json:"url"`
	CABundle string        `json:"caBundle"`
}

type recordedStep struct {
	Name string `json:"name"`
	// Kind is request, watch, collect, wait, kubectl, or unsent (a request referring to an
	// answer an earlier step did not give; Error says which).
	Kind  string `json:"kind"`
	Error string `json:"error,omitempty"`
	// Template is the request as the scenario wrote it (${...} references to earlier answers
	// unexpanded); Request is what was sent.
	Template *exchangeRequest `json:"template,omitempty"`
	Request  *exchangeRequest `json:"request,omitempty"`
	Response *response        `json:"response,omitempty"`
	// Collect names the watch collected; Events are its events.
	Collect string            `json:"collect,omitempty"`
	Events  []json.RawMessage `json:"events,omitempty"`
	Wait    *wait             `json:"wait,omitempty"`
	Polls   int               `json:"polls,omitempty"`
	// TimedOut: the condition never held within 45s.
	TimedOut bool `json:"timedOut,omitempty"`
	// Kubectl steps: the command, its output, and the requests it sent.
	Args      []string   `json:"args,omitempty"`
	Stdin     string     `json:"stdin,omitempty"`
	Stdout    string     `json:"stdout,omitempty"`
	Stderr    string     `json:"stderr,omitempty"`
	ExitCode  int        `json:"exitCode,omitempty"`
	Exchanges []exchange `json:"exchanges,omitempty"`
	Skipped   int        `json:"skippedDiscovery,omitempty"`
}

type exchangeRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	// BodyBase64 is a body that is not UTF-8 (kubectl's protobuf).
	BodyBase64 string `json:"bodyBase64,omitempty"`
	FillSize   int    `json:"fillSize,omitempty"`
}

type response struct {
	Status      int               `json:"status"`
	Sent        string            `json:"sent"`
	Date        string            `json:"date"`
	ContentType string            `json:"contentType"`
	Warnings    []string          `json:"warnings,omitempty"`
	Body        json.RawMessage   `json:"body,omitempty"`
	BodyText    string            `json:"bodyText,omitempty"`
	BodyBase64  string            `json:"bodyBase64,omitempty"`
	Events      []json.RawMessage `json:"events,omitempty"`
}

type exchange struct {
	Request  exchangeRequest `json:"request"`
	Response response        `json:"response"`
}

// client is the recorder's connection to the real server.
type client struct{ *kubeclient.Client }

// usesServiceIPs reports whether a scenario names addresses of the service network.
func usesServiceIPs(sc scenario) bool {
	b, _ := json.Marshal(sc.Steps)
	return strings.Contains(string(b), "${svcip:")
}

// serviceCIDR is the first CIDR of the server's "kubernetes" ServiceCIDR.
func (c *client) serviceCIDR() (netip.Prefix, error) {
	resp, obj, err := c.send(exchangeRequest{Method: "GET", Path: "/apis/networking.k8s.io/v1/servicecidrs/kubernetes"})
	if err != nil {
		return netip.Prefix{}, err
	}
	spec, _ := obj["spec"].(map[string]any)
	cidrs, _ := spec["cidrs"].([]any)
	if resp.Status != 200 || len(cidrs) == 0 {
		return netip.Prefix{}, fmt.Errorf("the kubernetes ServiceCIDR: %d", resp.Status)
	}
	c0, _ := cidrs[0].(string)
	return netip.ParsePrefix(c0)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "/tmp/realcluster/kubeconfig", "kubeconfig of the cluster to record")
	kubectl := flag.String("kubectl", filepath.Join(os.Getenv("HOME"), ".cache", "realcluster", "bin", "kubectl"), "kubectl binary")
	dir := flag.String("dir", "testdata/cluster/scenarios", "directory of the scenario files")
	check := flag.Bool("check", false, "only parse the scenario files and count scenarios and steps")
	flag.Parse()
	files, err := filepath.Glob(filepath.Join(*dir, "*.yaml"))
	if err != nil {
		fail(err)
	}
	only := map[string][]string{}
	for _, a := range flag.Args() {
		f, sc, _ := strings.Cut(a, "/")
		only[f] = append(only[f], sc)
	}
	var c *client
	if !*check {
		kc, err := kubeclient.New(*kubeconfig)
		if err != nil {
			fail(err)
		}
		c = &client{kc}
	}
	scenarios, steps := 0, 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		want, ok := only[name]
		if len(only) > 0 && !ok {
			continue
		}
		f, err := readFile(path)
		if err != nil {
			fail(err)
		}
		out := filepath.Join(*dir, "recorded", name+".json")
		rec := recordedFile{Source: name + ".yaml"}
		if old, err := os.ReadFile(out); err == nil {
			_ = json.Unmarshal(old, &rec)
		}
		byName := map[string]recordedScenario{}
		for _, s := range rec.Scenarios {
			byName[s.Name] = s
		}
		for _, sc := range f.Scenarios {
			n := 0
			for _, s := range sc.Steps {
				n++
				if s.Kubectl != nil {
					n-- // counted by its requests once recorded
				}
			}
			scenarios++
			steps += n
			if *check || (len(want) > 0 && want[0] != "" && !contains(want, sc.Name)) {
				continue
			}
			sc.Settle = append(append([]string{}, f.Settle...), sc.Settle...)
			sc.Cleanup = append(append([]string{}, f.Cleanup...), sc.Cleanup...)
			r, err := c.record(sc, *kubectl)
			if err != nil {
				fail(fmt.Errorf("%s/%s: %w", name, sc.Name, err))
			}
			byName[sc.Name] = r
		}
		if *check {
			continue
		}
		rec.Scenarios = nil
		for _, sc := range f.Scenarios {
			if r, ok := byName[sc.Name]; ok {
				rec.Scenarios = append(rec.Scenarios, r)
			}
		}
		if code, v, _, err := c.GetJSON("/version"); err == nil && code == 200 {
			rec.Server, _ = v["gitVersion"].(string)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rec); err != nil {
			fail(err)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			fail(err)
		}
	}
	fmt.Printf("%d scenarios, %d authored steps\n", scenarios, steps)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func readFile(path string) (file, error) {
	var f file
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, sc := range f.Scenarios {
		if seen[sc.Name] || len("sc-"+sc.Name) > 50 {
			return f, fmt.Errorf("%s: scenario name %q repeated or too long", path, sc.Name)
		}
		seen[sc.Name] = true
	}
	return f, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "record:", err)
	os.Exit(1)
}

// vars are a scenario's names and the earlier answers its templates refer to.
type vars struct {
	ns      string
	answers map[string]map[string]any
	// webhookURL and webhookCA are the scenario's conversion webhook's ($WEBHOOK_URL, $WEBHOOK_CA).
	webhookURL, webhookCA string
	// serviceCIDR is the server's default ServiceCIDR (${svcip:N}).
	serviceCIDR netip.Prefix
}

// expand replaces $NS and ${rv:STEP}, ${uid:STEP}, ${name:STEP}, ${continue:STEP} (that
// step's answer's metadata field), ${itemname:STEP} (the name of its first item),
// ${clusterip:STEP} (its spec.clusterIP) and ${svcip:N} (the N-th address of the server's
// default ServiceCIDR) in s.
func (v vars) expand(s string) (string, error) {
	s = strings.ReplaceAll(s, "$NS", v.ns)
	if v.webhookURL != "" {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "$WEBHOOK_URL", v.webhookURL), "$WEBHOOK_CA", v.webhookCA)
	}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return s, nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		field, stepName, ok := strings.Cut(s[i+2:i+j], ":")
		if field == "svcip" {
			// The N-th address of the service network.
			n, err := strconv.Atoi(stepName)
			if err != nil || !v.serviceCIDR.IsValid() {
				return "", fmt.Errorf("%q: no service network or no address number", s[i:i+j+1])
			}
			a := v.serviceCIDR.Masked().Addr()
			for ; n > 0; n-- {
				a = a.Next()
			}
			s = s[:i] + a.String() + s[i+j+1:]
			continue
		}
		ans, found := v.answers[stepName]
		if !ok || !found {
			return "", fmt.Errorf("%q: no answer of step %q", s[i:i+j+1], stepName)
		}
		md, _ := ans["metadata"].(map[string]any)
		if field == "itemname" {
			// The first item's name, of a list.
			items, _ := ans["items"].([]any)
			if len(items) > 0 {
				first, _ := items[0].(map[string]any)
				md, _ = first["metadata"].(map[string]any)
			}
			field = "name"
		}
		key := map[string]string{"rv": "resourceVersion", "uid": "uid", "name": "name", "continue": "continue", "clusterip": "clusterIP"}[field]
		val, _ := md[key].(string)
		if field == "clusterip" {
			spec, _ := ans["spec"].(map[string]any)
			val, _ = spec["clusterIP"].(string)
		}
		if key == "" || val == "" {
			return "", fmt.Errorf("%q: step %q answered no %s", s[i:i+j+1], stepName, field)
		}
		s = s[:i] + val + s[i+j+1:]
	}
}

// template is the step's request as written: method, path, headers and body (Raw or Body).
func (s step) template() exchangeRequest {
	method := s.Method
	if method == "" {
		method = "GET"
	}
	t := exchangeRequest{Method: method, Path: s.Path, FillSize: s.FillSize,
		Headers: map[string]string{"Accept": "application/json", "User-Agent": kubeclient.UserAgent}}
	switch {
	case s.Raw != "":
		t.Body = s.Raw
	case s.Body != nil:
		b, _ := json.Marshal(s.Body)
		t.Body = string(b)
	}
	ct := s.ContentType
	if ct == "" {
		ct = "application/json"
		if method == "PATCH" {
			ct = "application/merge-patch+json"
		}
	}
	if t.Body != "" || method == "POST" || method == "PUT" || method == "PATCH" {
		t.Headers["Content-Type"] = ct
	}
	for k, v := range s.Headers {
		if v == "" {
			delete(t.Headers, k)
		} else {
			t.Headers[k] = v
		}
	}
	return t
}

func (v vars) expandRequest(t exchangeRequest) (exchangeRequest, error) {
	out := t
	var err error
	if out.Path, err = v.expand(t.Path); err != nil {
		return out, err
	}
	if out.Body, err = v.expand(t.Body); err != nil {
		return out, err
	}
	out.Headers = map[string]string{}
	for k, h := range t.Headers {
		if out.Headers[k], err = v.expand(h); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (r exchangeRequest) bytes() []byte {
	if r.Body == "" {
		return nil
	}
	if r.FillSize > 0 {
		return []byte(strings.Replace(r.Body, "$FILL", strings.Repeat("x", r.FillSize), 1))
	}
	return []byte(r.Body)
}

// body fills a response's body fields: indented JSON when compacting it gives the bytes back,
// text when it is UTF-8, base64 otherwise.
func (r *response) body(b []byte) {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && json.Valid(t) {
		var ind bytes.Buffer
		if json.Indent(&ind, t, "", "  ") == nil {
			var back bytes.Buffer
			_ = json.Compact(&back, ind.Bytes())
			if bytes.Equal(back.Bytes(), t) {
				r.Body = ind.Bytes()
				return
			}
		}
	}
	if utf8.Valid(b) {
		r.BodyText = string(b)
		return
	}
	r.BodyBase64 = base64.StdEncoding.EncodeToString(b)
}

func header(resp *http.Response, sent time.Time) response {
	return response{Status: resp.StatusCode, Sent: sent.UTC().Format(time.RFC3339Nano), Date: resp.Header.Get("Date"),
		ContentType: resp.Header.Get("Content-Type"), Warnings: resp.Header.Values("Warning")}
}

// openWatch is a watch being read in the background.
type openWatch struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	events []json.RawMessage
	last   time.Time
	done   chan struct{}
}

func (w *openWatch) read(body io.ReadCloser) {
	defer close(w.done)
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var ev json.RawMessage
		if err := dec.Decode(&ev); err != nil {
			return
		}
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.last = time.Now()
		w.mu.Unlock()
	}
}

// collect waits until the stream has been quiet for a second (or ended), then closes it.
func (w *openWatch) collect() []json.RawMessage {
	start := time.Now()
	for {
		select {
		case <-w.done:
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.events
		case <-time.After(100 * time.Millisecond):
		}
		w.mu.Lock()
		last := w.last
		w.mu.Unlock()
		if last.Before(start) {
			last = start
		}
		if time.Since(last) > time.Second {
			w.cancel()
			<-w.done
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.events
		}
	}
}

func (c *client) record(sc scenario, kubectl string) (recordedScenario, error) {
	ns := "sc-" + sc.Name
	out := recordedScenario{Name: sc.Name, Namespace: ns}
	fmt.Printf("%s\n", sc.Name)
	if err := c.cleanup(ns, sc, true); err != nil {
		return out, err
	}
	v := vars{ns: ns, answers: map[string]map[string]any{}}
	if usesServiceIPs(sc) {
		p, err := c.serviceCIDR()
		if err != nil {
			return out, err
		}
		v.serviceCIDR, out.ServiceCIDR = p, p.String()
	}
	if sc.ConversionWebhook != nil {
		hook := convhook.Start(*sc.ConversionWebhook)
		// The webhook outlives the cleanup: the CRD's instances are deleted through it.
		defer hook.Close()
		defer func() { _ = c.cleanup(ns, sc, true) }()
		out.Webhook = &recordedWebhook{Spec: *sc.ConversionWebhook, URL: hook.URL, CABundle: hook.CABundle}
		v.webhookURL, v.webhookCA = hook.URL, hook.CABundle
	} else {
		defer func() { _ = c.cleanup(ns, sc, false) }()
	}
	steps := sc.Steps
	if !sc.NoNamespace {
		steps = append([]step{{Name: "namespace", Method: "POST", Path: "/api/v1/namespaces",
			Body: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}}, steps...)
	}
	watches := map[string]*openWatch{}
	defer func() {
		for _, w := range watches {
			w.cancel()
		}
	}()
	wrote := false
	for i, s := range steps {
		if s.SleepMs > 0 {
			time.Sleep(time.Duration(s.SleepMs) * time.Millisecond)
		}
		if wrote {
			if err := c.settle(sc, ns); err != nil {
				return out, err
			}
		}
		wrote = s.Kubectl != nil || s.Collect == "" && s.Watch == "" && s.Method != "" && s.Method != "GET"
		rs := recordedStep{Name: s.Name}
		switch {
		case s.Collect != "":
			w, ok := watches[s.Collect]
			if !ok {
				return out, fmt.Errorf("%s: no watch %q open", s.Name, s.Collect)
			}
			delete(watches, s.Collect)
			rs.Kind, rs.Collect, rs.Events = "collect", s.Collect, w.collect()
		case s.Kubectl != nil:
			rs.Kind = "kubectl"
			if err := c.kubectl(&rs, v, s, kubectl); err != nil {
				return out, fmt.Errorf("%s: %w", s.Name, err)
			}
		default:
			t := s.template()
			req, err := v.expandRequest(t)
			if err != nil {
				// An earlier step did not answer what this one refers to: recorded as not
				// sent; the replay must fail to form it too.
				rs.Kind, rs.Template, rs.Error = "unsent", &t, err.Error()
				fmt.Printf("  %-36s not sent: %v\n", s.Name, err)
				out.Steps = append(out.Steps, rs)
				continue
			}
			rs.Template, rs.Request = &t, &req
			switch {
			case s.Watch != "":
				rs.Kind = "watch"
				ctx, cancel := context.WithCancel(context.Background())
				hr, err := c.NewRequest(ctx, req.Method, req.Path, req.Headers, req.bytes())
				if err != nil {
					cancel()
					return out, err
				}
				sent := time.Now()
				resp, err := c.Stream.Do(hr)
				if err != nil {
					cancel()
					return out, fmt.Errorf("%s: %w", s.Name, err)
				}
				r := header(resp, sent)
				if resp.StatusCode != 200 {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					cancel()
					r.body(b)
				} else {
					w := &openWatch{cancel: cancel, done: make(chan struct{})}
					watches[s.Watch] = w
					go w.read(resp.Body)
				}
				rs.Response = &r
			case s.Wait != nil:
				rs.Kind, rs.Wait = "wait", s.Wait
				deadline := time.Now().Add(45 * time.Second)
				for {
					rs.Polls++
					r, obj, err := c.send(req)
					if err != nil {
						return out, fmt.Errorf("%s: %w", s.Name, err)
					}
					rs.Response = &r
					if s.Wait.holds(r.Status, obj) && (!s.Wait.Warned || len(r.Warnings) > 0) {
						if obj != nil {
							v.answers[s.Name] = obj
						}
						break
					}
					if time.Now().After(deadline) {
						// Recorded as it stands: the replay shows what differs.
						rs.TimedOut = true
						fmt.Printf("  %-36s condition never held (last %d)\n", s.Name, r.Status)
						break
					}
					time.Sleep(200 * time.Millisecond)
				}
			default:
				rs.Kind = "request"
				r, obj, err := c.send(req)
				if err != nil {
					return out, fmt.Errorf("%s: %w", s.Name, err)
				}
				if strings.Contains(req.Path, "watch=") && strings.Contains(r.ContentType, "json") && r.Status == 200 {
					// A watch that ended by itself (410, timeoutSeconds): its events.
					dec := json.NewDecoder(strings.NewReader(r.BodyText + string(r.Body)))
					for {
						var ev json.RawMessage
						if dec.Decode(&ev) != nil {
							break
						}
						r.Events = append(r.Events, ev)
					}
					if len(r.Events) > 0 {
						r.Body, r.BodyText = nil, ""
					}
				}
				rs.Response = &r
				if obj != nil {
					v.answers[s.Name] = obj
				}
			}
			if rs.Response != nil {
				fmt.Printf("  %-36s %s %s -> %d\n", s.Name, req.Method, req.Path, rs.Response.Status)
			}
		}
		if i == 0 && !sc.NoNamespace {
			// No service account controller runs in the recording control plane; writepath's
			// cluster runs one, which gives every namespace its "default" ServiceAccount.
			if err := c.ensureServiceAccount(ns); err != nil {
				return out, err
			}
		}
		out.Steps = append(out.Steps, rs)
	}
	for name := range watches {
		return out, fmt.Errorf("watch %q never collected", name)
	}
	return out, nil
}

func (c *client) send(req exchangeRequest) (response, map[string]any, error) {
	hr, err := c.NewRequest(context.Background(), req.Method, req.Path, req.Headers, req.bytes())
	if err != nil {
		return response{}, nil, err
	}
	sent := time.Now()
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		return response{}, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, nil, err
	}
	r := header(resp, sent)
	r.body(b)
	var obj map[string]any
	if json.Unmarshal(b, &obj) != nil {
		obj = nil
	}
	return r, obj, nil
}

func (w *wait) holds(code int, obj map[string]any) bool {
	if w.Status != 0 && code != w.Status {
		return false
	}
	if w.Status == 0 && code != 200 {
		return false
	}
	if w.Items != nil {
		items, _ := obj["items"].([]any)
		if len(items) != *w.Items {
			return false
		}
	}
	if w.Field != "" {
		got, ok := fieldValue(obj, w.Field)
		if w.Present {
			return ok
		}
		if w.Equals == nil {
			return !ok
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(w.Equals)
		return ok && bytes.Equal(a, b)
	}
	return true
}

// fieldValue reads a dotted path; a segment name[key=value] picks the list element whose key
// has that value.
func fieldValue(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, ".") {
		name, sel, _ := strings.Cut(seg, "[")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
		if sel != "" {
			k, want, isKey := strings.Cut(strings.TrimSuffix(sel, "]"), "=")
			l, _ := v.([]any)
			if !isKey {
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(l) {
					return nil, false
				}
				v = l[i]
				continue
			}
			found := false
			for _, e := range l {
				if em, ok := e.(map[string]any); ok && fmt.Sprint(em[k]) == want {
					v, found = em, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
	}
	return v, true
}

func (c *client) ensureServiceAccount(ns string) error {
	for i := 0; i < 5; i++ {
		if code, _, _, err := c.GetJSON("/api/v1/namespaces/" + ns + "/serviceaccounts/default"); err == nil && code == 200 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, _, b, err := c.Do("POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", map[string]string{"Content-Type": "application/json",
		"User-Agent": "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/serviceaccount-controller"},
		[]byte(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`))
	if err != nil || (code != 201 && code != 409) {
		return fmt.Errorf("create the default ServiceAccount: %d %s %v", code, b, err)
	}
	return nil
}

// settle lists the scenario's collections until two lists, 200ms apart, agree.
func (c *client) settle(sc scenario, ns string) error {
	paths := append([]string{"/api/v1/namespaces/$NS/pods", "/apis/apps/v1/namespaces/$NS/replicasets",
		"/apis/apps/v1/namespaces/$NS/deployments"}, sc.Settle...)
	snap := func() (string, error) {
		var b strings.Builder
		for _, p := range paths {
			code, _, body, err := c.GetJSON(strings.ReplaceAll(p, "$NS", ns))
			if err != nil {
				return "", err
			}
			var l struct {
				Items []struct {
					Metadata struct {
						Name, ResourceVersion string
					}
				}
			}
			_ = json.Unmarshal(body, &l)
			fmt.Fprintf(&b, "%s %d:", p, code)
			for _, it := range l.Items {
				fmt.Fprintf(&b, " %s@%s", it.Metadata.Name, it.Metadata.ResourceVersion)
			}
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	prev, err := snap()
	if err != nil {
		return err
	}
	for i := 0; i < 50; i++ {
		time.Sleep(200 * time.Millisecond)
		cur, err := snap()
		if err != nil {
			return err
		}
		if cur == prev {
			return nil
		}
		prev = cur
	}
	return nil
}

// cleanup deletes the scenario's namespace and its cluster-scoped objects; wait says to wait
// until they are gone.
func (c *client) cleanup(ns string, sc scenario, wait bool) error {
	h := map[string]string{"Accept": "application/json", "User-Agent": kubeclient.UserAgent}
	mp := map[string]string{"Content-Type": "application/merge-patch+json", "User-Agent": kubeclient.UserAgent}
	mine := func(name string) bool {
		return strings.HasPrefix(name, ns) || strings.Contains(name, "."+ns+".")
	}
	var pending []string
	for _, p := range append([]string{"/api/v1/namespaces", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"}, sc.Cleanup...) {
		code, list, _, err := c.GetJSON(p)
		if err != nil || code != 200 {
			continue
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			md, _ := it.(map[string]any)["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			if spec, _ := it.(map[string]any)["spec"].(map[string]any); strings.HasSuffix(p, "/ipaddresses") {
				// IPAddresses are named by their address: the scenario's point to its namespace.
				ref, _ := spec["parentRef"].(map[string]any)
				if ref["namespace"] != ns {
					continue
				}
			} else if !mine(name) {
				continue
			}
			if p == "/api/v1/namespaces" {
				// Objects with finalizers would keep a namespace Terminating.
				c.dropFinalizers(name)
			} else if f, _ := md["finalizers"].([]any); len(f) > 0 && !strings.Contains(p, "customresourcedefinitions") {
				_, _, _, _ = c.Do("PATCH", p+"/"+name, mp, []byte(`{"metadata":{"finalizers":null}}`))
			}
			_, _, _, _ = c.Do("DELETE", p+"/"+name, h, nil)
			pending = append(pending, p+"/"+name)
		}
	}
	if !wait {
		return nil
	}
	for _, p := range pending {
		gone := false
		for i := 0; i < 600 && !gone; i++ {
			code, _, _, err := c.GetJSON(p)
			if err != nil {
				return err
			}
			if gone = code == 404; !gone {
				if i%25 == 24 && strings.HasPrefix(p, "/api/v1/namespaces/") {
					c.dropFinalizers(strings.TrimPrefix(p, "/api/v1/namespaces/"))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		if !gone {
			return fmt.Errorf("%s not gone after 60s", p)
		}
	}
	return nil
}

// dropFinalizers removes the finalizers of the objects of the kinds the scenarios put
// finalizers on in namespace ns (ConfigMaps, Secrets, Deployments, ReplicaSets, Pods,
// Services, PersistentVolumeClaims, custom resources) and of the namespace's custom resources.
func (c *client) dropFinalizers(ns string) {
	mp := map[string]string{"Content-Type": "application/merge-patch+json", "User-Agent": kubeclient.UserAgent}
	paths := []string{"/api/v1/namespaces/" + ns + "/configmaps", "/api/v1/namespaces/" + ns + "/secrets",
		"/api/v1/namespaces/" + ns + "/pods", "/apis/apps/v1/namespaces/" + ns + "/deployments",
		"/apis/apps/v1/namespaces/" + ns + "/replicasets", "/api/v1/namespaces/" + ns + "/services",
		// kubernetes.io/pvc-protection: the recording control plane runs no pvc-protection controller.
		"/api/v1/namespaces/" + ns + "/persistentvolumeclaims"}
	if code, list, _, err := c.GetJSON("/apis/apiextensions.k8s.io/v1/customresourcedefinitions"); err == nil && code == 200 {
		items, _ := list["items"].([]any)
		for _, it := range items {
			crd, _ := it.(map[string]any)
			spec, _ := crd["spec"].(map[string]any)
			names, _ := spec["names"].(map[string]any)
			vs, _ := spec["versions"].([]any)
			if spec["scope"] != "Namespaced" || len(vs) == 0 {
				continue
			}
			v, _ := vs[0].(map[string]any)
			paths = append(paths, fmt.Sprintf("/apis/%s/%s/namespaces/%s/%s", spec["group"], v["name"], ns, names["plural"]))
		}
	}
	for _, p := range paths {
		code, list, _, err := c.GetJSON(p)
		if err != nil || code != 200 {
			continue
		}
		items, _ := list["items"].([]any)
		for _, it := range items {
			md, _ := it.(map[string]any)["metadata"].(map[string]any)
			if f, _ := md["finalizers"].([]any); len(f) > 0 {
				_, _, _, _ = c.Do("PATCH", p+"/"+md["name"].(string), mp, []byte(`{"metadata":{"finalizers":null}}`))
			}
		}
	}
}

// The kubectl proxy.

// proxy forwards kubectl's requests to the cluster and records them with their answers.
type proxy struct {
	c         *client
	mu        sync.Mutex
	exchanges []*exchange
	skipped   int
}

// discovery reports whether path is a discovery, OpenAPI or version request, which the
// recording leaves out (testdata/cluster/openapi and discovery compare those).
func discovery(path string) bool {
	p, _, _ := strings.Cut(path, "?")
	segs := strings.Split(strings.Trim(p, "/"), "/")
	switch segs[0] {
	case "api":
		return len(segs) <= 2
	case "apis":
		return len(segs) <= 3
	case "openapi", "version":
		return true
	}
	return false
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	headers := map[string]string{}
	for k, v := range r.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Authorization", "Accept-Encoding", "Connection", "Content-Length", "Kubectl-Session":
			continue
		}
		headers[k] = strings.Join(v, ", ")
	}
	ex := &exchange{Request: exchangeRequest{Method: r.Method, Path: r.URL.RequestURI(), Headers: headers}}
	if utf8.Valid(body) {
		ex.Request.Body = string(body)
	} else {
		ex.Request.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	if discovery(ex.Request.Path) {
		p.mu.Lock()
		p.skipped++
		p.mu.Unlock()
		ex = nil
	} else {
		p.mu.Lock()
		p.exchanges = append(p.exchanges, ex)
		p.mu.Unlock()
	}
	var send []byte
	if len(body) > 0 {
		send = body
	}
	up, err := p.c.NewRequest(r.Context(), r.Method, r.URL.RequestURI(), headers, send)
	if err != nil {
		http.Error(w, err.Error(), 502)
		return
	}
	sent := time.Now()
	resp, err := p.c.Stream.Do(up)
	if err != nil {
		http.Error(w, err.Error(), 502)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		if k == "Content-Length" || k == "Content-Encoding" {
			continue
		}
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	var rec response
	if ex != nil {
		rec = header(resp, sent)
	}
	if strings.Contains(resp.Header.Get("Content-Type"), "watch") || r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
		flusher, _ := w.(http.Flusher)
		br := bufio.NewReader(resp.Body)
		var all []byte
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				_, _ = w.Write(line)
				if flusher != nil {
					flusher.Flush()
				}
				all = append(all, line...)
			}
			if err != nil {
				break
			}
		}
		if ex != nil {
			dec := json.NewDecoder(bytes.NewReader(all))
			for {
				var ev json.RawMessage
				if dec.Decode(&ev) != nil {
					break
				}
				rec.Events = append(rec.Events, ev)
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		_, _ = w.Write(b)
		if ex != nil {
			rec.body(b)
		}
	}
	if ex != nil {
		p.mu.Lock()
		ex.Response = rec
		p.mu.Unlock()
	}
}

func (c *client) kubectl(rs *recordedStep, v vars, s step, bin string) error {
	args := make([]string, len(s.Kubectl))
	for i, a := range s.Kubectl {
		var err error
		if args[i], err = v.expand(a); err != nil {
			return err
		}
	}
	stdin, err := v.expand(s.Stdin)
	if err != nil {
		return err
	}
	p := &proxy{c: c}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	tmp, err := os.MkdirTemp("", "record-kubectl")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kc := filepath.Join(tmp, "kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster: {server: "http://%s"}
users:
- name: admin
  user: {token: %s}
contexts:
- name: proxy
  context: {cluster: proxy, user: admin, namespace: %s}
current-context: proxy
`, ln.Addr(), c.Token, v.ns)), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kc, "--cache-dir", filepath.Join(tmp, "cache")}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		rs.ExitCode = ee.ExitCode()
	} else if err != nil {
		return err
	}
	rs.Args, rs.Stdin, rs.Stdout, rs.Stderr = args, stdin, stdout.String(), stderr.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ex := range p.exchanges {
		rs.Exchanges = append(rs.Exchanges, *ex)
		fmt.Printf("  %-36s %s %s -> %d (kubectl)\n", s.Name, ex.Request.Method, ex.Request.Path, ex.Response.Status)
	}
	rs.Skipped = p.skipped
	return nil
}
