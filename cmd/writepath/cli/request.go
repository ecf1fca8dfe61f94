package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

const requestLong = `Answer one HTTP request as kube-apiserver 1.37 answers it, without a cluster: the request goes
through the apiserver's whole write path (decode, patch or apply, identity checks, defaulting,
admission, validation, preconditions, generation, managedFields) over a world built from the
--state files, and the command prints what the server would send: the status line, each Warning
header, and the body (the object, or a metav1.Status) as JSON, or YAML with -o yaml. Nothing is
stored: run the command again with the answer in a --state file to see the next request.

The state files hold the stored objects (as the server returns them: kubectl get -o yaml), the
CustomResourceDefinitions the server serves, the admission policies, bindings and webhook
configurations (webhooks are not called: a webhook call fails as its failurePolicy says), and
Namespaces. A namespace the state has no Namespace object for exists, Active, unless
--implicit-namespaces=false. Each request carries user admin in group system:masters unless
--user/--group say otherwise; the default field manager is the User-Agent's ("writepath").

METHOD is GET, POST, PUT, PATCH or DELETE; URL is the apiserver's path with its query
(fieldManager, force, dryRun, fieldValidation, propagationPolicy, gracePeriodSeconds, ...).
The Content-Type defaults to application/json, or application/merge-patch+json for PATCH.
Exit status: 0 for a 2xx answer, 1 for an error answer, 2 for bad usage or unreadable files.`

const requestExamples = `  # Scale a Deployment through /scale, as an HPA would
  writepath request --state testdata/examples/deployment.yaml -d '{"spec":{"replicas":5}}' PATCH '/apis/apps/v1/namespaces/versions-examples/deployments/web/scale?fieldManager=hpa'

  # A patch the apiserver refuses: 422, in the apiserver's words
  writepath request --state testdata/examples/deployment.yaml -d '{"spec":{"replicas":"five"}}' PATCH /apis/apps/v1/namespaces/versions-examples/deployments/web

  # Create a custom resource: pruning, defaults and the Warning header of an unknown field
  writepath request --state testdata/examples/crontab-crd.yaml -H 'Content-Type: application/yaml' -d '{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: hourly}, spec: {cronSpec: "0 * * * *", replicas: 2}}' POST /apis/stable.example.com/v1/namespaces/versions-examples/crontabs

  # Server-side apply, dry run, as YAML
  writepath request --state testdata/examples/configmap.yaml -H 'Content-Type: application/apply-patch+yaml' -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config"},"data":{"mode":"fast"}}' -o yaml PATCH '/api/v1/namespaces/versions-examples/configmaps/web-config?fieldManager=me&dryRun=All'`

// headerList is a repeatable -H 'Name: value' flag.
type headerList []string

func (l *headerList) String() string { return strings.Join(*l, ",") }
func (l *headerList) Type() string   { return "strings" }
func (l *headerList) Set(s string) error {
	name, _, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("a header is 'Name: value', not %q", s)
	}
	*l = append(*l, s)
	return nil
}

