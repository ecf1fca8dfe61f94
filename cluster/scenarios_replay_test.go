package cluster_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
	"github.com/writepath/writepath/internal/convhook"
	"github.com/writepath/writepath/internal/replaydiff"
	"github.com/writepath/writepath/registry"
)

// The scenario corpus (testdata/cluster/scenarios, see its README): sequences of requests,
// watches, waits for the controllers and kubectl commands recorded against kube-apiserver and
// kube-controller-manager 1.37, replayed over HTTPS against a fresh in-process cluster per
// scenario whose state evolves by the replay alone. Each answer is compared with the recorded
// one after mapping what the two servers draw differently (uids, generated names, allocated
// cluster IPs: learnt from the answers, position by position, and
// substituted in later requests; resourceVersions: mapped one to one and in order) and
// normalising times. Disagreements are listed in testdata/cluster/scenarios/replay.golden with
// the first difference; UPDATE_GOLDEN=1 rewrites it.

type scenarioFile struct {
	Source    string             `json:"source"`
	Scenarios []scenarioRecorded `json:"scenarios"`
}

type scenarioRecorded struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Webhook is the conversion webhook the recorder ran (internal/convhook): the replay runs
	// one of the same spec and maps the recorded URL and caBundle to its own.
	Webhook *struct {
		Spec     convhook.Spec `json:"spec"`
		URL      string        `json:"url"`
		CABundle string        `json:"caBundle"`
	} `json:"webhook"`
	// ServiceCIDR is the recorded server's default ServiceCIDR (${svcip:N}).
	ServiceCIDR string         `json:"serviceCIDR"`
	Steps       []scenarioStep `json:"steps"`
}

type scenarioStep struct {
	Name      string             `json:"name"`
	Kind      string             `json:"kind"`
	Error     string             `json:"error"`
	Template  *scenarioRequest   `json:"template"`
	Request   *scenarioRequest   `json:"request"`
	Response  *scenarioResponse  `json:"response"`
	Collect   string             `json:"collect"`
	Events    []json.RawMessage  `json:"events"`
	Exchanges []scenarioExchange `json:"exchanges"`
	Wait      *json.RawMessage   `json:"wait"`
	Args      []string           `json:"args"`
}

type scenarioRequest struct {
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	BodyBase64 string            `json:"bodyBase64"`
	FillSize   int               `json:"fillSize"`
}

type scenarioResponse struct {
	Status      int               `json:"status"`
	Sent        string            `json:"sent"`
	Date        string            `json:"date"`
	ContentType string            `json:"contentType"`
	Warnings    []string          `json:"warnings"`
	Body        json.RawMessage   `json:"body"`
	BodyText    string            `json:"bodyText"`
	BodyBase64  string            `json:"bodyBase64"`
	Events      []json.RawMessage `json:"events"`
}

type scenarioExchange struct {
	Request  scenarioRequest  `json:"request"`
	Response scenarioResponse `json:"response"`
}

const scenariosDir = "../testdata/cluster/scenarios"

func TestScenarioReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenariosDir, "recorded", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var lines []string
	total, agree, scenarios, whole := 0, 0, 0, 0
	// SCENARIO=area[/scenario] replays only those, logs the differences and leaves the golden.
	only := os.Getenv("SCENARIO")
	for _, f := range files {
		var sf scenarioFile
		readJSONInto(t, f, &sf)
		area := strings.TrimSuffix(sf.Source, ".yaml")
		for _, sc := range sf.Scenarios {
			if only != "" && !strings.HasPrefix(area+"/"+sc.Name, only) {
				continue
			}
			scenarios++
			r := newScenarioReplay(t, sc)
			diffs := r.run()
			r.close()
			total += r.requests
			agree += r.requests - len(diffs)
			if len(diffs) == 0 {
				whole++
			}
			for _, d := range diffs {
				lines = append(lines, area+"/"+sc.Name+"/"+d)
			}
		}
	}
	t.Logf("scenario replay: %d/%d requests agree; %d/%d scenarios agree in every request", agree, total, whole, scenarios)
	got := fmt.Sprintf("# %d/%d recorded requests agree; %d/%d scenarios agree in every request. The others, with the first difference:\n%s",
		agree, total, whole, scenarios, strings.Join(lines, "\n"))
	if len(lines) > 0 {
		got += "\n"
	}
	if only != "" {
		t.Log(got)
		return
	}
	golden := filepath.Join(scenariosDir, "replay.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "UPDATE_GOLDEN=1 go test ./cluster -run TestScenarioReplay writes it")
	assert.Equal(t, string(want), got, "the scenario replay changed: review, then UPDATE_GOLDEN=1 go test ./cluster -run TestScenarioReplay")
}

