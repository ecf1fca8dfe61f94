package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/status"
)

// maxBody is one byte past the apiserver's 3 MiB request limit: registry answers a body that
// long with 413, and nothing longer is read.
const maxBody = 3<<20 + 1

// Handler returns the cluster's REST API as an http.Handler: /version, /healthz, /livez,
// /readyz, legacy discovery (/api, /apis and each group version), and every resource request
// (through registry.Handle) including watch. Requests carry a bearer token that Options.Tokens
// maps to a user; with no Tokens every request is the admin user.
func (c *Cluster) Handler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// table.go: Table and metadata-only protobuf output; protobuf.go: built-ins in
		// protobuf when asked.
		c.withOutput(rw, r, func(rw http.ResponseWriter, r *http.Request) { withProtobuf(rw, r, c.serveHTTP) })
	})
}

// Admin is the user of requests when Options.Tokens is nil: system:masters, as the token the
// kubeconfig helpers write.
var Admin = registry.User{Name: "admin", UID: "admin-uid", Groups: []string{"system:masters", "system:authenticated"}}

func (c *Cluster) user(r *http.Request) (registry.User, bool) {
	if c.tokens == nil {
		return Admin, true
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return registry.User{}, false
	}
	u, ok := c.tokens[strings.TrimSpace(tok)]
	return u, ok
}

func (c *Cluster) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	user, ok := c.user(r)
	if !ok {
		writeStatus(rw, status.Unauthorized("Unauthorized"))
		return
	}
	user, ierr := impersonate(user, r.Header)
	if ierr != nil {
		writeStatus(rw, ierr)
		return
	}
	switch p := strings.TrimSuffix(r.URL.Path, "/"); {
	case p == "/version":
		writeJSON(rw, http.StatusOK, versionInfo)
		return
	case p == "/healthz" || p == "/livez" || p == "/readyz":
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Header().Set("X-Content-Type-Options", "nosniff")
		rw.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(rw, "ok")
		return
	case openAPIPath(p):
		c.serveOpenAPI(rw, r, p) // openapi.go
		return
	case p == "/api" || p == "/apis" || isGroupPath(p):
		if r.Method != http.MethodGet {
			writeStatus(rw, status.MethodNotSupported(status.GroupResource{}, strings.ToLower(r.Method)))
			return
		}
		if p == "/api" || p == "/apis" {
			if form, ok := negotiateDiscovery(r.Header.Get("Accept")); ok {
				c.aggregatedDiscovery(rw, r, p == "/api", form) // discovery_aggregated.go
				return
			}
		}
		c.discovery(rw, r, p)
		return
	}
	// The apiserver reads the body of the verbs that carry one (limitedReadBody: create,
	// update, patch, delete and deletecollection), never a GET's; a body that fails to be read
	// is answered as any error that is not a Status (ErrorToAPIStatus: 500, no reason, the
	// reader's words).
	var body []byte
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		b, err := bounded.ReadBodyFrom(r.Body, "request body", maxBody-1)
		if err != nil {
			if re := (*bounded.ReadError)(nil); errors.As(err, &re) {
				err = re.Err
			}
			writeStatus(rw, &status.Error{Code: http.StatusInternalServerError, Message: err.Error()})
			return
		}
		body = b
	}
	req := registry.Request{
		Method:      r.Method,
		Path:        r.URL.Path,
		Query:       r.URL.Query(),
		ContentType: r.Header.Get("Content-Type"),
		Accept:      r.Header.Get("Accept"),
		Body:        body,
		User:        user,
		UserAgent:   r.Header.Get("User-Agent"),
	}
	if r.Method == http.MethodGet && isWatch(req.Query) {
		c.serveWatch(rw, r, req)
		return
	}
	growStack()
	resp, err := c.Do(r.Context(), req)
	if err != nil && resp.Code == 0 {
		writeStatus(rw, status.InternalError(err))
		return
	}
	if recv, ok := rw.(objectReceiver); ok && resp.Object != nil {
		recv.receiveObject(resp.Object)
	}
	for _, w := range resp.Warnings {
		rw.Header().Add("Warning", w)
	}
	ct := resp.ContentType
	if ct == "" {
		ct = "application/json"
	}
	rw.Header().Set("Content-Type", ct)
	rw.WriteHeader(resp.Code)
	_, _ = rw.Write(resp.Body)
}

