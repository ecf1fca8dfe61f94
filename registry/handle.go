package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/status"
)

// MaxRequestBytes is the apiserver's limit on a request body (3 MiB): a longer body is a 413.
const MaxRequestBytes = 3 << 20

// handler carries one request through the pipeline.
type handler struct {
	ctx      context.Context
	w        World
	req      Request
	query    url.Values
	ep       *endpoint
	dryRun   bool
	warnings []string
	audit    Audit
	// patchUnknown says a strategic merge patch of a built-in kind holds unknown fields (set
	// while ApplyStrategic decodes it; see patchHasUnknown).
	patchUnknown bool
	phases       *phases
	// clientManagedFields is set when the request itself carries managedFields (a body with them,
	// a patch changing them): only then are they validated.
	clientManagedFields bool
	// document, while typed reads a request body that is JSON, is that body: the decoder reports
	// unknown fields in the order it meets them (documentOrder).
	document []byte
	// partial is the metadata-only output Accept asked for: "PartialObjectMetadata" (an
	// object) or "PartialObjectMetadataList" (a list), with partialVersion v1 or v1beta1.
	partial, partialVersion string
	// crConv is the conversion webhook's converter of the endpoint's CRD (crConverter), looked
	// up once.
	crConv     *conversion.Converter
	crConvErr  error
	crConvDone bool
	// quotaWrites are the ResourceQuota status updates the ResourceQuota admission plugin made
	// (resourcequota.go): stored before the object, and even when the request then fails.
	quotaWrites []Write
	// initResources are, on a Pod write, its init containers' resources as the decoded object
	// spelled them, before the typed round trip wrote the quantities canonically: the Go type
	// keeps each quantity's representation, which NodeDeclaredFeatureValidator compares
	// (nodefeatures.go). Read only.
	initResources []map[string]any
	// svc is, on a Service write, what its allocation did to the IPAddresses (serviceBegin).
	svc *serviceTxn
	// prepare is the strategy's value reset and update validation of the write the field
	// manager recorded (manageUpdate, apply): kube-apiserver runs them in rest.BeforeCreate and
	// rest.BeforeUpdate, after mutating admission (finishCreate, finishUpdate). nil for writes
	// that reach the store without the field manager (/scale).
	prepare *strategyPrepare
}

// strategyPrepare is what the strategy does to a write after mutating admission.
type strategyPrepare struct {
	values   apply.Prepare
	validate apply.UpdateValidation
}

// internalError marks a failure of the world or of writepath itself: Handle returns it as err
// (and answers 500).
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

func worldError(err error, what string) error {
	return &internalError{err: fmt.Errorf("registry: World.%s: %w", what, err)}
}

// Handle answers req as kube-apiserver 1.37 answers it, over the state w shows, and returns the
// response and the writes to storage the request makes (none on dryRun=All; on an error
// response, none but the IPAddresses a failed Service write created and deleted again). A client-visible failure (400, 404, 409, 422, ...) is a Response carrying the
// metav1.Status with a nil err; err is non-nil only when w failed or the request could not be
// processed for a reason internal to the caller or to writepath, and the Response is then the
// 500 the apiserver would send. req and everything w returns are never modified.
func Handle(ctx context.Context, w World, req Request) (Response, []Write, error) {
	h := &handler{ctx: ctx, w: w, req: req}
	out, writes, err := h.handle()
	if err == nil && h.ep != nil {
		writes, err = h.writesInStorageVersion(writes)
	}
	var ie *internalError
	if errors.As(err, &ie) {
		resp := h.errorResponse(status.InternalError(ie.err))
		return resp, nil, ie.err
	}
	if err != nil {
		resp := h.errorResponse(err)
		if errors.Is(err, patch.ErrServerPanics) || errors.Is(err, merge.ErrServerPanics) {
			resp = h.errorResponse(status.InternalError(err))
			resp.Reset = true
		}
		resp.Audit = h.audit
		// A Service write that fails after its cluster IPs were allocated has created their
		// IPAddresses and deletes them again (the allocators' Revert): watchers see both. A
		// quota ResourceQuota admission charged stays charged (between the two).
		return resp, h.withQuotaWrites(h.revertWrites(), func(w Write) bool { return w.Delete }), nil
	}
	if h.dryRun {
		writes = nil
	}
	writes = h.withQuotaWrites(writes, func(w Write) bool { return w.Resource == h.ep.Resource })
	out.Warnings = headerWarnings(h.warnings)
	out.Audit = h.audit
	return out, writes, nil
}