// scenarioReplay is one scenario being replayed: its cluster, and what the two servers'
// answers have shown so far.
type scenarioReplay struct {
	t     *testing.T
	sc    scenarioRecorded
	c     *cluster.Cluster
	srv   *cluster.Server
	clock *cluster.FakeClock
	http  *http.Client
	// answers are the replay's decoded answers by step, for the templates.
	answers map[string]map[string]any
	// sub maps recorded strings to the replay's (uids, generated names, hashes), replaced
	// inside strings; whole maps whole string values (cluster IPs).
	sub, whole map[string]string
	// rv maps recorded object resourceVersions to the replay's; rvBack the other way.
	rv, rvBack map[string]string
	// batch numbers the recorded and replayed resourceVersions of objects written concurrently
	// in the recorded cluster (batchOf), within which pairs may be exchanged (pairRV).
	batch, batchBack map[string]int
	batches          int
	watches          map[string]*replayWatch
	requests         int
	// hook is the scenario's conversion webhook, if it has one.
	hook *convhook.Server
}

func newScenarioReplay(t *testing.T, sc scenarioRecorded) *scenarioReplay {
	start := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	for _, s := range sc.Steps {
		if at, ok := s.sent(); ok {
			start = at
			break
		}
	}
	clock := cluster.NewFakeClock(start.Truncate(time.Second))
	// The recording control plane's one token (../shared/tools/realcluster/up.sh), which
	// TokenReviews name, beside the token StartTLS's clients send.
	// The recording kube-controller-manager runs no resource quota controller
	// (REALCLUSTER_CONTROLLERS: garbagecollector,namespace,deployment,replicaset).
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending, NoResourceQuotaController: true,
		Tokens: map[string]registry.User{"admintoken": cluster.Admin, "admin-token": cluster.Admin}})
	require.NoError(t, err)
	require.NoError(t, c.Bootstrap(context.Background()))
	srv := cluster.StartTLS(c)
	r := &scenarioReplay{t: t, sc: sc, c: c, srv: srv, clock: clock,
		http:    &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}, // the test server's own certificate
		answers: map[string]map[string]any{}, sub: map[string]string{}, whole: map[string]string{},
		rv: map[string]string{}, rvBack: map[string]string{}, batch: map[string]int{}, batchBack: map[string]int{},
		watches: map[string]*replayWatch{}}
	if sc.Webhook != nil {
		r.hook = convhook.Start(sc.Webhook.Spec)
		r.sub[sc.Webhook.URL] = r.hook.URL
		r.sub[sc.Webhook.CABundle] = r.hook.CABundle
	}
	return r
}

func (r *scenarioReplay) close() {
	if r.hook != nil {
		defer r.hook.Close()
	}
	for _, w := range r.watches {
		w.cancel()
	}
	r.srv.Close()
}

// sent is when the recorder sent the step's (first) request.
func (s scenarioStep) sent() (time.Time, bool) {
	var raw string
	switch {
	case s.Response != nil:
		raw = s.Response.Sent
	case len(s.Exchanges) > 0:
		raw = s.Exchanges[0].Response.Sent
	}
	at, err := time.Parse(time.RFC3339Nano, raw)
	return at.UTC(), err == nil
}

// atStep sets the clock where the real server stood when it answered resp: for a write, the
// newest time it wrote into the object (a managedFields time, else the creationTimestamp);
// else when the recorder sent the request.
func (r *scenarioReplay) atStep(method string, resp scenarioResponse) {
	if method != "GET" && resp.Status < 300 && resp.Body != nil {
		var o struct {
			Metadata struct {
				CreationTimestamp string `json:"creationTimestamp"`
				ManagedFields     []struct {
					Time string `json:"time"`
				} `json:"managedFields"`
			} `json:"metadata"`
		}
		if json.Unmarshal(resp.Body, &o) == nil {
			newest := o.Metadata.CreationTimestamp
			for _, mf := range o.Metadata.ManagedFields {
				if mf.Time > newest {
					newest = mf.Time
				}
			}
			if newest != "" {
				r.at(newest)
				return
			}
		}
	}
	r.at(resp.Sent)
}

func (r *scenarioReplay) at(raw string) {
	if at, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		if at = at.UTC().Truncate(time.Second); at.After(r.clock.Now()) {
			r.clock.Step(at.Sub(r.clock.Now()))
		}
	}
}