func runRequest(e *env, args []string) int {
	var states fileList
	var headers headerList
	var groups fileList
	var data, dataFile, user, now string
	var out output
	implicitNS := true
	f := e.flags("request [--state FILE]... [-H 'Content-Type: ...'] [--data-file F | -d BODY] [-o json|yaml] [--user U --group G] METHOD URL", requestLong, requestExamples)
	f.Var(&states, "state", "FILE with stored objects, CRDs, policies and namespaces (repeatable; multi-document YAML or JSON; - for stdin)")
	maxState := f.Int64("max-state-bytes", bounded.StateBytes, "bound of each --state file in `BYTES` (they hold many objects; -1: no bound)")
	f.Var(&headers, "H", "request header 'Name: value' (repeatable): Content-Type, Accept, User-Agent")
	f.StringVar(&data, "d", "", "the request body")
	f.StringVar(&dataFile, "data-file", "", "FILE with the request body (- for stdin), sent byte for byte")
	f.Var(&out, "o", "body format: json|yaml (default json)")
	f.StringVar(&user, "user", "admin", "the requesting user's name")
	f.Var(&groups, "group", "a group of the user (repeatable; default system:masters and system:authenticated)")
	f.StringVar(&now, "now", "", "the server's clock, RFC 3339 (default: the current time)")
	f.BoolVar(&implicitNS, "implicit-namespaces", true, "a namespace without a Namespace object in the state exists")
	if code, ok := f.parse(args); !ok {
		return code
	}
	if f.NArg() != 2 {
		return e.fail(usagef("request takes METHOD and URL, got %d arguments", f.NArg()))
	}
	if data != "" && dataFile != "" {
		return e.fail(usagef("-d and --data-file are exclusive"))
	}
	clock := time.Now().UTC().Truncate(time.Second)
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return e.fail(usagef("--now: %v", err))
		}
		clock = t
	}
	objs, err := e.readState(states, *maxState)
	if err != nil {
		return e.fail(err)
	}
	var body []byte
	switch {
	case dataFile != "":
		// At most one byte past the apiserver's limit: the registry answers its 413.
		if body, err = bounded.ReadBody(dataFile, e.stdin, bounded.RequestBodyBytes); err != nil {
			if re := (*bounded.ReadError)(nil); errors.As(err, &re) {
				err = re.Err
			}
			return e.fail(&inputError{err: err})
		}
	case data != "":
		body = []byte(data)
	}
	w, err := newStateWorld(objs, implicitNS, nil)
	if err != nil {
		return e.fail(&inputError{err: err})
	}
	h := http.Header{}
	for _, l := range headers {
		name, value, _ := strings.Cut(l, ":")
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if h.Get("Content-Type") == "" && len(body) > 0 {
		if strings.EqualFold(f.Arg(0), "PATCH") {
			h.Set("Content-Type", "application/merge-patch+json")
		} else {
			h.Set("Content-Type", "application/json")
		}
	}
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "writepath/"+writepathVersion)
	}
	if len(groups) == 0 {
		groups = fileList{"system:masters", "system:authenticated"}
	}
	req := newRegistryRequest(f.Arg(0), f.Arg(1), h, body, registry.User{Name: user, Groups: groups}, clock)
	resp, _, err := answer(w, req)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
	}
	if perr := printResponse(e, resp, out); perr != nil {
		return e.fail(perr)
	}
	if resp.Code/100 == 2 {
		return exitOK
	}
	return exitNegative
}

// newRegistryRequest is the request as the apiserver receives it: the method, the URL (path and
// query), the headers that matter and the body.
func newRegistryRequest(method, url string, h http.Header, body []byte, user registry.User, now time.Time) registry.Request {
	return registry.Request{
		Method:      strings.ToUpper(method),
		Path:        url,
		ContentType: h.Get("Content-Type"),
		Accept:      h.Get("Accept"),
		Body:        body,
		User:        user,
		UserAgent:   h.Get("User-Agent"),
		Now:         now,
	}
}

// answer runs req through the registry over w. Nothing is stored: the writes are only what the
// server would store.
func answer(w *stateWorld, req registry.Request) (registry.Response, []registry.Write, error) {
	return registry.Handle(context.Background(), w, req)
}

// printResponse prints the status line, the Warning headers and the body.
func printResponse(e *env, resp registry.Response, out output) error {
	fmt.Fprintf(e.stdout, "HTTP/1.1 %d %s\n", resp.Code, http.StatusText(resp.Code))
	for _, w := range resp.Warnings {
		fmt.Fprintf(e.stdout, "Warning: %s\n", w)
	}
	fmt.Fprintln(e.stdout)
	body := bytes.TrimSpace(resp.Body)
	if len(body) == 0 {
		return nil
	}
	if !json.Valid(body) {
		_, err := fmt.Fprintf(e.stdout, "%s\n", body)
		return err
	}
	if out == "yaml" {
		v, err := codec.DecodeValue(body)
		if err != nil {
			return err
		}
		y, err := codec.EncodeYAML(v)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(y)
		return err
	}
	// Indented, in the server's key order (managedFields keep theirs).
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "    "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := e.stdout.Write(b.Bytes())
	return err
}

// stateWorld is the registry.World of `writepath request`: registry's Static world over the
// objects read from files (storage, CRDs, admission configuration), with uids and generated names
// drawn from a counter (so that the same state and request give the same answer) and the
// server's own draws fed by the replay of a recording.
type stateWorld struct {
	*registry.Static
	serial uint64
	// uids, names and rvs, when set, are what the next NewUID, GenerateName and
	// NextResourceVersion return (the replay of a recording feeds the server's own draws).
	uids, names, rvs []string
	// serviceNet, when set, is the Services' network (the default is kube-apiserver's);
	// ipDraws and portDraws are what its NextClusterIP and NextNodePort return first (the
	// replay feeds the addresses and ports the server's answer shows).
	serviceNet         *registry.ServiceNetwork
	ipDraws, portDraws []string
}