// withQuotaWrites puts the quota status updates ResourceQuota admission made into writes, in
// the order the apiserver made them: before the first write after admission (the first that
// after says is one), or last.
func (h *handler) withQuotaWrites(writes []Write, after func(Write) bool) []Write {
	if len(h.quotaWrites) == 0 {
		return writes
	}
	i := len(writes)
	for j, w := range writes {
		if after(w) {
			i = j
			break
		}
	}
	out := make([]Write, 0, len(writes)+len(h.quotaWrites))
	out = append(out, writes[:i]...)
	out = append(out, h.quotaWrites...)
	return append(out, writes[i:]...)
}

func (h *handler) handle() (Response, []Write, error) {
	t := Target{Resource: h.req.Resource, Namespace: h.req.Namespace, Name: h.req.Name, Subresource: h.req.Subresource}
	h.query = url.Values{}
	if h.req.Path != "" {
		var q url.Values
		var err error
		if t, q, err = ParsePath(h.req.Path); err != nil {
			return Response{}, nil, err
		}
		for k, v := range q {
			h.query[k] = append(h.query[k], v...)
		}
	}
	for k, v := range h.req.Query {
		h.query[k] = append(h.query[k], v...)
	}
	if err := h.checkTimeout(); err != nil {
		return Response{}, nil, err
	}
	ep, err := resolve(h.ctx, h.w, t)
	if err != nil {
		return Response{}, nil, err
	}
	h.ep = ep
	// The version's deprecation warning comes first, whatever the request does.
	if w := ep.deprecationWarning(); w != "" {
		h.warnings = append(h.warnings, w)
	}
	if err := h.negotiateOutput(); err != nil {
		return Response{}, nil, err
	}
	if h.ep.reviewKind() != "" && !(strings.ToUpper(h.req.Method) == "POST" && t.Name == "") {
		// A review resource serves only a create on its collection: no item route at all.
		if t.Name != "" {
			return Response{}, nil, errNotFoundRoute()
		}
		return Response{}, nil, status.RouteError(405, "405: Method Not Allowed")
	}
	switch strings.ToUpper(h.req.Method) {
	case "GET":
		if t.Name == "" {
			return h.list()
		}
		return h.get()
	case "POST":
		if t.Name == "" {
			return h.create()
		}
		if t.Subresource == "binding" {
			return h.binding()
		}
	case "PUT":
		if t.Name != "" {
			return h.update()
		}
	case "PATCH":
		if t.Name != "" {
			return h.patch()
		}
	case "DELETE":
		if t.Name == "" {
			return h.deleteCollection()
		}
		if t.Subresource == "" {
			return h.delete()
		}
	}
	return Response{}, nil, status.RouteError(405, "405: Method Not Allowed")
}

// negotiateOutput checks the Accept header: JSON and YAML are served (protobuf and CBOR are not
// modelled and answer 406).
func (h *handler) negotiateOutput() error {
	a := strings.TrimSpace(h.req.Accept)
	if a == "" {
		return nil
	}
	for _, part := range strings.Split(a, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "application/yaml":
			if as := params["as"]; strings.HasPrefix(as, "PartialObjectMetadata") {
				if !h.acceptsPartial(as, params) {
					continue
				}
				h.partial, h.partialVersion = as, params["v"]
			}
			return nil
		case "*/*", "application/*":
			return nil
		}
	}
	// The negotiation failure is written by the apiserver's own fallback writer (responsewriters:
	// "406: Not Acceptable" and the representations the endpoint serves, a GET's including the
	// watch streams), not as a typed error.
	accepted := acceptedOutput(h.ep)
	if strings.EqualFold(h.req.Method, "GET") {
		for _, a := range acceptedOutput(h.ep) {
			if a != "application/yaml" {
				accepted = append(accepted, a+";stream=watch")
			}
		}
	}
	return &status.Error{Code: 406, Reason: status.ReasonNotAcceptable, Details: &status.Details{},
		Message: "406: Not Acceptable\n\nAvailable representations: " + strings.Join(accepted, ", ")}
}