// run replays every step and returns the differences, "STEP: first difference".
func (r *scenarioReplay) run() []string {
	var diffs []string
	note := func(name, d string) {
		r.requests++
		if d != "" {
			diffs = append(diffs, name+": "+d)
		}
	}
	for _, s := range r.sc.Steps {
		if s.Kind != "collect" && s.Kind != "unsent" {
			// The recorder waited for kube-controller-manager to settle; the replay runs the
			// cluster's controllers to their fixpoint.
			require.NoError(r.t, r.c.Settle(context.Background()))
		}
		switch s.Kind {
		case "request", "wait":
			r.atStep(s.Template.Method, *s.Response)
			req, err := r.expand(*s.Template)
			if err != nil {
				note(s.Name, err.Error())
				continue
			}
			got := r.send(req)
			note(s.Name, r.compare(*s.Response, got))
			if obj, ok := got.object(); ok {
				r.answers[s.Name] = obj
			}
		case "watch":
			r.at(s.Response.Sent)
			req, err := r.expand(*s.Template)
			if err != nil {
				note(s.Name, err.Error())
				continue
			}
			w, got := r.openWatch(req)
			if w != nil {
				r.watches[s.Name] = w
			}
			note(s.Name, r.compare(*s.Response, got))
		case "collect":
			w := r.watches[s.Collect]
			if w == nil {
				note(s.Name, "no watch "+s.Collect+" open")
				continue
			}
			delete(r.watches, s.Collect)
			note(s.Name, r.compareEvents(s.Events, w.collect(len(periodic(s.Events)))))
		case "kubectl":
			for i, ex := range s.Exchanges {
				r.atStep(ex.Request.Method, ex.Response)
				req := r.substitute(ex.Request)
				var got replayResponse
				if isWatch(req.Path) {
					w, resp := r.openWatch(req)
					got = resp
					if w != nil {
						got.events = w.collect(len(periodic(ex.Response.Events)))
					}
				} else {
					got = r.send(req)
				}
				note(fmt.Sprintf("%s[%d] %s %s", s.Name, i, ex.Request.Method, pathOnly(ex.Request.Path)), r.compare(ex.Response, got))
			}
		case "unsent":
			// The recorder could not form the request (an earlier answer lacked what it
			// refers to): neither can the replay, or it differs.
			if _, err := r.expand(*s.Template); err == nil {
				note(s.Name, "the replay formed a request the recorder could not: "+s.Error)
			} else {
				note(s.Name, "")
			}
		default:
			note(s.Name, "unknown step kind "+s.Kind)
		}
	}
	return diffs
}

func pathOnly(p string) string {
	q, _, _ := strings.Cut(p, "?")
	return q
}

func isWatch(path string) bool {
	_, q, _ := strings.Cut(path, "?")
	for _, kv := range strings.Split(q, "&") {
		if kv == "watch=true" || kv == "watch=1" {
			return true
		}
	}
	return false
}

// ipInText is an IPv4 address inside a text.
var ipInText = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)

var templateRef = regexp.MustCompile(`\$\{(rv|uid|name|continue|itemname|clusterip|svcip):([^}]+)\}`)

// serviceIP is the n-th address of prefix p.
func serviceIP(p netip.Prefix, n int) netip.Addr {
	a := p.Masked().Addr()
	for ; n > 0; n-- {
		a = a.Next()
	}
	return a
}

// expand fills a template with the scenario's namespace and the replay's own earlier answers.
func (r *scenarioReplay) expand(t scenarioRequest) (scenarioRequest, error) {
	var err error
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "$NS", r.sc.Namespace)
		if r.hook != nil {
			s = strings.ReplaceAll(strings.ReplaceAll(s, "$WEBHOOK_URL", r.hook.URL), "$WEBHOOK_CA", r.hook.CABundle)
		}
		return templateRef.ReplaceAllStringFunc(s, func(m string) string {
			sm := templateRef.FindStringSubmatch(m)
			if sm[1] == "svcip" {
				// The n-th address of the service network: the recorded server's and this
				// cluster's are paired as allocated cluster IPs are.
				n, nerr := strconv.Atoi(sm[2])
				rec, perr := netip.ParsePrefix(r.sc.ServiceCIDR)
				if nerr != nil || perr != nil {
					if err == nil {
						err = fmt.Errorf("%s: no address number or no recorded serviceCIDR", m)
					}
					return m
				}
				ip := serviceIP(registry.DefaultServiceNetwork().ClusterIPRange, n).String()
				r.whole[serviceIP(rec, n).String()] = ip
				return ip
			}
			if sm[1] == "clusterip" {
				spec, _ := r.answers[sm[2]]["spec"].(map[string]any)
				v, _ := spec["clusterIP"].(string)
				if v == "" && err == nil {
					err = fmt.Errorf("%s: the replay's answer to %s has no spec.clusterIP", m, sm[2])
				}
				return v
			}
			key := map[string]string{"rv": "resourceVersion", "uid": "uid", "name": "name", "continue": "continue", "itemname": "name"}[sm[1]]
			md, _ := r.answers[sm[2]]["metadata"].(map[string]any)
			if sm[1] == "itemname" {
				items, _ := r.answers[sm[2]]["items"].([]any)
				if len(items) > 0 {
					first, _ := items[0].(map[string]any)
					md, _ = first["metadata"].(map[string]any)
				}
			}
			v, _ := md[key].(string)
			if v == "" && err == nil {
				err = fmt.Errorf("%s: the replay's answer to %s has no %s", m, sm[2], key)
			}
			return v
		})
	}
	out := t
	out.Path, out.Body = fill(t.Path), fill(t.Body)
	out.Headers = map[string]string{}
	for k, v := range t.Headers {
		out.Headers[k] = fill(v)
	}
	return out, err
}

var (
	rvQuery = regexp.MustCompile(`([?&]resourceVersion=)(\d+)`)
	rvBody  = regexp.MustCompile(`("resourceVersion":\s*")(\d+)(")`)
)

