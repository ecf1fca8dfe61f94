package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// WebhookTarget is where and how to call one webhook.
type WebhookTarget struct {
	// Name is the webhook's name.
	Name string
	// URL is clientConfig.url, or the service URL built from
	// clientConfig.service (https://name.namespace.svc:port/path), with the
	// apiserver's ?timeout= query.
	URL      string
	CABundle []byte
	Timeout  time.Duration
}

// WebhookClient sends an AdmissionReview to a webhook and returns the body of
// its answer. It is the chain's one effect. Call must be safe for concurrent
// use: validating webhooks are called in parallel, as the apiserver calls
// them. ctx carries the webhook's timeout.
type WebhookClient interface {
	Call(ctx context.Context, t WebhookTarget, body []byte) ([]byte, error)
}

// HTTPSClient is the default WebhookClient: a POST over HTTPS trusting
// CABundle (the system roots when empty), within Timeout.
type HTTPSClient struct {
	// MaxResponseBytes bounds the answer read from a webhook; 0 is a state file's bound
	// (bounded.StateBytes, 256 MiB). The apiserver reads the answer without a bound; writepath
	// stops one byte past this one, so that an endless answer cannot exhaust memory, and the
	// call fails as a read error does in client-go ("unexpected error when reading response
	// body. Please retry. Original error: URL: request entity too large: limit is N"), which
	// the webhook's failurePolicy then decides on.
	MaxResponseBytes int64
}

