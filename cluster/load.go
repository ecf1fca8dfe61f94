package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"time"

	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// Load creates objs through the API as a client would (POST to each collection, as admin):
// CustomResourceDefinitions first, then Namespaces, then the rest in the order given. A
// namespace that an object names and objs do not hold is created first. Objects keep no
// resourceVersion or uid they carry. The first refused create is an error naming the object and
// the apiserver's message.
func (c *Cluster) Load(ctx context.Context, objs []map[string]any) error {
	rank := func(o map[string]any) int {
		switch {
		case o["kind"] == "CustomResourceDefinition":
			return 0
		case o["kind"] == "Namespace" && o["apiVersion"] == "v1":
			return 1
		}
		return 2
	}
	ordered := append([]map[string]any(nil), objs...)
	sort.SliceStable(ordered, func(i, j int) bool { return rank(ordered[i]) < rank(ordered[j]) })
	for _, o := range ordered {
		body, err := json.Marshal(withoutStorageFields(o))
		if err != nil {
			return err
		}
		path, ns, err := c.collectionPath(ctx, o)
		if err != nil {
			return err
		}
		if ns != "" {
			if err := c.ensureNamespace(ctx, ns); err != nil {
				return err
			}
		}
		resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: path, Body: body, ContentType: "application/json", User: Admin, UserAgent: "writepath-load"})
		if err != nil {
			return err
		}
		if resp.Code == 409 && o["kind"] == "ServiceAccount" && o["apiVersion"] == "v1" && metaString(o, "name") == "default" {
			// The service account controller made it when the namespace was loaded: the
			// state file's replaces it.
			resp, err = c.Do(ctx, registry.Request{Method: "PUT", Path: path + "/default", Body: body, ContentType: "application/json", User: Admin, UserAgent: "writepath-load"})
			if err != nil {
				return err
			}
			if resp.Code == 200 {
				resp.Code = 201
			}
		}
		if resp.Code != 201 {
			msg, _ := resp.Object["message"].(string)
			return fmt.Errorf("%s %q: %s", o["kind"], metaString(o, "name"), msg)
		}
	}
	return nil
}

func withoutStorageFields(o map[string]any) map[string]any {
	meta, _ := o["metadata"].(map[string]any)
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		switch k {
		case "resourceVersion", "uid", "creationTimestamp", "managedFields", "generation", "selfLink":
			continue
		}
		m[k] = v
	}
	out := make(map[string]any, len(o))
	for k, v := range o {
		out[k] = v
	}
	out["metadata"] = m
	return out
}

func (c *Cluster) ensureNamespace(ctx context.Context, ns string) error {
	if _, err := c.store.Get(ctx, Key{Resource: "namespaces", Name: ns}); err == nil {
		return nil
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: "/api/v1/namespaces", Body: []byte(body), ContentType: "application/json", User: Admin, UserAgent: "writepath-load"})
	if err != nil {
		return err
	}
	if resp.Code != 201 && resp.Code != 409 {
		msg, _ := resp.Object["message"].(string)
		return fmt.Errorf("Namespace %q: %s", ns, msg)
	}
	return nil
}

// collectionPath is the URL an object is created at, and its namespace ("" when cluster-scoped).
func (c *Cluster) collectionPath(ctx context.Context, o map[string]any) (string, string, error) {
	av, _ := o["apiVersion"].(string)
	kind, _ := o["kind"].(string)
	gvk, err := schema.FromAPIVersionAndKind(av, kind)
	if err != nil || kind == "" {
		return "", "", fmt.Errorf("object %q: needs apiVersion and kind", metaString(o, "name"))
	}
	resource, namespaced := "", false
	if k, err := schema.Builtin(gvk); err == nil && k.Resource != "" {
		resource, namespaced = k.Resource, k.Namespaced
	} else if crd := (&world{ctx: ctx, c: c, reads: c.store}).crdForKind(ctx, gvk); crd != nil {
		resource, namespaced = crd.Names.Plural, crd.Namespaced()
	} else {
		return "", "", fmt.Errorf("%s %q: not a built-in kind nor served by a loaded CustomResourceDefinition", gvk, metaString(o, "name"))
	}
	t := registry.Target{Resource: gvk.GroupVersion().WithResource(resource)}
	ns := ""
	if namespaced {
		ns = metaString(o, "namespace")
		if ns == "" {
			ns = "default"
		}
		t.Namespace = ns
	}
	return t.Path(), ns, nil
}

// Listen serves c over HTTPS on addr (host:port; port 0 picks a free one) with a generated
// self-signed certificate valid for 127.0.0.1 and ::1. wrap, when not nil, wraps the cluster's
// handler (request logging, for one).
func Listen(c *Cluster, addr string, wrap func(http.Handler) http.Handler) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := c.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.EnableHTTP2 = true
	srv.Config.ReadHeaderTimeout = 30 * time.Second
	srv.StartTLS()
	return &Server{Cluster: c, srv: srv, URL: srv.URL, Token: "admin-token"}, nil
}