func isWatch(q map[string][]string) bool {
	v := q["watch"]
	return len(v) > 0 && (v[0] == "true" || v[0] == "1")
}

// isGroupPath reports whether p is /api/v1, /apis/GROUP or /apis/GROUP/VERSION.
func isGroupPath(p string) bool {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	switch {
	case len(parts) == 2 && parts[0] == "api":
		return true
	case (len(parts) == 2 || len(parts) == 3) && parts[0] == "apis":
		return true
	}
	return false
}

func writeJSON(rw http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(code)
	_, _ = rw.Write(b)
}

func writeStatus(rw http.ResponseWriter, err *status.Error) {
	b, merr := json.Marshal(err)
	if merr != nil {
		b = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`)
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(int(err.Code))
	_, _ = rw.Write(b)
}

// versionInfo is /version: the Kubernetes release writepath answers as.
var versionInfo = struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitTreeState string `json:"gitTreeState"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}{"1", "37", "v1.37.2", "clean", "go1.26", "gc", "linux/amd64"}

// Discovery documents (legacy, k8s.io/apimachinery/pkg/apis/meta/v1 types, in their field order).
type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
	// custom marks a CRD's resource: aggregated discovery names its group and version.
	custom bool
}

type apiResourceList struct {
	Kind string `json:"kind"`
	// APIVersion is empty for /api/v1, whose list the apiserver writes without one.
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

// served collects the resources served now: built-in kinds served by default and the served
// versions of stored CRDs, by group version.
func (c *Cluster) served(ctx context.Context) (map[schema.GroupVersion][]apiResource, map[string][]string, error) {
	byGV := map[schema.GroupVersion][]apiResource{}
	groupVersions := map[string][]string{}
	addVersion := func(group, version string) {
		for _, v := range groupVersions[group] {
			if v == version {
				return
			}
		}
		groupVersions[group] = append(groupVersions[group], version)
	}
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return nil, nil, err
	}
	bodies := map[string]*schema.Kind{} // "group/version/resource/subresource" -> body kind
	for _, k := range kinds {
		for _, sub := range k.SubresourceOf {
			bodies[k.GVK.Group+"/"+k.GVK.Version+"/"+sub] = k
		}
	}
	for _, k := range kinds {
		if !k.ServedByDefault || k.Resource == "" {
			continue
		}
		gv := k.GVK.GroupVersion()
		addVersion(gv.Group, gv.Version)
		byGV[gv] = append(byGV[gv], apiResource{Name: k.Resource, SingularName: k.Singular, Namespaced: k.Namespaced,
			Kind: k.GVK.Kind, Verbs: k.Verbs, ShortNames: k.ShortNames, Categories: k.Categories})
		subs := append([]string(nil), k.Subresources.Other...)
		if k.Subresources.Status {
			subs = append(subs, "status")
		}
		if k.Subresources.Scale != nil {
			subs = append(subs, "scale")
		}
		for _, sub := range subs {
			r := apiResource{Name: k.Resource + "/" + sub, Namespaced: k.Namespaced, Kind: k.GVK.Kind, Verbs: subresourceVerbs(sub)}
			if kind, ok := connectOptionsKinds[k.Resource+"/"+sub]; ok && gv.Group == "" {
				r.Kind = kind
			} else if body := findBody(bodies, k.GVK.GroupVersion(), k.Resource, sub); body != nil && body.GVK != k.GVK {
				r.Kind = body.GVK.Kind
				if body.GVK.GroupVersion() != gv {
					r.Group, r.Version = body.GVK.Group, body.GVK.Version
				}
			}
			byGV[gv] = append(byGV[gv], r)
		}
	}
	l, err := c.store.List(ctx, ListRequest{Prefix: Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}})
	if err != nil {
		return nil, nil, err
	}
	for _, o := range l.Items {
		crd, err := schema.FromCRD(o.Value)
		if err != nil {
			continue
		}
		for _, v := range crd.Versions {
			if !v.Served {
				continue
			}
			gv := schema.GroupVersion{Group: crd.Group, Version: v.Name}
			addVersion(crd.Group, v.Name)
			byGV[gv] = append(byGV[gv], apiResource{Name: crd.Names.Plural, SingularName: crd.Names.Singular, Namespaced: crd.Namespaced(),
				Kind: crd.Names.Kind, Verbs: []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
				ShortNames: crd.Names.ShortNames, Categories: crd.Names.Categories, custom: true})
			// The subresources a version enables, as apiextensions' discovery lists them: status
			// answers the custom resource, scale autoscaling/v1 Scale.
			if v.Subresources.Status {
				byGV[gv] = append(byGV[gv], apiResource{Name: crd.Names.Plural + "/status", Namespaced: crd.Namespaced(),
					Kind: crd.Names.Kind, Verbs: []string{"get", "patch", "update"}, custom: true})
			}
			if v.Subresources.Scale != nil {
				byGV[gv] = append(byGV[gv], apiResource{Name: crd.Names.Plural + "/scale", Namespaced: crd.Namespaced(),
					Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}, custom: true})
			}
		}
	}
	for gv := range byGV {
		sort.Slice(byGV[gv], func(i, j int) bool { return byGV[gv][i].Name < byGV[gv][j].Name })
	}
	for g := range groupVersions {
		sort.Slice(groupVersions[g], func(i, j int) bool { return schema.CompareVersions(groupVersions[g][i], groupVersions[g][j]) > 0 })
	}
	return byGV, groupVersions, nil
}