// substitute turns a recorded request (kubectl's) into the one to send here: recorded uids,
// generated names and resourceVersions replaced by the replay's.
func (r *scenarioReplay) substitute(req scenarioRequest) scenarioRequest {
	out := req
	out.Path = r.replaceSub(req.Path)
	out.Path = rvQuery.ReplaceAllStringFunc(out.Path, func(m string) string {
		sm := rvQuery.FindStringSubmatch(m)
		if v, ok := r.rv[sm[2]]; ok {
			return sm[1] + v
		}
		return m
	})
	out.Body = r.replaceSub(req.Body)
	out.Body = rvBody.ReplaceAllStringFunc(out.Body, func(m string) string {
		sm := rvBody.FindStringSubmatch(m)
		if v, ok := r.rv[sm[2]]; ok {
			return sm[1] + v + sm[3]
		}
		return m
	})
	return out
}

func (r *scenarioReplay) replaceSub(s string) string {
	if len(r.sub) == 0 || s == "" {
		return s
	}
	keys := make([]string, 0, len(r.sub))
	for k := range r.sub {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return len(keys[i]) > len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
	})
	for _, k := range keys {
		if k != r.sub[k] {
			s = strings.ReplaceAll(s, k, r.sub[k])
		}
	}
	return s
}

// replayResponse is an answer of the replayed cluster.
type replayResponse struct {
	status      int
	contentType string
	warnings    []string
	body        []byte
	events      []json.RawMessage
	err         error
}

func (g replayResponse) object() (map[string]any, bool) {
	o, err := codec.DecodeObject(g.body)
	return o, err == nil
}

func (r *scenarioReplay) newRequest(ctx context.Context, req scenarioRequest) (*http.Request, error) {
	body := req.Body
	if req.FillSize > 0 {
		body = strings.Replace(body, "$FILL", strings.Repeat("x", req.FillSize), 1)
	}
	if req.BodyBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(req.BodyBase64)
		if err != nil {
			return nil, err
		}
		body = r.replaceSub(string(b))
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, r.srv.URL+req.Path, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Authorization", "Bearer "+r.srv.Token)
	return hr, nil
}

func (r *scenarioReplay) send(req scenarioRequest) replayResponse {
	ctx := context.Background()
	if isWatch(req.Path) {
		// A watch the recorded server ended by itself (410 Gone, timeoutSeconds): one that
		// does not end here is read for the timeout and a few seconds more.
		wait := 3 * time.Second
		if u, err := url.Parse(req.Path); err == nil {
			if n, err := strconv.Atoi(u.Query().Get("timeoutSeconds")); err == nil && n > 0 {
				wait += time.Duration(n) * time.Second
			}
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	hr, err := r.newRequest(ctx, req)
	if err != nil {
		return replayResponse{err: err}
	}
	resp, err := r.http.Do(hr)
	if err != nil {
		return replayResponse{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	out := replayResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), warnings: resp.Header.Values("Warning"), body: b, err: err}
	if isWatch(req.Path) && resp.StatusCode == 200 {
		out.events = splitEvents(b)
		out.body, out.err = nil, nil
	}
	return out
}

func splitEvents(b []byte) []json.RawMessage {
	var out []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var ev json.RawMessage
		if dec.Decode(&ev) != nil {
			return out
		}
		out = append(out, ev)
	}
}

// replayWatch is a watch stream of the replayed cluster read in the background.
type replayWatch struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	events []json.RawMessage
	more   chan struct{}
	done   chan struct{}
}

func (r *scenarioReplay) openWatch(req scenarioRequest) (*replayWatch, replayResponse) {
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := r.newRequest(ctx, req)
	if err != nil {
		cancel()
		return nil, replayResponse{err: err}
	}
	resp, err := r.http.Do(hr)
	if err != nil {
		cancel()
		return nil, replayResponse{err: err}
	}
	got := replayResponse{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), warnings: resp.Header.Values("Warning")}
	if resp.StatusCode != 200 {
		got.body, got.err = io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, got
	}
	w := &replayWatch{cancel: cancel, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev json.RawMessage
			if dec.Decode(&ev) != nil {
				return
			}
			w.mu.Lock()
			w.events = append(w.events, ev)
			w.mu.Unlock()
			select {
			case w.more <- struct{}{}:
			default:
			}
		}
	}()
	return w, got
}

// collect reads until the stream has as many events (periodic bookmarks aside) as the
// recording, or ended, or stayed silent for 5s; then a moment more for events past the
// recorded ones, and closes it.
func (w *replayWatch) collect(want int) []json.RawMessage {
	count := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(periodic(w.events))
	}
	deadline := time.After(5 * time.Second)
	ended := false
wait:
	for count() < want {
		select {
		case <-w.done:
			ended = true
			break wait
		case <-w.more:
		case <-deadline:
			break wait
		}
	}
	if !ended {
		select {
		case <-w.done:
		case <-time.After(100 * time.Millisecond):
		}
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events
}

