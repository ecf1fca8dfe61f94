package conversion

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"sort"
	"strings"

	kjson "sigs.k8s.io/json"

	wirev1 "github.com/writepath/writepath/conversion/internal/wire/v1"
	wirev1beta1 "github.com/writepath/writepath/conversion/internal/wire/v1beta1"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Caller sends one ConversionReview (the JSON request body the apiserver sends) to a
// conversion webhook and returns its HTTP answer. An error is a failure to talk to the
// webhook (connection, TLS, timeout); the converter reports it as the apiserver does
// ("conversion webhook for <gvk> failed: <err>").
type Caller interface {
	Call(ctx context.Context, body []byte) (*Response, error)
}

// Response is a webhook's HTTP answer.
type Response struct {
	StatusCode int
	// ContentType is the Content-Type header ("" when absent).
	ContentType string
	// RetryAfter is the Retry-After header in seconds (0 when absent).
	RetryAfter int
	Body       []byte
}

// Review is a ConversionReview request as the apiserver builds it.
type Review struct {
	// APIVersion is apiextensions.k8s.io/v1 or apiextensions.k8s.io/v1beta1: the first of the
	// CRD's conversionReviewVersions the apiserver knows.
	APIVersion        string
	UID               string
	DesiredAPIVersion string
	// Objects are the objects to convert, as sent (not copies: do not modify).
	Objects []map[string]any
}

// reviewWire is the JSON shape of a ConversionReview request: field order, the empty response
// stanza and encoding/json's escaping are those of the apiserver's client.
type reviewWire struct {
	Kind       string       `json:"kind,omitempty"`
	APIVersion string       `json:"apiVersion,omitempty"`
	Request    *requestWire `json:"request,omitempty"`
	Response   *emptyResp   `json:"response,omitempty"`
}

type requestWire struct {
	UID               string           `json:"uid"`
	DesiredAPIVersion string           `json:"desiredAPIVersion"`
	Objects           []map[string]any `json:"objects"`
}

type emptyResp struct {
	UID              string  `json:"uid"`
	ConvertedObjects []any   `json:"convertedObjects"`
	Result           statusW `json:"result"`
}

type statusW struct {
	Metadata struct{} `json:"metadata"`
}

// Marshal returns the request body the apiserver sends for r (encoding/json, as its client's
// serializer writes it, with the trailing newline).
func (r *Review) Marshal() ([]byte, error) {
	w := reviewWire{Kind: "ConversionReview", APIVersion: r.APIVersion,
		Request:  &requestWire{UID: r.UID, DesiredAPIVersion: r.DesiredAPIVersion, Objects: r.Objects},
		Response: &emptyResp{}}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(w); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseReview decodes a ConversionReview request body (what a webhook receives).
func ParseReview(body []byte) (*Review, error) {
	var w struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Request    *struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &w); err != nil {
		return nil, err
	}
	if w.Kind != "ConversionReview" || (w.APIVersion != reviewV1 && w.APIVersion != reviewV1beta1) {
		return nil, fmt.Errorf("expected a ConversionReview of %s or %s, got apiVersion %q kind %q", reviewV1, reviewV1beta1, w.APIVersion, w.Kind)
	}
	if w.Request == nil {
		return nil, errors.New("the ConversionReview has no request")
	}
	return &Review{APIVersion: w.APIVersion, UID: w.Request.UID, DesiredAPIVersion: w.Request.DesiredAPIVersion, Objects: w.Request.Objects}, nil
}