// connectOptionsKinds are the kinds the connect subresources answer in discovery (their options
// types), as kube-apiserver lists them.
var connectOptionsKinds = map[string]string{
	"pods/attach": "PodAttachOptions", "pods/exec": "PodExecOptions", "pods/portforward": "PodPortForwardOptions",
	"pods/proxy": "PodProxyOptions", "nodes/proxy": "NodeProxyOptions", "services/proxy": "ServiceProxyOptions",
}

func findBody(bodies map[string]*schema.Kind, gv schema.GroupVersion, resource, sub string) *schema.Kind {
	if b := bodies[gv.Group+"/"+gv.Version+"/"+resource+"/"+sub]; b != nil {
		return b
	}
	for k, b := range bodies { // bodies of another group version (deployments/scale is autoscaling/v1 Scale)
		if strings.HasSuffix(k, "/"+resource+"/"+sub) && b.ServedByDefault {
			return b
		}
	}
	return nil
}

// subresourceVerbs are the verbs the apiserver's discovery lists for a subresource.
func subresourceVerbs(sub string) []string {
	switch sub {
	case "status", "scale", "ephemeralcontainers", "resize", "approval":
		return []string{"get", "patch", "update"}
	case "finalize":
		return []string{"update"}
	case "binding", "eviction", "token":
		return []string{"create"}
	case "log":
		return []string{"get"}
	case "exec", "attach", "portforward":
		return []string{"create", "get"}
	case "proxy":
		return []string{"create", "delete", "get", "patch", "update"}
	}
	return []string{"get"}
}