// periodic drops the BOOKMARKs a watch cache sends when it chooses (every minute or so with
// allowWatchBookmarks), keeping the one that ends a WatchList's initial events.
func periodic(events []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, ev := range events {
		var e struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if json.Unmarshal(ev, &e) == nil && e.Type == "BOOKMARK" && e.Object.Metadata.Annotations["k8s.io/initial-events-end"] != "true" {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// compare returns the first difference between a recorded answer and the replay's, or "".
func (r *scenarioReplay) compare(want scenarioResponse, got replayResponse) string {
	if got.err != nil {
		return "request failed: " + got.err.Error()
	}
	if want.Status != got.status {
		return fmt.Sprintf("status %d, want %d: %s", got.status, want.Status, shortText(got.body))
	}
	ww := make([]string, len(want.Warnings))
	for i, w := range want.Warnings {
		ww[i] = r.replaceSub(w)
	}
	if !reflect.DeepEqual(nonEmpty(ww), nonEmpty(got.warnings)) {
		return fmt.Sprintf("warnings %q, want %q", got.warnings, ww)
	}
	wantMT, _, _ := mime.ParseMediaType(want.ContentType)
	gotMT, _, _ := mime.ParseMediaType(got.contentType)
	if wantMT != gotMT && !(want.ContentType == "" && len(got.body) == 0) {
		return fmt.Sprintf("content type %q, want %q", got.contentType, want.ContentType)
	}
	if want.Events != nil || got.events != nil {
		return r.compareEvents(want.Events, got.events)
	}
	wantRaw := []byte(want.BodyText)
	if want.Body != nil {
		wantRaw = want.Body
	}
	if want.BodyBase64 != "" {
		wantRaw, _ = base64.StdEncoding.DecodeString(want.BodyBase64)
	}
	wantV, okW := decodeScenarioBody(wantMT, wantRaw)
	gotV, okG := decodeScenarioBody(gotMT, got.body)
	if !okW || !okG {
		if r.replaceSub(string(bytes.TrimSpace(wantRaw))) != string(bytes.TrimSpace(got.body)) {
			return fmt.Sprintf("body %q, want %q", shortText(got.body), shortText(wantRaw))
		}
		return ""
	}
	return r.compareValues(wantV, gotV)
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func shortText(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

func decodeScenarioBody(mediaType string, raw []byte) (any, bool) {
	if mediaType == protobufMedia {
		o, err := protobuf.Decode(raw)
		return o, err == nil
	}
	v, err := codec.DecodeValue(raw)
	return v, err == nil
}

// compareValues learns the pairs the two answers show, maps the recorded one onto the replay's
// and compares them.
func (r *scenarioReplay) compareValues(want, got any) string {
	if d := r.learn(want, got, "", false); d != "" {
		return d
	}
	w, g := replaydiff.ManagedFieldsByKey(r.mapRecorded(want), got)
	w, g = normaliseScenario(w, ""), normaliseScenario(g, "")
	if st, ok := w.(map[string]any); ok && stringField(st, "kind") == "Status" && statusCausesRandom(st) {
		if gs, ok := g.(map[string]any); ok && sameCausesAnyOrder(st, gs) {
			return ""
		}
	}
	return valueDiff("", w, g)
}

func (r *scenarioReplay) compareEvents(want, got []json.RawMessage) string {
	want, got = periodic(want), periodic(got)
	n := len(want)
	if len(got) < n {
		n = len(got)
	}
	for i := 0; i < n; i++ {
		wv, err1 := codec.DecodeValue(want[i])
		gv, err2 := codec.DecodeValue(got[i])
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("event %d does not decode", i)
		}
		if d := r.compareValues(wv, gv); d != "" {
			return fmt.Sprintf("event %d: %s", i, d)
		}
	}
	if len(want) != len(got) {
		var types []string
		for _, e := range got {
			var ev struct{ Type string }
			_ = json.Unmarshal(e, &ev)
			types = append(types, ev.Type)
		}
		var wtypes []string
		for _, e := range want {
			var ev struct{ Type string }
			_ = json.Unmarshal(e, &ev)
			wtypes = append(wtypes, ev.Type)
		}
		return fmt.Sprintf("%d events %v, want %d %v", len(got), types, len(want), wtypes)
	}
	return ""
}

// learn walks the two answers in parallel and records the pairs of drawn values: uids,
// generated names, cluster IPs, resourceVersions. An object
// resourceVersion already paired otherwise, or out of order with the pairs known, is a
// difference.
func (r *scenarioReplay) learn(want, got any, key string, inMeta bool) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return ""
		}
		isList := w["items"] != nil || w["rows"] != nil || strings.HasSuffix(stringField(w, "kind"), "List")
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				continue
			}
			ws, wIsString := wv.(string)
			gs, _ := gv.(string)
			switch {
			case wIsString && k == "uid" && ws != "" && gs != "":
				r.sub[ws] = gs
			case wIsString && inMeta && k == "name" && w["generateName"] != nil && ws != "" && gs != "":
				r.sub[ws] = gs
			case wIsString && k == "name" && strings.HasPrefix(ws, "kube-api-access-") && strings.HasPrefix(gs, "kube-api-access-"):
				// The ServiceAccount admission plugin's token volume, named with a random suffix.
				r.sub[ws] = gs
			case wIsString && (k == "clusterIP" || k == "ip") && ws != "" && gs != "":
				r.whole[ws] = gs
			case k == "clusterIPs":
				wl, _ := wv.([]any)
				gl, _ := gv.([]any)
				for i := range wl {
					if i < len(gl) {
						if a, ok := wl[i].(string); ok {
							if b, ok := gl[i].(string); ok {
								r.whole[a] = b
							}
						}
					}
				}
			case wIsString && k == "continue" && ws != "" && gs != "":
				r.sub[ws] = gs
			case wIsString && k == "resourceVersion" && inMeta && ws != "" && gs != "":
				if isList || key == "listMeta" {
					if _, ok := r.rv[ws]; !ok {
						r.rv[ws] = gs
					}
					continue
				}
				if d := r.pairRV(ws, gs); d != "" {
					return d
				}
			default:
				childKey := k
				if k == "metadata" && isList {
					childKey = "listMeta"
				}
				if d := r.learn(wv, gv, childKey, k == "metadata"); d != "" {
					return d
				}
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return ""
		}
		for i, j := range r.pairItems(w, g, key) {
			if j >= 0 {
				if d := r.learn(w[i], g[j], key, false); d != "" {
					return d
				}
			}
		}
	}
	return ""
}

