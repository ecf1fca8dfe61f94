package registry

import (
	"sort"

	"github.com/writepath/writepath/status"
)

// get is GET on an object or a subresource (handlers/get.go).
func (h *handler) get() (Response, []Write, error) {
	ep := h.ep
	if ep.namespaced && ep.Namespace == "" {
		return Response{}, nil, errNotFoundRoute()
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
		s, err := h.scaleOf(live)
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

// list is GET on a collection: the stored objects sorted by namespace and name, as etcd's key
// order returns them. The list's resourceVersion is not modelled (left empty).
func (h *handler) list() (Response, []Write, error) {
	ep := h.ep
	objs, err := h.w.List(h.ctx, ep.Resource, ep.Namespace)
	if err != nil {
		return Response{}, nil, worldError(err, "List")
	}
	items := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		c, err := h.toRequestVersion(o)
		if err != nil {
			return Response{}, nil, err
		}
		items = append(items, c)
	}
	sortObjects(items)
	list := map[string]any{
		"apiVersion": ep.gvk.GroupVersion().String(),
		"kind":       ep.gvk.Kind + "List",
		"metadata":   map[string]any{"resourceVersion": ""},
		"items":      toAny(items),
	}
	resp, err := h.respond(200, list)
	return resp, nil, err
}

func sortObjects(items []map[string]any) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := metaString(items[i], "namespace"), metaString(items[j], "namespace")
		if a != b {
			return a < b
		}
		return metaString(items[i], "name") < metaString(items[j], "name")
	})
}

func toAny(items []map[string]any) []any {
	out := make([]any, len(items))
	for i, o := range items {
		out[i] = o
	}
	return out
}