func acceptedOutput(ep *endpoint) []string {
	if ep != nil && ep.crd != nil {
		return []string{"application/json", "application/yaml"}
	}
	return []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
}

// outputYAML reports whether the response is YAML: the first acceptable media type of Accept.
func (h *handler) outputYAML() bool {
	for _, part := range strings.Split(h.req.Accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/yaml":
			return true
		case "*/*", "application/*", "application/json":
			return false
		}
	}
	return false
}

// acceptsPartial is the apiserver's media type transform restriction for metadata-only output:
// PartialObjectMetadata or PartialObjectMetadataList of meta.k8s.io v1 or v1beta1. Another
// clause is not acceptable (negotiation goes on to the next).
func (h *handler) acceptsPartial(as string, params map[string]string) bool {
	return (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && params["g"] == "meta.k8s.io" &&
		(params["v"] == "v1" || params["v"] == "v1beta1")
}

// partialMismatch is the 406 the apiserver answers when the metadata-only kind asked for does
// not fit the answer (a list asked for as an object, or the reverse), naming the answer's
// internal Go type as it does (*core.ConfigMapList, *unstructured.Unstructured).
func (h *handler) partialMismatch(obj map[string]any) error {
	kind, _ := obj["kind"].(string)
	list := strings.HasSuffix(kind, "List") && obj["items"] != nil
	if list == (h.partial == "PartialObjectMetadataList") {
		return nil
	}
	typ := "*unstructured.Unstructured"
	if h.ep != nil && h.ep.crd == nil {
		pkg, _, _ := strings.Cut(h.ep.gvk.Group, ".")
		switch h.ep.gvk.Group {
		case "", "events.k8s.io":
			pkg = "core"
		case "internal.apiserver.k8s.io":
			pkg = "apiserverinternal"
		}
		typ = "*" + pkg + "." + strings.TrimSuffix(kind, "List")
	}
	msg := "you requested PartialObjectMetadata, but the requested object is a list (" + typ + "List)"
	if !list {
		msg = "you requested PartialObjectMetadataList, but the requested object is not a list (" + typ + ")"
	}
	return &status.Error{Code: 406, Reason: status.ReasonNotAcceptable, Message: msg}
}

// asPartial is the apiserver's asPartialObjectMetadata(List): the object's metadata alone, a
// list's items so and its list metadata kept. Items of an empty list are null, as the typed
// PartialObjectMetadataList encodes them.
func (h *handler) asPartial(obj map[string]any) map[string]any {
	av := "meta.k8s.io/" + h.partialVersion
	// The metadata is the internal object's (defaults.InternalMetadata).
	objAPIVersion, _ := obj["apiVersion"].(string)
	objKind, _ := obj["kind"].(string)
	if h.partial == "PartialObjectMetadata" {
		return map[string]any{"kind": "PartialObjectMetadata", "apiVersion": av, "metadata": defaults.InternalMetadata(objAPIVersion, objKind, obj["metadata"])}
	}
	itemKind := strings.TrimSuffix(objKind, "List")
	items, _ := obj["items"].([]any)
	var out []any
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, map[string]any{"kind": "PartialObjectMetadata", "apiVersion": av, "metadata": defaults.InternalMetadata(objAPIVersion, itemKind, m["metadata"])})
	}
	var itemsValue any
	if out != nil {
		itemsValue = out
	}
	md, _ := obj["metadata"].(map[string]any)
	lm := map[string]any{}
	for _, k := range []string{"resourceVersion", "continue", "remainingItemCount"} {
		if v, ok := md[k]; ok && v != "" {
			lm[k] = v
		}
	}
	return map[string]any{"kind": "PartialObjectMetadataList", "apiVersion": av, "metadata": lm, "items": itemsValue}
}