// ServiceNetwork implements registry.ServiceNetworker: the network set for the world, with the
// draws fed to it taken first.
func (w *stateWorld) ServiceNetwork() registry.ServiceNetwork {
	n := registry.DefaultServiceNetwork()
	if w.serviceNet != nil {
		n = *w.serviceNet
	}
	if len(w.ipDraws) > 0 {
		n.NextClusterIP = func(used func(netip.Addr) bool) (netip.Addr, bool) {
			for len(w.ipDraws) > 0 {
				a, err := netip.ParseAddr(w.ipDraws[0])
				w.ipDraws = w.ipDraws[1:]
				if err == nil && !used(a) {
					return a, true
				}
			}
			return netip.Addr{}, false
		}
	}
	if len(w.portDraws) > 0 {
		n.NextNodePort = func(used func(int) bool) (int, bool) {
			for len(w.portDraws) > 0 {
				p, err := strconv.Atoi(w.portDraws[0])
				w.portDraws = w.portDraws[1:]
				if err == nil && !used(p) {
					return p, true
				}
			}
			return 0, false
		}
	}
	return n
}

// newStateWorld holds objs (the items of a List one by one). Every object needs a name. client
// calls admission webhooks (nil: none is called, as `writepath request` does not).
func newStateWorld(objs []map[string]any, implicitNS bool, client admission.WebhookClient) (*stateWorld, error) {
	var flat []map[string]any
	for _, o := range objs {
		if items, ok := o["items"].([]any); ok && strings.HasSuffix(stringField(o, "kind"), "List") {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					flat = append(flat, m)
				}
			}
			continue
		}
		flat = append(flat, o)
	}
	for _, o := range flat {
		if metaStr(o, "name") == "" {
			return nil, fmt.Errorf("a %s in the state has no metadata.name", stringField(o, "kind"))
		}
	}
	w := &stateWorld{}
	st, err := registry.NewStatic(flat, registry.StaticOptions{ImplicitNamespaces: implicitNS, UID: w.newUID, GenerateName: w.generateName, Client: client})
	if err != nil {
		return nil, err
	}
	w.Static = st
	return w, nil
}

func isCRD(o map[string]any) bool {
	return stringField(o, "kind") == "CustomResourceDefinition" && strings.HasPrefix(stringField(o, "apiVersion"), "apiextensions.k8s.io/")
}

func stringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func metaStr(o map[string]any, k string) string {
	md, _ := o["metadata"].(map[string]any)
	return stringField(md, k)
}

// put stores o (a fresh copy).
func (w *stateWorld) put(o map[string]any) error { return w.Put(o) }

// remove deletes the object at o's key.
func (w *stateWorld) remove(o map[string]any) error { return w.Remove(o) }

// deepCopy is a fresh copy of o (nil when o holds a value JSON does not).
func deepCopy(o map[string]any) map[string]any {
	c, err := value.DeepCopyMap(o)
	if err != nil {
		return nil
	}
	return c
}

// draw returns a deterministic 16-byte value for the n-th draw of what.
func (w *stateWorld) draw(what string) [32]byte {
	w.serial++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], w.serial)
	return sha256.Sum256(append([]byte(what), b[:]...))
}

// newUID is the world's NewUID: a fed uid, else a version 4 uuid of the next draw.
func (w *stateWorld) newUID() string {
	if len(w.uids) > 0 {
		u := w.uids[0]
		w.uids = w.uids[1:]
		return u
	}
	s := w.draw("uid")
	s[6] = s[6]&0x0f | 0x40
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// generateName is the world's GenerateName: a fed name, else registry.GenerateName with the
// characters of the next draw.
func (w *stateWorld) generateName(base string) string {
	if len(w.names) > 0 {
		n := w.names[0]
		w.names = w.names[1:]
		return n
	}
	s := w.draw("name")
	i := 0
	return registry.GenerateName(base, func(n int) int { d := int(s[i]) % n; i++; return d })
}

// NextResourceVersion implements registry.World: a fed resourceVersion, else one more than the
// highest in the state.
func (w *stateWorld) NextResourceVersion() string {
	if len(w.rvs) > 0 {
		r := w.rvs[0]
		w.rvs = w.rvs[1:]
		return r
	}
	return w.Static.NextResourceVersion()
}