func (c *Cluster) discovery(rw http.ResponseWriter, r *http.Request, p string) {
	byGV, groupVersions, err := c.served(r.Context())
	if err != nil {
		writeStatus(rw, status.InternalError(err))
		return
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) == 2 && parts[0] == "apis" {
		if _, ok := groupVersions[parts[1]]; !ok {
			// No handler is registered for an unknown group: the mux's plain 404.
			http.NotFound(rw, r)
			return
		}
	}
	// A group's document and /apis are the aggregator's, the others the legacy handler's: they
	// word a refused Accept differently (discovery_aggregated.go).
	mediaType, refused := negotiateLegacyDiscovery(r.Header.Get("Accept"), p == "/apis" || len(parts) == 2 && parts[0] == "apis")
	write := func(code int, v any) { writeDiscovery(rw, code, mediaType, v) }
	switch {
	case p == "/api":
		if refused != nil {
			writeStatus(rw, refused)
			return
		}
		write(http.StatusOK, map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []any{map[string]any{"clientCIDR": "0.0.0.0/0", "serverAddress": r.Host}}})
	case p == "/apis":
		if refused != nil {
			writeStatus(rw, refused)
			return
		}
		groups := orderedGroups(groupVersions)
		list := struct {
			Kind       string     `json:"kind"`
			APIVersion string     `json:"apiVersion"`
			Groups     []apiGroup `json:"groups"`
		}{Kind: "APIGroupList", APIVersion: "v1", Groups: []apiGroup{}}
		for _, g := range groups {
			list.Groups = append(list.Groups, groupOf(g, groupVersions[g]))
		}
		write(http.StatusOK, list)
	case len(parts) == 2 && parts[0] == "apis":
		if refused != nil {
			writeStatus(rw, refused)
			return
		}
		g := groupOf(parts[1], groupVersions[parts[1]])
		g.Kind, g.APIVersion = "APIGroup", "v1"
		write(http.StatusOK, g)
	default:
		gv := schema.GroupVersion{Version: parts[1]}
		if parts[0] == "apis" {
			gv = schema.GroupVersion{Group: parts[1], Version: parts[2]}
		}
		resources, ok := byGV[gv]
		if !ok {
			write(http.StatusNotFound, notFoundRoute())
			return
		}
		if refused != nil {
			writeStatus(rw, refused)
			return
		}
		list := apiResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: gv.String(), Resources: resources}
		if gv.Group == "" {
			list.APIVersion = ""
		}
		write(http.StatusOK, list)
	}
}

