package registry

import (
	"context"
	"errors"
	"strconv"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/fields"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// ListOptions are what a list request asks of a World that reads lists a page at a time at a
// resourceVersion (a Pager), already validated as the apiserver validates them
// (metainternalversion/validation.ValidateListOptions).
type ListOptions struct {
	// ResourceVersion and ResourceVersionMatch are the request's: "" is the most recent state
	// (a consistent read), "0" any state, N with Match "NotOlderThan" (or no Match) a state at
	// least as new as N, N with "Exact" the state at N.
	ResourceVersion      string
	ResourceVersionMatch string
	// Limit bounds the items of the page (0: no limit); Continue is the token of a previous page.
	Limit    int64
	Continue string
	// Keep reports whether a stored object is selected (the label and field selectors); the page
	// holds Limit selected objects. Nil keeps everything.
	Keep func(stored map[string]any) (bool, error)
	// Everything is true when there are no selectors: only then does the page count the items
	// remaining after it (remainingItemCount), as the apiserver does.
	Everything bool
}

// ListPage is one page of a list: the stored objects in key order, the resourceVersion it was
// read at, the continue token of the next page ("" for the last page) and, when known, how many
// items remain after it.
type ListPage struct {
	Items              []map[string]any
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// Pager is a World that serves list resourceVersion semantics and pagination. Its errors that a
// client sees (410 Expired, 400 invalid continue token, 504 too large resourceVersion) are
// *status.Error values, returned as the response; a World without it answers every list with
// the current state in one page and an empty resourceVersion.
type Pager interface {
	ListPage(ctx context.Context, r schema.GroupVersionResource, namespace string, opts ListOptions) (ListPage, error)
}

// Selection is the label and field selection of a list or watch request, for a caller that
// filters watch events the way the list was filtered.
type Selection struct {
	labels   labels.Selector
	fields   fields.Selector
	fieldSet func(obj map[string]any) map[string]string
}

// Everything reports whether the selection keeps every object.
func (s Selection) Everything() bool { return s.labels.Empty() && s.fields.Empty() }

// Matches reports whether obj (in the request's version) is selected.
func (s Selection) Matches(obj map[string]any) bool {
	if !s.labels.MatchesObject(obj) {
		return false
	}
	return s.fields.Empty() || s.fields.Matches(s.fieldSet(obj))
}

// list is GET on a collection (handlers/get.go ListResource): the selectors parsed and the list
// options validated as the apiserver does, then the World's objects in key order, selected.
func (h *handler) list() (Response, []Write, error) {
	ep := h.ep
	sel, err := h.selection()
	if err != nil {
		return Response{}, nil, err
	}
	opts, err := h.listOptions(false)
	if err != nil {
		return Response{}, nil, err
	}
	var items []map[string]any
	md := map[string]any{"resourceVersion": ""}
	if p, ok := h.w.(Pager); ok {
		opts.Everything = sel.Everything()
		if !opts.Everything {
			opts.Keep = func(stored map[string]any) (bool, error) {
				c, err := h.toRequestVersion(stored)
				if err != nil {
					// kept: the list below answers the conversion's failure.
					return h.ep.crd != nil, nil
				}
				return sel.Matches(c), nil
			}
		}
		page, err := p.ListPage(h.ctx, ep.Resource, ep.Namespace, opts)
		if err != nil {
			var se *status.Error
			if errors.As(err, &se) {
				return Response{}, nil, se
			}
			return Response{}, nil, worldError(err, "ListPage")
		}
		items = page.Items
		md["resourceVersion"] = page.ResourceVersion
		if page.Continue != "" {
			md["continue"] = page.Continue
		}
		if page.RemainingItemCount != nil {
			md["remainingItemCount"] = *page.RemainingItemCount
		}
	} else {
		objs, err := h.w.List(h.ctx, ep.Resource, ep.Namespace)
		if err != nil {
			return Response{}, nil, worldError(err, "List")
		}
		items = objs
		sortObjects(items)
	}
	out := make([]map[string]any, 0, len(items))
	var failures []conversion.ListFailure
	for _, o := range items {
		if ep.crd != nil {
			// The storage decodes every item and answers all the failures at once.
			c, err := h.crFromStorage(o)
			if err != nil {
				failures = append(failures, conversion.ListFailure{Key: h.crStorageKey(o, true), Revision: storedRevision(o), Err: err})
				continue
			}
			if _, paged := h.w.(Pager); !paged && !sel.Matches(c) {
				continue
			}
			out = append(out, c)
			continue
		}
		c, err := h.toRequestVersion(o)
		if err != nil {
			return Response{}, nil, err
		}
		if _, paged := h.w.(Pager); !paged && !sel.Matches(c) {
			continue
		}
		out = append(out, c)
	}
	if len(failures) > 0 {
		return Response{}, nil, conversion.ListReadError(ep.crd.Names.Plural, ep.crd.Group, failures)
	}
	list := h.listOf(out)
	if ep.crd != nil && md["continue"] == nil {
		md["continue"] = ""
	}
	list["metadata"] = md
	resp, err := h.respond(200, list)
	resp.Selection = sel
	return resp, nil, err
}

// selection parses labelSelector and fieldSelector (400 with the parsers' words) and converts
// the field labels as the kind's conversion does (400 for a label the kind does not support).
func (h *handler) selection() (Selection, error) {
	var s Selection
	if raw := h.query.Get("labelSelector"); raw != "" {
		sel, err := labels.Parse(raw)
		if err != nil {
			return s, status.BadRequest(err.Error())
		}
		s.labels = sel
	}
	raw := h.query.Get("fieldSelector")
	fsel, err := fields.Parse(raw)
	if err != nil {
		return s, status.BadRequest(err.Error())
	}
	ep := h.ep
	if ep.crd != nil {
		version := ep.gvk.Version
		s.fieldSet = func(obj map[string]any) map[string]string { return schema.CRDSelectableFields(ep.crd, version, obj) }
		fsel, err = fsel.Transform(func(f, v string) (string, string, error) {
			l, err := schema.ConvertCRDFieldLabel(ep.crd, version, f)
			return l, v, err
		})
	} else {
		gvk, namespaced := ep.gvk, ep.namespaced
		s.fieldSet = func(obj map[string]any) map[string]string { return schema.SelectableFields(gvk, namespaced, obj) }
		fsel, err = fsel.Transform(func(f, v string) (string, string, error) {
			l, err := schema.ConvertFieldLabel(gvk, f)
			return l, v, err
		})
	}
	if err != nil {
		return s, status.BadRequest(err.Error())
	}
	s.fields = fsel
	return s, nil
}

// listOptions reads and validates resourceVersion, resourceVersionMatch, limit, continue and
// sendInitialEvents as ValidateListOptions does (422 Invalid ListOptions.meta.k8s.io).
func (h *handler) listOptions(watch bool) (ListOptions, error) {
	q := h.query
	opts := ListOptions{ResourceVersion: q.Get("resourceVersion"), ResourceVersionMatch: q.Get("resourceVersionMatch"), Continue: q.Get("continue")}
	// The query decoder converts timeoutSeconds before limit (ListOptions' field order).
	if raw := q.Get("timeoutSeconds"); raw != "" {
		if _, err := strconv.ParseInt(raw, 10, 64); err != nil {
			return opts, status.BadRequest(err.Error())
		}
	}
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return opts, status.BadRequest(err.Error())
		}
		if n > 0 {
			opts.Limit = n
		}
	}
	_, hasInitial := q["sendInitialEvents"]
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	if !watch {
		if match != "" {
			if opts.ResourceVersion == "" {
				errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if opts.Continue != "" {
				errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != "Exact" && match != "NotOlderThan" {
				errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), match, []string{"Exact", "NotOlderThan", ""}))
			}
			if match == "Exact" && opts.ResourceVersion == "0" {
				errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
			}
		}
		if hasInitial {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
		}
	}
	if len(errs) > 0 {
		return opts, status.Invalid(status.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", errs)
	}
	return opts, nil
}
