package registry

import (
	"sort"

	"github.com/writepath/writepath/internal/labels"
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
	items, err = h.selected(items)
	if err != nil {
		return Response{}, nil, err
	}
	resp, err := h.respond(200, h.listOf(items))
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

// selected keeps the items the request's labelSelector matches (an unparsable selector is the
// apiserver's 400 with the parser's words).
func (h *handler) selected(items []map[string]any) ([]map[string]any, error) {
	raw := h.query.Get("labelSelector")
	if raw == "" {
		return items, nil
	}
	sel, err := labels.Parse(raw)
	if err != nil {
		return nil, status.BadRequest(err.Error())
	}
	out := items[:0:0]
	for _, it := range items {
		if sel.MatchesObject(it) {
			out = append(out, it)
		}
	}
	return out, nil
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