// Call implements WebhookClient.
func (c HTTPSClient) Call(ctx context.Context, t WebhookTarget, body []byte) ([]byte, error) {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(t.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CABundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tlsCfg.RootCAs = pool
	}
	tr := &http.Transport{TLSClientConfig: tlsCfg}
	// The transport is the call's own: close its connection when done.
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: t.Timeout}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json, */*")
	resp, err := cl.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = bounded.StateBytes
	}
	b, err := bounded.Read(resp.Body, t.URL, limit)
	if err != nil {
		if re := (*bounded.ReadError)(nil); errors.As(err, &re) {
			err = re.Err
		}
		return nil, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	return b, nil
}

type webhook struct {
	name, config string
	mutating     bool
	url          string
	caBundle     []byte
	match        *matchResources
	failPolicy   string
	sideEffects  string
	timeout      time.Duration
	reinvoke     bool
	conditions   []namedProgram
	configErr    string
}

func parseWebhooks(o map[string]any, mutating bool) ([]*webhook, error) {
	cfgName := getString(o, "metadata", "name")
	hs, _ := o["webhooks"].([]any)
	var out []*webhook
	for _, h := range hs {
		m, _ := h.(map[string]any)
		w := &webhook{name: getString(m, "name"), config: cfgName, mutating: mutating, failPolicy: "Fail", timeout: 10 * time.Second}
		if fp := getString(m, "failurePolicy"); fp != "" {
			w.failPolicy = fp
		}
		w.sideEffects = getString(m, "sideEffects")
		if t, ok := m["timeoutSeconds"].(int64); ok {
			w.timeout = time.Duration(t) * time.Second
		}
		w.reinvoke = getString(m, "reinvocationPolicy") == "IfNeeded"
		cc := getMap(m, "clientConfig")
		if u := getString(cc, "url"); u != "" {
			w.url = u
		} else if svc := getMap(cc, "service"); svc != nil {
			port := int64(443)
			if p, ok := svc["port"].(int64); ok {
				port = p
			}
			w.url = fmt.Sprintf("https://%s.%s.svc:%d%s", getString(svc, "name"), getString(svc, "namespace"), port, getString(svc, "path"))
		}
		if ca := getString(cc, "caBundle"); ca != "" {
			var b []byte
			if err := json.Unmarshal([]byte(strconv.Quote(ca)), &b); err != nil {
				return nil, fmt.Errorf("webhook %q: caBundle: %w", w.name, err)
			}
			w.caBundle = b
		}
		mr := &matchResources{rules: parseRules(m["rules"], false), matchPolicy: getString(m, "matchPolicy")}
		var err error
		if mr.namespaceSelector, err = parseSelector(m["namespaceSelector"]); err != nil {
			w.configErr = err.Error()
		}
		if mr.objectSelector, err = parseSelector(m["objectSelector"]); err != nil {
			w.configErr = err.Error()
		}
		w.match = mr
		mcs, _ := m["matchConditions"].([]any)
		if len(mcs) > 0 {
			// The webhook's condition compiler declares no variables (and no params):
			// variables.x is an undeclared reference, as in the apiserver.
			env, err := admissionEnv(false)
			if err != nil {
				return nil, err
			}
			c := &compiler{&cel.Composition{Env: env}}
			for _, x := range mcs {
				mm, _ := x.(map[string]any)
				w.conditions = append(w.conditions, namedProgram{name: getString(mm, "name"),
					prog: c.compile(getString(mm, "expression"), []*celgo.Type{celgo.BoolType})})
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// callError is webhookutil.ErrCallingWebhook.
type callError struct {
	name   string
	reason error
	status *status.Error
}

func (e *callError) Error() string {
	if e.reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.name, e.reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.name)
}

// rejection is webhookutil.ErrWebhookRejection.
type rejection struct{ status *status.Error }

func (e *rejection) Error() string { return e.status.Error() }

// toStatusErr is webhookerrors.ToStatusErr.
func toStatusErr(name string, st *reviewStatus) *status.Error {
	denied := fmt.Sprintf("admission webhook %q denied the request", name)
	e := &status.Error{Code: 400}
	if st != nil {
		e.Code, e.Reason, e.Message = st.Code, status.Reason(st.Reason), st.Message
		if st.Details != nil {
			e.Details = &status.Details{Name: st.Details.Name, Group: st.Details.Group, Kind: st.Details.Kind, UID: st.Details.UID,
				RetryAfterSeconds: st.Details.RetryAfterSeconds}
			for _, c := range st.Details.Causes {
				e.Details.Causes = append(e.Details.Causes, status.Cause{Type: status.CauseType(c.Reason), Message: c.Message, Field: c.Field})
			}
		}
	}
	if e.Code < 400 {
		e.Code = 400
	}
	switch {
	case e.Message != "":
		e.Message = denied + ": " + e.Message
	case e.Reason != "":
		e.Message = denied + ": " + string(e.Reason)
	default:
		e.Message = denied + " without explanation"
	}
	return e
}

type reviewStatus struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details *struct {
		Name              string `json:"name"`
		Group             string `json:"group"`
		Kind              string `json:"kind"`
		UID               string `json:"uid"`
		RetryAfterSeconds int32  `json:"retryAfterSeconds"`
		Causes            []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
	} `json:"details"`
}

type reviewResponse struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   *struct {
		UID              string            `json:"uid"`
		Allowed          bool              `json:"allowed"`
		Status           *reviewStatus     `json:"status"`
		Patch            []byte            `json:"patch"`
		PatchType        *string           `json:"patchType"`
		AuditAnnotations map[string]string `json:"auditAnnotations"`
		Warnings         []string          `json:"warnings"`
	} `json:"response"`
}

// defaultOptions is the options object the apiserver sends for op.
func defaultOptions(op Operation) map[string]any {
	kind := map[Operation]string{Create: "CreateOptions", Update: "UpdateOptions", Delete: "DeleteOptions"}[op]
	if kind == "" {
		return nil
	}
	return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": kind}
}

// reviewRequest is the AdmissionRequest as JSON (CreateV1AdmissionReview).
func reviewRequest(req *Request, kind schema.GroupVersionKind, res schema.GroupVersionResource, sub, uid string) map[string]any {
	user := map[string]any{}
	if req.UserInfo.Username != "" {
		user["username"] = req.UserInfo.Username
	}
	if req.UserInfo.UID != "" {
		user["uid"] = req.UserInfo.UID
	}
	if len(req.UserInfo.Groups) > 0 {
		g := make([]any, len(req.UserInfo.Groups))
		for i, s := range req.UserInfo.Groups {
			g[i] = s
		}
		user["groups"] = g
	}
	if len(req.UserInfo.Extra) > 0 {
		ex := map[string]any{}
		for k, vs := range req.UserInfo.Extra {
			l := make([]any, len(vs))
			for i, s := range vs {
				l[i] = s
			}
			ex[k] = l
		}
		user["extra"] = ex
	}
	m := map[string]any{
		"uid":             uid,
		"kind":            map[string]any{"group": kind.Group, "version": kind.Version, "kind": kind.Kind},
		"resource":        map[string]any{"group": res.Group, "version": res.Version, "resource": res.Resource},
		"requestKind":     map[string]any{"group": req.Kind.Group, "version": req.Kind.Version, "kind": req.Kind.Kind},
		"requestResource": map[string]any{"group": req.Resource.Group, "version": req.Resource.Version, "resource": req.Resource.Resource},
		"operation":       string(req.Operation),
		"userInfo":        user,
		"dryRun":          req.DryRun,
	}
	if sub != "" {
		m["subResource"] = sub
	}
	if req.SubResource != "" {
		m["requestSubResource"] = req.SubResource
	}
	if req.Name != "" {
		m["name"] = req.Name
	}
	if req.Namespace != "" {
		m["namespace"] = req.Namespace
	}
	// RawExtensions without an object are sent as null, not left out.
	m["object"] = nilIfEmpty(req.Object)
	m["oldObject"] = nilIfEmpty(req.OldObject)
	opts := req.Options
	if opts == nil {
		opts = defaultOptions(req.Operation)
	}
	m["options"] = nilIfEmpty(opts)
	return m
}

// Review returns the AdmissionReview v1 request body kube-apiserver sends a
// webhook for req, with uid as request.uid.
func Review(req Request, uid string) ([]byte, error) {
	return codec.EncodeJSON(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
		"request": reviewRequest(&req, req.Kind, req.Resource, req.SubResource, uid)})
}

func (c *Chain) client() WebhookClient {
	if c.cfg.Client != nil {
		return c.cfg.Client
	}
	return HTTPSClient{}
}

// shouldCall decides whether w sees req (rules, selectors, match conditions).
// An error is ShouldCallHook's: the dispatcher returns it as the answer,
// whatever the webhook's failurePolicy.
func (c *Chain) shouldCall(ctx context.Context, w *webhook, req *Request) (bool, error) {
	if isAdmissionConfig(req) {
		return false, nil
	}
	// As ShouldCallHook: a namespace lookup error counts only for a webhook
	// whose rules match.
	nsOK, nsErr := w.match.matchNamespace(req, c)
	if !nsOK && nsErr == nil {
		return false, nil
	}
	if !(w.match.objectSelector.empty() || labelsMatch(w.match.objectSelector, req.Object) || labelsMatch(w.match.objectSelector, req.OldObject)) {
		return false, nil
	}
	matched, as, err := c.webhookMatch(w, req)
	if err != nil {
		return false, err
	}
	if !matched {
		return false, nil
	}
	if nsErr != nil {
		return false, nsErr
	}
	if w.configErr != "" {
		// A selector that does not parse (the apiserver refuses to store one).
		return false, status.InternalError(errors.New(w.configErr))
	}
	if len(w.conditions) > 0 {
		pc := &policyCore{name: w.name, failPolicy: w.failPolicy, conditions: w.conditions}
		rv, err := c.valuesAs(req, req.Object, as, req.Resource)
		if err != nil {
			return false, status.InternalError(err)
		}
		rv.namespace = types.NullValue
		act := c.newActivation(ctx, pc, rv, nil)
		ok, msg := pc.matchConditions(ctx, act)
		if msg != "" {
			// ShouldCallHook fails closed with a 403 whatever the failurePolicy
			// (an Ignore policy has already turned errors into "no match").
			return false, status.Forbidden(status.GroupResource{Group: req.Resource.Group, Resource: req.Resource.Resource}, req.Name, errors.New(msg))
		}
		return ok, nil
	}
	return true, nil
}

func isAdmissionConfig(req *Request) bool {
	if req.Kind.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch req.Kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

// call sends the review and checks the answer: the new object (mutating), or
// an error (*callError, *rejection or a status error).
// changed is the dispatcher's judgement of whether the patch changed the
// object (see defaultMutated).
func (c *Chain) call(ctx context.Context, w *webhook, req *Request, obj map[string]any, res *Result) (out map[string]any, changed bool, err error) {
	if err := w.dryRunCheck(req); err != nil {
		return nil, false, err
	}
	return c.sendPatched(ctx, w, req, obj, c.reviewUID(), res)
}

// dryRunCheck is the dispatchers' refusal of a webhook that cannot be called
// for req: no sideEffects, or side effects on a dry run.
func (w *webhook) dryRunCheck(req *Request) error {
	if w.sideEffects == "" {
		return &callError{name: w.name, reason: errors.New("Webhook SideEffects is nil"), status: status.BadRequest("Webhook SideEffects is nil")}
	}
	if req.DryRun && w.sideEffects != "None" && w.sideEffects != "NoneOnDryRun" {
		return status.BadRequest(fmt.Sprintf("admission webhook %q does not support dry run", w.name))
	}
	return nil
}

// reviewUID draws the uid of the next AdmissionReview from Env.ReviewUID.
func (c *Chain) reviewUID() string {
	if c.cfg.Env.ReviewUID != nil {
		return c.cfg.Env.ReviewUID()
	}
	return "00000000-0000-0000-0000-000000000000"
}

// send calls w with the review of req (object obj, request uid uid), within
// the webhook's timeout, and checks the answer as call does.
func (c *Chain) send(ctx context.Context, w *webhook, req *Request, obj map[string]any, uid string, res *Result) (map[string]any, error) {
	out, _, err := c.sendPatched(ctx, w, req, obj, uid, res)
	return out, err
}

// sendPatched is send, also saying whether the webhook's patch changed the
// object as the mutating dispatcher judges it.
func (c *Chain) sendPatched(ctx context.Context, w *webhook, req *Request, obj map[string]any, uid string, res *Result) (map[string]any, bool, error) {
	r := *req
	r.Object = obj
	// The objects are sent at the version the webhook matched (matchPolicy
	// Equivalent), and its patch converted back.
	as, err := c.versionForHook(w, &r)
	if err != nil {
		return nil, false, err
	}
	body, err := reviewAs(&r, as, uid)
	if err != nil {
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("could not create admission objects: %w", err), status: status.BadRequest("error creating admission objects")}
	}
	u := w.url
	if pu, err := url.Parse(u); err == nil {
		q := pu.Query()
		q.Set("timeout", fmt.Sprintf("%ds", int(w.timeout/time.Second)))
		pu.RawQuery = q.Encode()
		u = pu.String()
	}
	// callHook wraps the request's context with the webhook's timeout.
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	out, err := c.client().Call(ctx, WebhookTarget{Name: w.name, URL: u, CABundle: w.caBundle, Timeout: w.timeout}, body)
	if err != nil {
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("failed to call webhook: %w", err), status: status.ServiceUnavailable("error calling webhook")}
	}
	var rr reviewResponse
	if err := json.Unmarshal(out, &rr); err != nil {
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("received invalid webhook response: %w", err), status: status.ServiceUnavailable("error validating webhook response")}
	}
	if err := verifyResponse(&rr, uid, w.mutating); err != nil {
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("received invalid webhook response: %w", err), status: status.ServiceUnavailable("error validating webhook response")}
	}
	resp := rr.Response
	for k, v := range resp.AuditAnnotations {
		res.addAudit(w.name+"/"+k, v)
	}
	res.Warnings = append(res.Warnings, resp.Warnings...)
	if !resp.Allowed {
		return nil, false, &rejection{status: toStatusErr(w.name, resp.Status)}
	}
	if len(resp.Patch) == 0 {
		return obj, false, nil
	}
	// jsonpatch.DecodePatch: the patch must be an array of operations.
	var ops []map[string]*json.RawMessage
	if err := json.Unmarshal(resp.Patch, &ops); err != nil {
		msg := strings.ReplaceAll(err.Error(), "[]map[string]*json.RawMessage", "jsonpatch.Patch")
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("received undecodable patch in webhook response: %s", msg),
			status: status.ServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(ops) == 0 {
		return obj, false, nil
	}
	if obj == nil {
		return nil, false, status.InternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", w.name))
	}
	if *resp.PatchType != "JSONPatch" {
		return nil, false, &callError{name: w.name, reason: fmt.Errorf("unsupported patch type %q", *resp.PatchType), status: toStatusErr(w.name, resp.Status)}
	}
	// The dispatcher applies the patch with the library directly: no operation
	// or size limits, the library's error text.
	pr, err := patch.ApplyJSONPatch(r.Object, resp.Patch, patch.Options{MaxOperations: -1, MaxCopyBytes: -1, MaxRequestBytes: -1})
	if err != nil {
		var pe *patch.Error
		if errors.As(err, &pe) && pe.Cause != nil {
			return nil, false, status.InternalError(pe.Cause)
		}
		return nil, false, status.InternalError(err)
	}
	// The patched object is decoded into the kind and defaulted at the
	// version the webhook saw, before it is converted back into the object
	// the dispatcher holds (which, at another version, replaces the kind's
	// own internal round trip).
	patched, changed, err := c.defaultMutated(as.kind, r.Object, pr.Object, decodeWebhookPatch, as.kind != req.Kind)
	if err != nil {
		return nil, false, err
	}
	back, err := c.unversionOnto(req, as, patched, obj)
	return back, changed, err
}

func verifyResponse(rr *reviewResponse, uid string, mutating bool) error {
	if rr.Response == nil {
		return errors.New("webhook response was absent")
	}
	if rr.Response.UID != uid {
		return fmt.Errorf("expected response.uid=%q, got %q", uid, rr.Response.UID)
	}
	if rr.APIVersion != "admission.k8s.io/v1" || rr.Kind != "AdmissionReview" {
		g, v := "", rr.APIVersion
		if i := bytes.IndexByte([]byte(v), '/'); i >= 0 {
			g, v = v[:i], v[i+1:]
		}
		return fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s/%s, Kind=%s", g, v, rr.Kind)
	}
	r := rr.Response
	if mutating {
		if len(r.Patch) > 0 && r.PatchType == nil {
			return errors.New("webhook returned response.patch but not response.patchType")
		}
		if len(r.Patch) == 0 && r.PatchType != nil {
			return errors.New("webhook returned response.patchType but not response.patch")
		}
		if r.PatchType != nil && *r.PatchType == "" {
			return fmt.Errorf("webhook returned invalid response.patchType of %q", *r.PatchType)
		}
	} else {
		if len(r.Patch) > 0 {
			return errors.New("validating webhook may not return response.patch")
		}
		if r.PatchType != nil {
			return errors.New("validating webhook may not return response.patchType")
		}
	}
	return nil
}

// handleError turns a webhook's error into the chain's answer: nil when the
// failure policy ignores it.
func (c *Chain) handleError(w *webhook, err error, idx int, round int, res *Result) error {
	var ce *callError
	if errors.As(err, &ce) {
		if w.failPolicy == "Ignore" {
			if errors.Is(ce.reason, context.Canceled) {
				// The dispatchers fail open without the annotation.
				return nil
			}
			kind := "validating"
			if w.mutating {
				kind = "mutation"
			}
			res.addAudit(fmt.Sprintf("failed-open.%s.webhook.admission.k8s.io/round_%d_index_%d", kind, round, idx), w.name)
			return nil
		}
		return status.InternalError(ce)
	}
	var rj *rejection
	if errors.As(err, &rj) {
		return rj.status
	}
	return err
}

type hookState struct {
	invokedAt  map[int]int
	lastChange int
	step       int
	forceAll   bool
}

// runMutatingWebhooks calls the mutating webhooks in order (round 0), or those
// with reinvocationPolicy IfNeeded that ran before a later change (round 1).
func (c *Chain) runMutatingWebhooks(ctx context.Context, req *Request, obj map[string]any, res *Result, round int, st *hookState) (map[string]any, bool, error) {
	changed := false
	for i, w := range c.mutating {
		if round == 1 {
			at, ok := st.invokedAt[i]
			if !ok || !w.reinvoke || (st.lastChange <= at && !st.forceAll) {
				continue
			}
		}
		r := *req
		r.Object = obj
		ok, err := c.shouldCall(ctx, w, &r)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		st.step++
		st.invokedAt[i] = st.step
		out, mutated, err := c.call(ctx, w, req, obj, res)
		if err != nil {
			if e := c.handleError(w, err, i, round, res); e != nil {
				return nil, false, e
			}
			continue
		}
		// mutated is the dispatcher's judgement, made before defaulting: a
		// patch whose changes defaulting undoes still counts (reinvocation,
		// audit annotation), though the object stays as it was.
		ann, _ := json.Marshal(map[string]any{"configuration": w.config, "webhook": w.name, "mutated": mutated})
		res.addAudit(fmt.Sprintf("mutation.webhook.admission.k8s.io/round_%d_index_%d", round, i), string(ann))
		if !valueEqual(obj, out) {
			p, err := patch.CreateJSONPatch(obj, out)
			if err != nil {
				return nil, false, status.InternalError(err)
			}
			res.Patches = append(res.Patches, Mutation{Mutator: "webhook/" + w.name, Round: round, Patch: p})
			obj = out
		}
		if mutated {
			st.lastChange = st.step
			changed = true
		}
	}
	return obj, changed, nil
}
