package registry

import (
	"sort"
	"strconv"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// get is GET on an object or a subresource (handlers/get.go).
func (h *handler) get() (Response, []Write, error) {
	ep := h.ep
	if ep.namespaced && ep.Namespace == "" {
		return Response{}, nil, errNotFoundRoute()
	}
	if err := parseReadResourceVersion(h.query.Get("resourceVersion")); err != nil {
		return Response{}, nil, err
	}
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	switch ep.Subresource {
	case "", "status", "ephemeralcontainers", "resize":
	case "scale":
		s, err := h.scaleAnswer(live)
		if err != nil {
			return Response{}, nil, status.InternalError(err)
		}
		live = s
	default:
		return Response{}, nil, status.RouteError(405, "405: Method Not Allowed")
	}
	resp, err := h.respond(200, live)
	return resp, nil, err
}

// parseReadResourceVersion is the watch cache's ParseResourceVersion of a get's or a watch's
// resourceVersion: one that is not a decimal number is a storage InvalidError, which the
// handler answers as an error it does not know, 500 with the error's text and no reason.
func parseReadResourceVersion(rv string) error {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return &status.Error{Code: 500, Message: field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}.ToAggregate().Error()}
	}
	return nil
}

// ParseWatchResourceVersion is parseReadResourceVersion for a watch's resourceVersion, which
// the caller (cluster) serves.
func ParseWatchResourceVersion(rv string) error { return parseReadResourceVersion(rv) }

func sortObjects(items []map[string]any) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := metaString(items[i], "namespace"), metaString(items[j], "namespace")
		if a != b {
			return a < b
		}
		return metaString(items[i], "name") < metaString(items[j], "name")
	})
}

// listOf is the List answer: built-in lists carry their items without apiVersion and kind (the
// typed list's items are internal objects, encoded without TypeMeta); a custom resource list
// keeps them and carries metadata.continue "" as the unstructured list does.
func (h *handler) listOf(items []map[string]any) map[string]any {
	ep := h.ep
	md := map[string]any{"resourceVersion": ""}
	out := make([]any, 0, len(items))
	for _, it := range items {
		if ep.crd == nil {
			it = shallow(it)
			delete(it, "apiVersion")
			delete(it, "kind")
		}
		out = append(out, it)
	}
	if ep.crd != nil {
		md["continue"] = ""
	}
	return map[string]any{
		"apiVersion": ep.gvk.GroupVersion().String(),
		"kind":       ep.gvk.Kind + "List",
		"metadata":   md,
		"items":      out,
	}
}