// itemMeta is the metadata of a list item or a Table row's object.
func itemMeta(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	if o, ok := m["object"].(map[string]any); ok {
		m = o
	}
	md, ok := m["metadata"].(map[string]any)
	return md, ok && md["name"] != nil
}

// pairItems pairs the items of a recorded list (or Table rows) with the replay's: by name once
// the recorded name maps to one the replay answered, then by generateName, then in order. Other
// arrays pair by index. pairs[i] is the replay's index for recorded item i, or -1.
func (r *scenarioReplay) pairItems(w, g []any, key string) []int {
	pairs := make([]int, len(w))
	for i := range pairs {
		pairs[i] = -1
		if i < len(g) {
			pairs[i] = i
		}
	}
	if key != "items" && key != "rows" {
		return pairs
	}
	id := func(md map[string]any, field string) string {
		ns, _ := md["namespace"].(string)
		v, _ := md[field].(string)
		return ns + "/" + v
	}
	byName := map[string]int{}
	for j, it := range g {
		md, ok := itemMeta(it)
		if !ok {
			return pairs
		}
		byName[id(md, "name")] = j
	}
	used := map[int]bool{}
	for i := range pairs {
		pairs[i] = -1
		if md, ok := itemMeta(w[i]); ok {
			if j, ok := byName[r.replaceSub(id(md, "name"))]; ok && !used[j] {
				pairs[i], used[j] = j, true
			}
		}
	}
	next := func(match func(j int) bool) int {
		for j := range g {
			if !used[j] && match(j) {
				used[j] = true
				return j
			}
		}
		return -1
	}
	for i := range pairs {
		if pairs[i] >= 0 {
			continue
		}
		md, _ := itemMeta(w[i])
		if gn, _ := md["generateName"].(string); gn != "" {
			// Objects of one generateName (a ReplicaSet's Pods) are told apart by the order
			// they were written in: paired in resourceVersion order.
			want := r.replaceSub(generateKey(md))
			var ws, gs []int
			for k := range w {
				km, _ := itemMeta(w[k])
				if pairs[k] < 0 && r.replaceSub(generateKey(km)) == want {
					ws = append(ws, k)
				}
			}
			for j := range g {
				jm, _ := itemMeta(g[j])
				if !used[j] && generateKey(jm) == want {
					gs = append(gs, j)
				}
			}
			byRV := func(l []any, idx []int) {
				sort.SliceStable(idx, func(a, b int) bool {
					am, _ := itemMeta(l[idx[a]])
					bm, _ := itemMeta(l[idx[b]])
					return atoi(stringField(am, "resourceVersion")) < atoi(stringField(bm, "resourceVersion"))
				})
			}
			byRV(w, ws)
			byRV(g, gs)
			for n := range ws {
				if n < len(gs) {
					pairs[ws[n]], used[gs[n]] = gs[n], true
				}
			}
			r.batchOf(w, g, ws, gs)
		}
	}
	for i := range pairs {
		if pairs[i] < 0 {
			pairs[i] = next(func(int) bool { return true })
		}
	}
	return pairs
}

// generateKey is an item's namespace and generateName (a ReplicaSet's Pods are named after it,
// its pod-template-hash included, which both servers compute alike).
func generateKey(md map[string]any) string {
	ns, _ := md["namespace"].(string)
	gn, _ := md["generateName"].(string)
	return ns + "/" + gn
}