// respond encodes obj as the response body with code.
func (h *handler) respond(code int, obj map[string]any) (Response, error) {
	obj = h.decorate(obj)
	if h.partial != "" && !isStatus(obj) {
		if err := h.partialMismatch(obj); err != nil {
			return Response{}, err
		}
		obj = h.asPartial(obj)
	}
	r := Response{Code: code, Object: obj, ContentType: "application/json"}
	var err error
	if h.req.ObjectOnly {
		return r, nil
	}
	// The body leaves out the present-but-empty []byte fields Object keeps (emptybytes.go).
	obj = jsonView(obj)
	if h.outputYAML() {
		r.ContentType = "application/yaml"
		r.Body, err = codec.EncodeYAML(obj)
	} else if isStatus(obj) {
		r.Body, err = statusJSON(obj)
	} else {
		r.Body, err = codec.EncodeJSON(obj)
	}
	if err != nil {
		return Response{}, &internalError{err: fmt.Errorf("registry: encoding the response: %w", err)}
	}
	return r, nil
}

// errorResponse is the Status response of err.
func (h *handler) errorResponse(err error) Response {
	var st *status.Error
	if !errors.As(err, &st) {
		st = status.InternalError(err)
	}
	data, merr := st.MarshalJSON()
	if merr != nil {
		data = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`)
	}
	obj, _ := codec.DecodeObject(data)
	if st.StatusCode() == 406 {
		// That fallback writer indents its Status (recorded: errors/not-acceptable).
		var b bytes.Buffer
		if json.Indent(&b, data, "", "  ") == nil {
			data = b.Bytes()
		}
	}
	r := Response{Code: st.StatusCode(), Body: data, Object: obj, ContentType: "application/json", Warnings: headerWarnings(h.warnings)}
	var page *pageNotFound
	if errors.As(err, &page) {
		r.Body, r.ContentType = []byte("404 page not found\n"), "text/plain; charset=utf-8"
		return r
	}
	if h.outputYAML() {
		if y, err := codec.EncodeYAML(obj); err == nil {
			r.Body, r.ContentType = y, "application/yaml"
		}
	}
	return r
}

// headerWarnings turns warning texts into Warning header values as the apiserver's recorder
// writes them (deduplicated and truncated; k8s.io/apimachinery's NewWarningHeader quoting).
func headerWarnings(texts []string) []string {
	var out []string
	for _, t := range admission.ResponseWarnings(texts) {
		var b strings.Builder
		b.WriteString(`299 - "`)
		for _, r := range t {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		out = append(out, b.String())
	}
	return out
}

// WarningText returns the text of a Warning header value Handle produced.
func WarningText(header string) string {
	s := strings.TrimPrefix(header, `299 - `)
	s = strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isStatus(obj map[string]any) bool {
	return obj["kind"] == "Status" && obj["apiVersion"] == "v1"
}

// successStatus is metav1.Status in its Go field order, the order the apiserver writes a Status
// answer in (a successful DELETE, a binding): clients see these bytes.
type successStatus struct {
	Kind       string         `json:"kind,omitempty"`
	APIVersion string         `json:"apiVersion,omitempty"`
	Metadata   map[string]any `json:"metadata"`
	Status     string         `json:"status,omitempty"`
	Message    string         `json:"message,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Details    *struct {
		Name   string `json:"name,omitempty"`
		Group  string `json:"group,omitempty"`
		Kind   string `json:"kind,omitempty"`
		UID    string `json:"uid,omitempty"`
		Causes []struct {
			Reason  string `json:"reason,omitempty"`
			Message string `json:"message,omitempty"`
			Field   string `json:"field,omitempty"`
		} `json:"causes,omitempty"`
		RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty"`
	} `json:"details,omitempty"`
	Code int32 `json:"code,omitempty"`
}

func statusJSON(obj map[string]any) ([]byte, error) {
	b, err := codec.EncodeJSON(obj)
	if err != nil {
		return nil, err
	}
	var st successStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	if st.Metadata == nil {
		st.Metadata = map[string]any{}
	}
	return json.Marshal(st)
}

// checkTimeout is the request deadline filter (k8s.io/apiserver pkg/endpoints/filters
// request_deadline.go), before routing: the timeout parameter of a request that is not a watch
// must be a Go duration (400 "invalid timeout specified in the request URL - time: invalid
// duration ..."). The deadline itself is not modelled: Handle does not wait.
func (h *handler) checkTimeout() error {
	v := h.query.Get("timeout")
	if v == "" || strings.EqualFold(h.req.Method, "GET") && queryBool(h.query["watch"]) {
		return nil
	}
	if _, err := time.ParseDuration(v); err != nil {
		return status.BadRequest("invalid timeout specified in the request URL - " + err.Error())
	}
	return nil
}
