package registry

import (
	"net/url"
	"strings"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Target is what a request URL names: a resource (a collection when Name is empty), its
// namespace, an object and a subresource.
type Target struct {
	Resource    schema.GroupVersionResource
	Namespace   string
	Name        string
	Subresource string
}

// errNotFoundRoute is the apiserver's 404 for a path no route serves.
func errNotFoundRoute() *status.Error {
	return &status.Error{Code: 404, Reason: status.ReasonNotFound, Message: "the server could not find the requested resource", Details: &status.Details{}}
}

// pageNotFound is the 404 of a path the apiserver's API handlers leave to its last handler (a
// group no built-in API or CRD serves, a CRD's unserved version, a cluster-scoped CRD's
// namespaced path): Go's http.NotFound text "404 page not found", not a Status. It wraps the
// NotFound Status that Response.Object carries for callers.
type pageNotFound struct{ st *status.Error }

func (e *pageNotFound) Error() string { return e.st.Error() }
func (e *pageNotFound) Unwrap() error { return e.st }

func errPageNotFound() error { return &pageNotFound{st: errNotFoundRoute()} }

// ParsePath splits an apiserver URL path (with or without a query string) into its Target and
// query, as the apiserver's request info resolver does (k8s.io/apiserver
// pkg/endpoints/request/requestinfo.go): /api/v1/... for the core group, /apis/GROUP/VERSION/...
// otherwise; /namespaces/NS/RESOURCE[/NAME[/SUBRESOURCE]] for namespaced resources, and
// /namespaces/NAME[/status|/finalize] for namespaces themselves. A path that names no
// resource is the apiserver's 404.
func ParsePath(raw string) (Target, url.Values, error) {
	var t Target
	p, q, _ := strings.Cut(raw, "?")
	query, err := url.ParseQuery(q)
	if err != nil {
		return t, nil, status.BadRequest(err.Error())
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		t.Resource.Version = parts[1]
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		t.Resource.Group, t.Resource.Version = parts[1], parts[2]
		parts = parts[3:]
	default:
		return t, nil, errNotFoundRoute()
	}
	for _, s := range parts {
		if s == "" {
			return t, nil, errNotFoundRoute()
		}
	}
	if len(parts) == 0 {
		return t, nil, errNotFoundRoute()
	}
	if parts[0] == "namespaces" && len(parts) >= 3 && !(t.Resource.Group == "" && (len(parts) == 3 && (parts[2] == "status" || parts[2] == "finalize"))) {
		t.Namespace = parts[1]
		parts = parts[2:]
	}
	t.Resource.Resource = parts[0]
	if len(parts) > 1 {
		t.Name = parts[1]
	}
	if len(parts) > 2 {
		t.Subresource = parts[2]
	}
	if len(parts) > 3 {
		return t, nil, errNotFoundRoute()
	}
	return t, query, nil
}

// Path is the apiserver URL path of t.
func (t Target) Path() string {
	var b strings.Builder
	if t.Resource.Group == "" {
		b.WriteString("/api/" + t.Resource.Version)
	} else {
		b.WriteString("/apis/" + t.Resource.Group + "/" + t.Resource.Version)
	}
	if t.Namespace != "" {
		b.WriteString("/namespaces/" + t.Namespace)
	}
	b.WriteString("/" + t.Resource.Resource)
	if t.Name != "" {
		b.WriteString("/" + t.Name)
		if t.Subresource != "" {
			b.WriteString("/" + t.Subresource)
		}
	}
	return b.String()
}