// batchOf numbers a batch of objects written concurrently in the recorded cluster: the items of
// one generateName (a ReplicaSet's Pods, which its controller creates in parallel, slowStartBatch)
// created in one second, first seen together in one answer (ws, paired with gs in
// resourceVersion order). Their order of writing in the real cluster was the goroutines', and
// the controller chooses among them with nothing to tell them apart (a scale-down sorts
// equal-ranked Pods listed from an informer's map), so within the batch neither their
// resourceVersion order nor which recorded one is which replayed one is compared: a later answer
// may pair them anew (pairRV). Their content, and their order against every other write, are.
func (r *scenarioReplay) batchOf(w, g []any, ws, gs []int) {
	bySecond := map[string][][2]string{}
	var seconds []string
	for n := range ws {
		if n >= len(gs) {
			break
		}
		wm, _ := itemMeta(w[ws[n]])
		gm, _ := itemMeta(g[gs[n]])
		wrv, grv := stringField(wm, "resourceVersion"), stringField(gm, "resourceVersion")
		if _, known := r.rv[wrv]; known || r.batch[wrv] != 0 || r.batchBack[grv] != 0 {
			return // seen before: a batch is the objects first seen together
		}
		at := stringField(wm, "creationTimestamp")
		if _, ok := bySecond[at]; !ok {
			seconds = append(seconds, at)
		}
		bySecond[at] = append(bySecond[at], [2]string{wrv, grv})
	}
	for _, at := range seconds {
		if members := bySecond[at]; len(members) > 1 && at != "" {
			r.batches++
			for _, m := range members {
				r.batch[m[0]], r.batchBack[m[1]] = r.batches, r.batches
			}
		}
	}
}

// pairRV pairs a recorded object resourceVersion with the replay's: one to one, and ordered as
// the recorded ones are; within a batch of concurrent writes (batchOf) a pair may be exchanged
// for another of the batch, and their order among themselves is not compared.
func (r *scenarioReplay) pairRV(want, got string) string {
	if prev, ok := r.rv[want]; ok && prev != got {
		if b := r.batch[want]; b != 0 && r.batchBack[got] == b {
			// got was paired with another of the batch: the two exchange their partners.
			other := r.rvBack[got]
			r.rv[want], r.rvBack[got] = got, want
			r.rv[other], r.rvBack[prev] = prev, other
			for _, p := range [][2]string{{want, got}, {other, prev}} {
				if d := r.rvOrder(p[0], p[1]); d != "" {
					return d
				}
			}
			return ""
		}
		if _, isObj := r.rvBack[prev]; isObj {
			return fmt.Sprintf("resourceVersion %s (recorded %s) was %s before", got, want, prev)
		}
	}
	if prev, ok := r.rvBack[got]; ok && prev != want {
		return fmt.Sprintf("resourceVersion %s answered for recorded %s and %s", got, prev, want)
	}
	if d := r.rvOrder(want, got); d != "" {
		return d
	}
	r.rv[want] = got
	r.rvBack[got] = want
	return ""
}

// rvOrder checks a pair against the pairs known: ordered alike, but within one batch.
func (r *scenarioReplay) rvOrder(want, got string) string {
	wn, gn := atoi(want), atoi(got)
	b := r.batch[want]
	for g, w := range r.rvBack {
		if w == want && g == got || b != 0 && r.batch[w] == b {
			continue
		}
		ow, og := atoi(w), atoi(g)
		if (ow < wn) != (og < gn) || (ow == wn) != (og == gn) {
			return fmt.Sprintf("resourceVersion %s (recorded %s) out of order with %s (recorded %s)", got, want, g, w)
		}
	}
	return ""
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// mapRecorded rewrites a recorded value into the replay's terms: drawn strings replaced,
// object resourceVersions mapped.
func (r *scenarioReplay) mapRecorded(v any) any { return r.mapRecordedAt(v, "") }

func (r *scenarioReplay) mapRecordedAt(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && k == "resourceVersion" {
				if m, ok := r.rv[s]; ok {
					out[k] = m
					continue
				}
			}
			out[r.replaceSub(k)] = r.mapRecordedAt(e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.mapRecordedAt(e, key)
		}
		// A list the server sorted by namespace and name is sorted again by the mapped names.
		if (key == "items" || key == "rows") && sortedByName(x) {
			sort.SliceStable(out, func(i, j int) bool { return itemKey(out[i]) < itemKey(out[j]) })
		}
		return out
	case string:
		if m, ok := r.whole[x]; ok {
			return m
		}
		if len(r.whole) > 0 {
			// A cluster IP quoted in a message (a 404 naming an IPAddress, the allocator's 422).
			x = ipInText.ReplaceAllStringFunc(x, func(ip string) string {
				if m, ok := r.whole[ip]; ok {
					return m
				}
				return ip
			})
		}
		x = preconditionRVs.ReplaceAllStringFunc(x, func(m string) string {
			sm := preconditionRVs.FindStringSubmatch(m)
			for _, i := range []int{2, 4} {
				if v, ok := r.rv[sm[i]]; ok {
					sm[i] = v
				}
			}
			return strings.Join(sm[1:], "")
		})
		x = quotedRV.ReplaceAllStringFunc(x, func(m string) string {
			sm := quotedRV.FindStringSubmatch(m)
			if v, ok := r.rv[sm[2]]; ok {
				return sm[1] + v + sm[3]
			}
			return m
		})
		x = decodedRevision.ReplaceAllStringFunc(x, func(m string) string {
			sm := decodedRevision.FindStringSubmatch(m)
			if v, ok := r.rv[sm[2]]; ok {
				return sm[1] + v + sm[3]
			}
			return m
		})
		return r.replaceSub(x)
	}
	return v
}