func groupOf(group string, versions []string) apiGroup {
	g := apiGroup{Name: group}
	for _, v := range versions {
		g.Versions = append(g.Versions, groupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

func notFoundRoute() *status.Error {
	return &status.Error{Code: 404, Reason: status.ReasonNotFound, Message: "the server could not find the requested resource", Details: &status.Details{}}
}

// serveWatch streams watch events: the apiserver's JSON watch stream, one {"type","object"}
// document per line. A resourceVersion of "" or "0" (or sendInitialEvents=true) starts with an
// ADDED event per existing object; sendInitialEvents then ends the initial events with a BOOKMARK
// annotated k8s.io/initial-events-end, as WatchList clients wait for. Events are selected by the
// request's label and field selectors as the watch cache selects them: an object that comes to
// match is ADDED, one that stops matching is DELETED (as it was, at the new resourceVersion).
// allowWatchBookmarks adds a BOOKMARK with the current resourceVersion every minute, as the
// watch cache does; timeoutSeconds ends the stream.
func (c *Cluster) serveWatch(rw http.ResponseWriter, r *http.Request, req registry.Request) {
	target, query, err := registry.ParsePath(req.Path)
	if err != nil {
		var se *status.Error
		if errors.As(err, &se) {
			writeStatus(rw, se)
			return
		}
		writeStatus(rw, status.BadRequest(err.Error()))
		return
	}
	for k, v := range req.Query {
		query[k] = v
	}
	if se := validateWatchOptions(query); se != nil {
		writeStatus(rw, se)
		return
	}
	var timeout <-chan time.Time
	if raw := query.Get("timeoutSeconds"); raw != "" {
		n, perr := strconv.ParseInt(raw, 10, 64)
		if perr != nil {
			writeStatus(rw, status.BadRequest(perr.Error()))
			return
		}
		if n > 0 {
			t := time.NewTimer(time.Duration(n) * time.Second)
			defer t.Stop()
			timeout = t.C
		}
	}
	// Check the resource is served and the user may list it, through a list request.
	listReq := req
	listReq.Query = map[string][]string{}
	for k, v := range query {
		switch k {
		case "watch", "resourceVersion", "sendInitialEvents", "resourceVersionMatch", "allowWatchBookmarks", "timeoutSeconds", "limit", "continue":
		default:
			listReq.Query[k] = v
		}
	}
	listReq.Path = target.Path()
	if partialWatchVersion(req.Accept) != "" {
		listReq.Accept = "application/json" // the events are transformed below
	}
	c.mu.Lock()
	lw := &world{ctx: r.Context(), c: c, reads: c.store}
	resp, _, err := registry.Handle(r.Context(), lw, listReq)
	// The watch starts at the revision the initial list was read at: with another server on
	// the same store, the store's revision may already be past it.
	rev := lw.listRevision
	if rev == 0 {
		rev, _ = c.store.Revision(r.Context())
	}
	c.mu.Unlock()
	if err != nil || resp.Code != http.StatusOK {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(resp.Code)
		_, _ = rw.Write(resp.Body)
		return
	}
	sel := resp.Selection
	rvParam := query.Get("resourceVersion")
	initial := rvParam == "" || rvParam == "0" || query.Get("sendInitialEvents") == "true"
	from := rev
	if !initial {
		if err := registry.ParseWatchResourceVersion(rvParam); err != nil {
			var se *status.Error
			if errors.As(err, &se) {
				writeStatus(rw, se)
			}
			return
		}
		n, perr := strconv.ParseInt(rvParam, 10, 64)
		if perr != nil {
			writeStatus(rw, status.BadRequest("invalid resource version: "+rvParam))
			return
		}
		from = n
	}
	prefix := storePrefix(target.Resource, target.Namespace)
	w, err := c.store.Watch(r.Context(), prefix, from)
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Transfer-Encoding", "chunked")
	if err != nil {
		var tooOld *TooOldError
		if errors.As(err, &tooOld) {
			rw.WriteHeader(http.StatusOK)
			writeEvent(rw, "ERROR", statusObject(status.ResourceExpired(tooOld.Error())))
			return
		}
		writeStatus(rw, status.InternalError(err))
		return
	}
	defer w.Stop()
	apiVersion, _ := resp.Object["apiVersion"].(string)
	kind := strings.TrimSuffix(resp.Object["kind"].(string), "List")
	// out is what a watch event carries: the object, or its metadata alone when Accept asks for
	// PartialObjectMetadata (metadata informers).
	// A built-in stored in another version (autoscaling/v2 for v1 HorizontalPodAutoscalers) is
	// sent in the watched one.
	// A resource sharing another's storage (events.k8s.io events) reads the stored objects in
	// its own version.
	inResource := func(obj map[string]any) map[string]any {
		if c, err := servedForm(target.Resource, obj); err == nil {
			return c
		}
		return obj
	}
	served := apiVersion
	// An event's JSON leaves out the present-but-empty []byte fields the stored object keeps
	// (registry's emptybytes.go).
	out := func(obj map[string]any) map[string]any {
		obj = inResource(obj)
		if c, err := registry.ToServedVersion(obj, served); err == nil {
			return defaults.OmitEmptyBytes(c)
		}
		return defaults.OmitEmptyBytes(obj)
	}
	// A custom resource is stored in its CRD's storage version: each event is converted to
	// the watched one (by the conversion webhook for strategy Webhook). Once the webhook fails to
	// convert an event the watch sends nothing more: the version's watch cache cannot decode
	// the object and stops delivering (recorded: conversion/conv-webhook-watch-fail, where the
	// later events of objects it converts never come either).
	convert := func(typ string, obj map[string]any) (string, map[string]any, bool) { return typ, out(obj), true }
	if crd, cerr := lw.CRD(r.Context(), target.Resource.Group, target.Resource.Resource); cerr == nil && crd != nil {
		conv, _ := c.crds.converter(crd, c.store)
		convert = func(typ string, obj map[string]any) (string, map[string]any, bool) {
			cv, err := registry.CustomResourceInVersion(conv, obj, served)
			if err != nil {
				return "", nil, false
			}
			return typ, out(cv), true
		}
	}
	stuck := false
	if pv := partialWatchVersion(req.Accept); pv != "" {
		objKind := kind
		apiVersion, kind = "meta.k8s.io/"+pv, "PartialObjectMetadata"
		out = func(obj map[string]any) map[string]any {
			// The internal object's metadata (defaults.InternalMetadata); obj is stored in
			// its storage version, which has what the internal object has.
			av, _ := obj["apiVersion"].(string)
			return map[string]any{"kind": kind, "apiVersion": apiVersion, "metadata": defaults.InternalMetadata(av, objKind, obj["metadata"])}
		}
	}
	// members holds, with selectors, the selected objects as last seen (by key), so that an
	// object that stops matching is DELETED as it was.
	var members map[Key]map[string]any
	if !sel.Everything() {
		members = map[Key]map[string]any{}
		if !initial {
			if l, lerr := c.store.List(r.Context(), ListRequest{Prefix: prefix, Revision: from}); lerr == nil {
				for _, o := range l.Items {
					if sel.Matches(withKind(inResource(o.Value), resp.Object)) {
						members[o.Key] = o.Value
					}
				}
			}
		}
	}
	rw.WriteHeader(http.StatusOK)
	flusher, _ := rw.(http.Flusher)
	if initial {
		for _, item := range resp.Object["items"].([]any) {
			obj, _ := item.(map[string]any)
			obj = withKind(obj, resp.Object)
			if members != nil {
				ns, _ := obj["metadata"].(map[string]any)["namespace"].(string)
				name, _ := obj["metadata"].(map[string]any)["name"].(string)
				members[Key{Group: prefix.Group, Resource: prefix.Resource, Namespace: ns, Name: name}] = obj
			}
			writeEvent(rw, "ADDED", out(obj)) // items of the list, already in the watched version
		}
		if query.Get("sendInitialEvents") == "true" {
			writeEvent(rw, "BOOKMARK", bookmark(apiVersion, kind, rev, true))
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	var bookmarks <-chan time.Time
	if b := query.Get("allowWatchBookmarks"); b == "true" || b == "1" {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		bookmarks = t.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-timeout:
			return
		case <-bookmarks:
			cur, err := c.store.Revision(r.Context())
			if err != nil {
				return
			}
			writeEvent(rw, "BOOKMARK", bookmark(apiVersion, kind, cur, false))
			if flusher != nil {
				flusher.Flush()
			}
		case ev, open := <-w.Events():
			if !open {
				return
			}
			if target.Name != "" && ev.Key.Name != target.Name {
				continue
			}
			typ, obj, ok := selectEvent(ev, members, func(o map[string]any) bool { return sel.Matches(withKind(inResource(o), resp.Object)) })
			if !ok {
				continue
			}
			if stuck {
				continue
			}
			if members == nil {
				// Without a selection the event's object is the stored one: its line is
				// the same for every watcher of this version (none when it fails to convert).
				line := c.watchLines.line(watchLineKey{ev.Key, ev.Revision, typ, served + " " + apiVersion}, func() []byte {
					t, o, ok := convert(typ, obj)
					if !ok {
						return nil
					}
					return encodeEvent(t, o)
				})
				if stuck = len(line) == 0; stuck {
					continue
				}
				_, _ = rw.Write(line)
			} else {
				t, o, ok := convert(typ, obj)
				if stuck = !ok; stuck {
					continue
				}
				writeEvent(rw, t, o)
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// partialWatchVersion is the meta.k8s.io version of PartialObjectMetadata when accept
// negotiates it in JSON (negotiate.go), else "".
func partialWatchVersion(accept string) string {
	o, ok := negotiateWatch(accept, false)
	if !ok || o.mediaType != jsonType || o.as != "PartialObjectMetadata" {
		return ""
	}
	return o.version
}

// selectEvent is the watch cache's event conversion under a selection (cacheWatcher
// convertToWatchEvent): members nil selects everything.
func selectEvent(ev Event, members map[Key]map[string]any, matches func(map[string]any) bool) (string, map[string]any, bool) {
	if members == nil {
		return string(ev.Type), ev.Value, true
	}
	prev, was := members[ev.Key]
	if ev.Type == Deleted {
		if !was {
			return "", nil, false
		}
		delete(members, ev.Key)
		return string(Deleted), ev.Value, true
	}
	now := matches(ev.Value)
	switch {
	case now && was:
		members[ev.Key] = ev.Value
		return string(Modified), ev.Value, true
	case now:
		members[ev.Key] = ev.Value
		return string(Added), ev.Value, true
	case was:
		delete(members, ev.Key)
		return string(Deleted), withResourceVersion(prev, strconv.FormatInt(ev.Revision, 10)), true
	}
	return "", nil, false
}

func bookmark(apiVersion, kind string, rev int64, initialEventsEnd bool) map[string]any {
	md := map[string]any{"resourceVersion": strconv.FormatInt(rev, 10)}
	if initialEventsEnd {
		md["annotations"] = map[string]any{"k8s.io/initial-events-end": "true"}
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
}

// validateWatchOptions is metainternalversion validateWatchOptions (the WatchList feature on,
// as in 1.37): 422 Invalid ListOptions.meta.k8s.io.
func validateWatchOptions(q map[string][]string) *status.Error {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	_, hasInitial := q["sendInitialEvents"]
	match := get("resourceVersionMatch")
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	if hasInitial && match != "NotOlderThan" {
		errs = append(errs, field.Forbidden(p, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if match != "" {
		if !hasInitial {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != "NotOlderThan" {
			errs = append(errs, field.NotSupported(p, match, []string{"NotOlderThan"}))
		}
		if get("continue") != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return status.Invalid(status.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", errs)
}

// withKind gives a list item the apiVersion and kind of its list when it lacks them.
func withKind(obj, list map[string]any) map[string]any {
	if obj["kind"] != nil {
		return obj
	}
	out := make(map[string]any, len(obj)+2)
	for k, v := range obj {
		out[k] = v
	}
	out["apiVersion"] = list["apiVersion"]
	if k, ok := list["kind"].(string); ok {
		out["kind"] = strings.TrimSuffix(k, "List")
	}
	return out
}

func statusObject(err *status.Error) map[string]any {
	b, _ := json.Marshal(err)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// requestStack is about the stack a write's request path reaches (structured-merge-diff's
// recursive walks of a Deployment take most of it).
const requestStack = 64 << 10

// growStack grows the calling goroutine's stack to hold requestStack at once, while it is still
// shallow. net/http runs every request on a new goroutine with a small stack, which the request
// path would otherwise grow by doubling, copying its deep frames each time (a tenth of an
// apply's CPU over HTTP).
//
//go:noinline
func growStack() {
	var pad [requestStack]byte
	stackSink(pad[:])
}

//go:noinline
func stackSink(b []byte) { _ = b[len(b)-1] }

// writeEvent writes one watch event as kube-apiserver's JSON watch encoder frames it: the
// event object on one line.
func writeEvent(w io.Writer, typ string, obj map[string]any) {
	_, _ = w.Write(encodeEvent(typ, obj))
}

// encodeEvent is a watch event's line: {"type":...,"object":...} and a newline, the object in
// the bytes the API answers it with (internal/codec: a managedFields entry's fieldsV1 keeps the
// field manager's order, as the apiserver stores it raw).
func encodeEvent(typ string, obj map[string]any) []byte {
	b, err := codec.EncodeJSON(obj)
	if err != nil {
		// Not an object of the model (the store holds only decoded objects): encoding/json
		// writes what it can, as before.
		b, _ = json.Marshal(obj)
	}
	t, _ := json.Marshal(typ)
	out := make([]byte, 0, len(b)+len(t)+22)
	out = append(out, `{"type":`...)
	out = append(out, t...)
	out = append(out, `,"object":`...)
	out = append(out, b...)
	return append(out, "}\n"...)
}

// watchLines holds the encoded lines of the latest watch events, so that the watchers of one
// resource (a thousand informers on ConfigMaps) encode each event once, as the apiserver's
// watch cache serialises an event once per format (cachingObject). An event line depends only
// on the event (key, revision), its type as sent, and the version it is sent in; the lines of
// the last watchLineCap events are kept.
type watchLines struct {
	mu    sync.Mutex
	lines map[watchLineKey][]byte
	order []watchLineKey
}

type watchLineKey struct {
	key      Key
	revision int64
	typ      string
	version  string // the served apiVersion, and the PartialObjectMetadata one it is sent as
}

const watchLineCap = 256

// line returns the encoded line of k, encoding it with enc the first time.
func (l *watchLines) line(k watchLineKey, enc func() []byte) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.lines[k]; ok {
		return b
	}
	b := enc()
	if l.lines == nil {
		l.lines = make(map[watchLineKey][]byte, watchLineCap)
	}
	if len(l.order) == watchLineCap {
		delete(l.lines, l.order[0])
		l.order = append(l.order[:0], l.order[1:]...)
	}
	l.lines[k] = b
	l.order = append(l.order, k)
	return b
}
