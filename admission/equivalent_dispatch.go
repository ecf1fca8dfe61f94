package admission

import (
	"fmt"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// convertTo is ConvertToGVK: obj (of req's kind) converted to kind; obj
// itself when it already is of that kind. nil stays nil.
func (c *Chain) convertTo(obj map[string]any, from, to schema.GroupVersionKind) (map[string]any, error) {
	if obj == nil || from == to {
		return obj, nil
	}
	return c.converter().Convert(obj, from, to)
}

// versioned is NewVersionedAttributes: r's object and old object converted
// to the kind of as, in place (r is the caller's copy).
func (c *Chain) versioned(r *Request, as matchedAs) error {
	if as.kind == r.Kind {
		return nil
	}
	old, err := c.convertTo(r.OldObject, r.Kind, as.kind)
	if err != nil {
		return err
	}
	obj, err := c.convertTo(r.Object, r.Kind, as.kind)
	if err != nil {
		return err
	}
	r.OldObject, r.Object = old, obj
	return nil
}

// versionForHook prepares the request a webhook is sent: r's objects
// converted to the kind w matched r as (its own kind under an exact match).
// A conversion failure is the dispatcher's 500.
func (c *Chain) versionForHook(w *webhook, r *Request) (matchedAs, error) {
	ok, as, err := c.webhookMatch(w, r)
	if err != nil {
		return as, err
	}
	if !ok {
		as = matchedAs{resource: r.Resource, kind: r.Kind}
	}
	if err := c.versioned(r, as); err != nil {
		return as, status.InternalError(err)
	}
	return as, nil
}

// reviewAs is the AdmissionReview request body for r matched as as: kind,
// resource and subResource the matched ones, requestKind, requestResource and
// requestSubResource the request's (CreateV1AdmissionReview with a
// WebhookInvocation).
func reviewAs(r *Request, as matchedAs, uid string) ([]byte, error) {
	return codec.EncodeJSON(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
		"request": reviewRequest(r, as.kind, as.resource, r.SubResource, uid)})
}

// valuesAs is requestValues for a request matched as as: object and
// oldObject converted to its kind, request.kind that kind and
// request.resource res (policies' validations and mutations see the matched
// resource, match conditions the request's: requestValues.matchRequest).
func (c *Chain) valuesAs(req *Request, obj map[string]any, as matchedAs, res schema.GroupVersionResource) (*requestValues, error) {
	r := *req
	r.Object = obj
	if err := c.versioned(&r, as); err != nil {
		return nil, err
	}
	return c.valuesAt(&r, r.Object, as.kind, res), nil
}

// valuesAt is requestValues for vr, whose objects are already of kind: the
// `request` variable says kind and res (CreateAdmissionRequest with the
// equivalent kind and resource), requestKind and requestResource the
// request's.
func (c *Chain) valuesAt(vr *Request, obj map[string]any, kind schema.GroupVersionKind, res schema.GroupVersionResource) *requestValues {
	rv := c.requestValues(vr, obj)
	if kind == vr.Kind && res == vr.Resource {
		return rv
	}
	cr := *vr
	cr.Object, cr.OldObject = nil, nil
	m := reviewRequest(&cr, kind, res, vr.SubResource, "")
	delete(m, "object")
	delete(m, "oldObject")
	rv.request = celValue(m)
	if res != vr.Resource {
		mm := reviewRequest(&cr, kind, vr.Resource, vr.SubResource, "")
		delete(mm, "object")
		delete(mm, "oldObject")
		rv.matchRequest = celValue(mm)
	}
	return rv
}

// vapValues is the validating policy dispatcher's versioned attributes: the
// CEL values of r at the kind the policy matched it as, made on first use
// (when a binding has params to validate with) and shared by the policies
// matching as the same kind and resource.
func (c *Chain) vapValues(r *Request, obj map[string]any, as matchedAs, cache map[matchedAs]*requestValues, params int) (*requestValues, error) {
	if rv, ok := cache[as]; ok {
		return rv, nil
	}
	if params == 0 {
		return nil, nil
	}
	rv, err := c.valuesAs(r, obj, as, as.resource)
	if err != nil {
		return nil, fmt.Errorf("failed to convert object version: %w", err)
	}
	cache[as] = rv
	return rv, nil
}

// convertOnto is convertTo for the conversion back of a webhook's or policy's
// result obj (of kind from) into base, the request's object (of kind to)
// before the webhook or policy ran.
func (c *Chain) convertOnto(obj, base map[string]any, from, to schema.GroupVersionKind) (map[string]any, error) {
	if obj == nil || from == to {
		return obj, nil
	}
	if oc, ok := c.converter().(schema.OntoConverter); ok {
		return oc.ConvertOnto(obj, base, from, to)
	}
	return c.converter().Convert(obj, from, to)
}

// unversionOnto converts a webhook's result obj, of the kind matched as,
// back to the request's kind, into base, the request's object before the
// webhook ran (as the dispatchers do); a failure is a 500.
func (c *Chain) unversionOnto(req *Request, as matchedAs, obj, base map[string]any) (map[string]any, error) {
	if as.kind == req.Kind || obj == nil {
		return obj, nil
	}
	out, err := c.convertOnto(obj, base, as.kind, req.Kind)
	if err != nil {
		return nil, status.InternalError(err)
	}
	return out, nil
}