func itemKey(v any) string {
	md, _ := itemMeta(v)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	return ns + "\x00" + name
}

func sortedByName(l []any) bool {
	for i := range l {
		if _, ok := itemMeta(l[i]); !ok {
			return false
		}
		if i > 0 && itemKey(l[i-1]) > itemKey(l[i]) {
			return false
		}
	}
	return true
}

// normaliseScenario replaces times (any RFC 3339 string), list resourceVersions (the real
// server's is its etcd revision, which other clients' writes move) and continue tokens' revision.
func normaliseScenario(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		isList := x["items"] != nil || x["rows"] != nil || strings.HasSuffix(stringField(x, "kind"), "List")
		for k, e := range x {
			switch {
			case k == "metadata" && isList:
				if md, ok := e.(map[string]any); ok {
					m := make(map[string]any, len(md))
					for mk, mv := range md {
						m[mk] = mv
						if s, ok := mv.(string); ok && s != "" && (mk == "resourceVersion" || mk == "continue") {
							m[mk] = "<" + mk + ">"
							if mk == "continue" {
								m[mk] = continueStart(s)
							}
						}
					}
					out[k] = m
					continue
				}
			}
			out[k] = normaliseScenario(e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normaliseScenario(e, key)
		}
		return out
	case string:
		if _, err := time.Parse(time.RFC3339Nano, x); err == nil && len(x) >= 20 {
			return "<time>"
		}
		// Times quoted inside messages (an object in an Invalid value), and the current
		// revision the apiserver names in 410 and 504 messages (the real server's is its etcd
		// revision, which other clients' writes move).
		x = timeInText.ReplaceAllString(x, "<time>")
		x = revisionInText.ReplaceAllString(x, "${1}<rv>")
		return x
	}
	return v
}

var (
	preconditionRVs = regexp.MustCompile(`(ResourceVersion in the precondition \()(\d+)(\) does not match the ResourceVersion in record \()(\d+)(\))`)
	// quotedRV is an object's resourceVersion in an object a message quotes (a strict
	// decoding error's Invalid value), mapped as the object's own is.
	quotedRV = regexp.MustCompile(`(\\"resourceVersion\\":\\")(\d+)(\\")`)
	// decodedRevision is the mod revision a storage decoding error quotes (a stored custom
	// resource its conversion webhook fails to convert): the object's resourceVersion.
	decodedRevision = regexp.MustCompile(`(object not decodable revision=)(\d+)(:)`)
	timeInText      = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	revisionInText  = regexp.MustCompile(`(too old resource version: \d+ \(|Too large resource version: \d+, current: )\d+`)
)

// continueStart is what a continue token says apart from its revision: the key to start at.
func continueStart(tok string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(tok, "="))
	if err != nil {
		return "<continue>"
	}
	var c struct {
		Start string `json:"start"`
	}
	if json.Unmarshal(b, &c) != nil {
		return "<continue>"
	}
	return "<continue from " + c.Start + ">"
}

// statusCausesRandom: a Status whose causes kube-apiserver 1.37 orders anew on each request
// (an apply conflict with several managers: structured-merge-diff ranges over a map; a custom
// resource's schema errors: kube-openapi ranges over the properties map), as
// cmd/writepath/cli's TestRecordedReplay records.
func statusCausesRandom(st map[string]any) bool {
	d, _ := st["details"].(map[string]any)
	causes, _ := d["causes"].([]any)
	if len(causes) < 2 {
		return false
	}
	switch stringField(st, "reason") {
	case "Conflict":
		for _, c := range causes {
			m, _ := c.(map[string]any)
			if stringField(m, "reason") != "FieldManagerConflict" {
				return false
			}
		}
		return true
	case "Invalid":
		group := stringField(d, "group")
		return strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
	}
	return false
}

func sameCausesAnyOrder(a, b map[string]any) bool {
	key := func(st map[string]any) (string, []string) {
		c := roundTripAny(st).(map[string]any)
		d, _ := c["details"].(map[string]any)
		l, _ := d["causes"].([]any)
		var causes []string
		for _, x := range l {
			j, _ := json.Marshal(x)
			causes = append(causes, string(j))
		}
		sort.Strings(causes)
		delete(d, "causes")
		msg := stringField(c, "message")
		if i := strings.IndexByte(msg, '['); i >= 0 {
			c["message"] = fmt.Sprintf("%s[%d]", msg[:i], len(msg))
		}
		j, _ := json.Marshal(c)
		return string(j), causes
	}
	ka, ca := key(a)
	kb, cb := key(b)
	return ka == kb && reflect.DeepEqual(ca, cb)
}

func stringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// valueDiff names the first path (sorted keys) where want and got differ.
func valueDiff(path string, want, got any) string { return replaydiff.FirstDiff(path, want, got, 160) }

func shortJSON(v any) string { return replaydiff.Short(v, 160) }