const (
	reviewV1      = "apiextensions.k8s.io/v1"
	reviewV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// ResponseBody builds the body of a ConversionReview response to r: converted objects on
// success (err nil), a Failure result with err's message otherwise.
func (r *Review) ResponseBody(converted []map[string]any, err error) ([]byte, error) {
	result := map[string]any{"status": "Success"}
	if err != nil {
		result = map[string]any{"status": "Failure", "message": err.Error()}
		converted = nil
	}
	objs := make([]any, len(converted))
	for i, o := range converted {
		objs[i] = o
	}
	return json.Marshal(map[string]any{"apiVersion": r.APIVersion, "kind": "ConversionReview",
		"response": map[string]any{"uid": r.UID, "convertedObjects": objs, "result": result}})
}

// newUID derives a request uid from the request (a version-5-style UUID of its content), so
// that the same conversion gives the same bytes without randomness.
func newUID(desired string, objs []map[string]any) string {
	h := sha256.New()
	h.Write([]byte(desired))
	for _, o := range objs {
		b, _ := json.Marshal(o)
		h.Write(b)
	}
	s := h.Sum(nil)
	s[6] = (s[6] & 0x0f) | 0x50
	s[8] = (s[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

func isEmptyObject(m map[string]any) bool {
	if len(m) != 2 {
		return false
	}
	_, k := m["kind"]
	_, a := m["apiVersion"]
	return k && a
}

func (c *Converter) webhookConvert(in map[string]any, items []any, isList bool, to schema.GroupVersion) (map[string]any, error) {
	if !isList && isEmptyObject(in) {
		return nopConvert(in, nil, to), nil
	}
	inGVK := gvkOf(in)
	desired := to.String()
	var objs []map[string]any
	if isList {
		for _, it := range items {
			m, _ := it.(map[string]any)
			if av, _ := m["apiVersion"].(string); av != desired {
				if m == nil {
					m = map[string]any{}
				}
				objs = append(objs, m)
			}
		}
	} else if inGVK.GroupVersion().String() != desired {
		objs = []map[string]any{in}
	}
	var reviewVersion string
	for _, v := range c.crd.Webhook.ConversionReviewVersions {
		if v == "v1beta1" || v == "v1" {
			reviewVersion = "apiextensions.k8s.io/" + v
			break
		}
	}
	if reviewVersion == "" {
		return nil, errorf("no supported conversion review versions")
	}
	if len(objs) == 0 {
		if !isList {
			return in, nil
		}
		in["apiVersion"] = desired
		return in, nil
	}
	uid := ""
	if c.uid != nil {
		uid = c.uid()
	} else {
		uid = newUID(desired, objs)
	}
	review := &Review{APIVersion: reviewVersion, UID: uid, DesiredAPIVersion: desired, Objects: objs}
	body, err := review.Marshal()
	if err != nil {
		return nil, &Error{Err: err}
	}
	resp, err := c.caller.Call(c.ctx, body)
	if err != nil {
		return nil, errorf("conversion webhook for %v failed: %v", inGVK, err)
	}
	converted, err := decodeResponse(resp, reviewVersion, uid)
	if err != nil {
		return nil, errorf("conversion webhook for %v failed: %v", inGVK, err)
	}
	if len(converted) != len(objs) {
		return nil, errorf("conversion webhook for %v returned %d objects, expected %d", inGVK, len(converted), len(objs))
	}
	if isList {
		idx := 0
		for i, it := range items {
			orig, _ := it.(map[string]any)
			if av, _ := orig["apiVersion"].(string); av == desired {
				continue
			}
			if orig == nil {
				orig = map[string]any{}
			}
			out, err := decodeConverted(converted[idx])
			if err != nil {
				return nil, errorf("conversion webhook for %v returned invalid converted object at index %v: %v", inGVK, idx, err)
			}
			og := gvkOf(out)
			if og.GroupVersion() != to {
				return nil, errorf("conversion webhook for %v returned invalid converted object at index %v: invalid groupVersion (expected %v, received %v)", inGVK, idx, to.String(), og.GroupVersion().String())
			}
			if e := gvkOf(orig).Kind; e != og.Kind {
				return nil, errorf("conversion webhook for %v returned invalid converted object at index %v: invalid kind (expected %v, received %v)", inGVK, idx, e, og.Kind)
			}
			if err := validateConverted(orig, out); err != nil {
				return nil, errorf("conversion webhook for %v returned invalid converted object at index %v: %v", inGVK, idx, err)
			}
			if err := restoreMeta(orig, out); err != nil {
				return nil, errorf("conversion webhook for %v returned invalid metadata in object at index %v: %v", inGVK, idx, err)
			}
			idx++
			items[i] = out
		}
		in["apiVersion"] = desired
		return in, nil
	}
	out, err := decodeConverted(converted[0])
	if err != nil {
		return nil, &Error{Err: err}
	}
	og := gvkOf(out)
	if og.GroupVersion() != to {
		return nil, errorf("conversion webhook for %v returned invalid object at index 0: invalid groupVersion (expected %v, received %v)", inGVK, to.String(), og.GroupVersion().String())
	}
	if inGVK.Kind != og.Kind {
		return nil, errorf("conversion webhook for %v returned invalid object at index 0: invalid kind (expected %v, received %v)", inGVK, inGVK.Kind, og.Kind)
	}
	if err := validateConverted(in, out); err != nil {
		return nil, errorf("conversion webhook for %v returned invalid object: %v", inGVK, err)
	}
	if err := restoreMeta(in, out); err != nil {
		return nil, errorf("conversion webhook for %v returned invalid metadata: %v", inGVK, err)
	}
	return out, nil
}

// maxUnstructuredResponseText is client-go's cap on an error body quoted in a message.
const maxUnstructuredResponseText = 2048

// decodeResponse reads the webhook's answer as the apiserver's REST client and
// getConvertedObjectsFromResponse do.
func decodeResponse(resp *Response, reviewVersion, uid string) ([][]byte, error) {
	if resp == nil {
		return nil, errors.New("no response")
	}
	ct := resp.ContentType
	if ct == "" {
		ct = "application/json"
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return nil, status.InternalError(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 206 {
		body := resp.Body
		if len(body) > maxUnstructuredResponseText {
			body = body[:maxUnstructuredResponseText]
		}
		msg := "unknown"
		if isText(resp.ContentType) {
			msg = strings.TrimSpace(string(body))
		}
		if st, ok := failureStatus(resp.Body); ok {
			return nil, errors.New(st)
		}
		return nil, status.GenericServerResponse(resp.StatusCode, "POST", status.GroupResource{}, "", msg, resp.RetryAfter, true)
	}
	if len(resp.Body) == 0 {
		return nil, fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, ct)
	}
	findKind := struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(resp.Body, &findKind); err != nil {
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	gv, err := schema.ParseAPIVersion(findKind.APIVersion)
	if err != nil {
		return nil, err
	}
	// The client decodes into the review type it sent; another kind or version of the
	// apiextensions group does not decode into it.
	if (findKind.Kind != "" && findKind.Kind != "ConversionReview") || (gv.Group != "" && gv.Group != "apiextensions.k8s.io") ||
		(!gv.Empty() && gv.String() != reviewVersion && gv.Version != "") {
		got := gv.WithKind(findKind.Kind)
		if got.Kind == "" {
			got.Kind = "ConversionReview"
		}
		if got.Version == "" {
			got.Version = strings.TrimPrefix(reviewVersion, "apiextensions.k8s.io/")
		}
		// kinds the client's scheme knows decode, then fail to convert into the review type.
		if got.Group == "apiextensions.k8s.io" && (got.Version == "v1" || got.Version == "v1beta1") &&
			(got.Kind == "ConversionReview" || got.Kind == "CustomResourceDefinition" || got.Kind == "CustomResourceDefinitionList") {
			return nil, fmt.Errorf("converting (%s.%s) to (%s.ConversionReview): unknown conversion", got.Version, got.Kind, strings.TrimPrefix(reviewVersion, "apiextensions.k8s.io/"))
		}
		// the scheme's name is where the apiserver's webhook client created it.
		return nil, fmt.Errorf("no kind %q is registered for version %q in scheme %q", got.Kind, got.GroupVersion().String(), "pkg/runtime/scheme.go:111")
	}
	// decoded into the review type sent, as the REST client does: type mismatches fail with the
	// same words (package wire mirrors the apiserver's types).
	var uidGot, status, message string
	var hasResponse bool
	var converted [][]byte
	if reviewVersion == reviewV1 {
		var w wirev1.ConversionReview
		if err := kjson.UnmarshalCaseSensitivePreserveInts(resp.Body, &w); err != nil {
			return nil, err
		}
		if w.Kind != "ConversionReview" || w.APIVersion != reviewV1 {
			got, _ := schema.ParseAPIVersion(w.APIVersion)
			return nil, fmt.Errorf("expected webhook response of %v, got %v", schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "ConversionReview"}, got.WithKind(w.Kind))
		}
		if w.Response != nil {
			hasResponse = true
			uidGot, status, message = string(w.Response.UID), w.Response.Result.Status, w.Response.Result.Message
			for _, o := range w.Response.ConvertedObjects {
				converted = append(converted, o.Raw)
			}
		}
		if !hasResponse {
			return nil, errors.New("no response provided")
		}
		if uidGot != uid {
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, uidGot)
		}
	} else {
		// v1beta1 answers are checked neither for their kind nor their uid.
		var w wirev1beta1.ConversionReview
		if err := kjson.UnmarshalCaseSensitivePreserveInts(resp.Body, &w); err != nil {
			return nil, err
		}
		if w.Response == nil {
			return nil, errors.New("no response provided")
		}
		status, message = w.Response.Result.Status, w.Response.Result.Message
		for _, o := range w.Response.ConvertedObjects {
			converted = append(converted, o.Raw)
		}
	}
	if status != "Success" {
		if message != "" {
			return nil, errors.New(message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", status)
	}
	if converted == nil {
		converted = [][]byte{}
	}
	return converted, nil
}

func isText(contentType string) bool {
	if contentType == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && strings.HasPrefix(media, "text/")
}

// failureStatus reports the message of a metav1.Status with status Failure in body (what the
// REST client prefers over its generic text for an error response).
func failureStatus(body []byte) (string, bool) {
	if len(body) == 0 {
		return "", false
	}
	var st struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Status     string `json:"status"`
		Message    string `json:"message"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &st); err != nil {
		return "", false
	}
	if st.Kind != "Status" || (st.APIVersion != "" && st.APIVersion != "v1") || st.Status != "Failure" {
		return "", false
	}
	return st.Message, true
}

// decodeConverted decodes one converted object as unstructured.Unstructured does.
func decodeConverted(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return nil, err
	}
	if k, _ := m["kind"].(string); k == "" {
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", string(raw))
	}
	return m, nil
}

func metaString(obj map[string]any, key string) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md[key].(string)
	return s
}

// validateConverted is the apiserver's validateConvertedObject: kind, name, namespace and uid
// must not change.
func validateConverted(in, out map[string]any) error {
	ik, _ := in["kind"].(string)
	ok, _ := out["kind"].(string)
	if ik != ok {
		return fmt.Errorf("must have the same kind: %v != %v", ik, ok)
	}
	for _, f := range []struct{ key, name string }{{"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}} {
		if e, a := metaString(in, f.key), metaString(out, f.key); e != a {
			return fmt.Errorf("must have the same %s: %v != %v", f.name, e, a)
		}
	}
	return nil
}

// restoreMeta is the apiserver's restoreObjectMeta: the converted object gets the original's
// metadata, except labels and annotations, which are taken from the webhook's answer (and
// validated if they changed).
func restoreMeta(original, converted map[string]any) error {
	x, found := converted["metadata"]
	if !found {
		return errors.New("missing metadata in converted object")
	}
	respMeta, ok := x.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %s in converted object", fmt.Sprintf("%T", x))
	}
	var md map[string]any
	if om, ok := original["metadata"]; !ok {
		md = map[string]any{}
	} else {
		cp, err := value.DeepCopy(om)
		if err != nil {
			return err
		}
		m, ok := cp.(map[string]any)
		if !ok {
			converted["metadata"] = cp
			return fmt.Errorf("invalid metadata of type %s in input object", fmt.Sprintf("%T", cp))
		}
		md = m
	}
	converted["metadata"] = md
	for _, fld := range []string{"labels", "annotations"} {
		x, found := respMeta[fld]
		if !found || x == nil {
			delete(md, fld)
			continue
		}
		respField, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %s in converted object", fld, fmt.Sprintf("%T", x))
		}
		origField, ok := md[fld].(map[string]any)
		if !ok && md[fld] != nil {
			return fmt.Errorf("invalid metadata.%s of type %s in original object", fld, fmt.Sprintf("%T", md[fld]))
		}
		changed := len(origField) != len(respField)
		for _, k := range sortedAnyKeys(respField) {
			v := respField[k]
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %s in converted object", fld, k, fmt.Sprintf("%T", v))
			}
			if o, ok := origField[k].(string); !ok || o != s {
				changed = true
			}
		}
		if changed {
			sm := make(map[string]string, len(respField))
			for k, v := range respField {
				sm[k] = v.(string)
			}
			var errs field.ErrorList
			if fld == "labels" {
				errs = schema.ValidateLabels(sm, field.NewPath("metadata", "labels"))
			} else {
				errs = schema.ValidateAnnotations(sm, field.NewPath("metadata", "annotation"))
			}
			if len(errs) > 0 {
				return errs.ToAggregate()
			}
		}
		md[fld] = respField
	}
	return nil
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
