package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// A world built from files: every verb that answers as the server does sends one request
// through registry.Handle over the objects its files give, held by registry's Static world.

// endpointOf is the URL path of obj's resource (its collection when name is "") in namespace:
// the built-in catalogue's resource, or the CRD's plural (crd nil: the object's own kind is then
// served by a stand-in CRD without a schema, see standInCRD).
func endpointOf(obj map[string]any, crd map[string]any, namespace string, named bool, sub string) (registry.Target, error) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gvk, err := schema.FromAPIVersionAndKind(av, kind)
	if err != nil || kind == "" {
		return registry.Target{}, usagef("the object needs apiVersion and kind")
	}
	t := registry.Target{Resource: schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version}, Subresource: sub}
	if named {
		md, _ := obj["metadata"].(map[string]any)
		t.Name, _ = md["name"].(string)
	}
	if k, err := schema.Builtin(gvk); err == nil && k.Resource != "" {
		t.Resource.Resource = k.Resource
		if k.Namespaced {
			t.Namespace = namespace
		}
		return t, nil
	}
	if crd != nil {
		c, err := schema.FromCRD(crd)
		if err != nil {
			return registry.Target{}, err
		}
		t.Resource.Resource = c.Names.Plural
		if c.Namespaced() {
			t.Namespace = namespace
		}
		return t, nil
	}
	t.Resource.Resource, _ = schema.GuessResource(kind)
	if namespace != "" {
		t.Namespace = namespace
	}
	return t, nil
}

// standInCRD is the CRD a custom resource without --crd is served by: its kind and guessed
// plural, namespaced when the object has a namespace, a schema that keeps every field, no
// subresources (status with status).
func standInCRD(obj map[string]any, namespaced, withStatus bool) map[string]any {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, _ := schema.ParseAPIVersion(av)
	plural, singular := schema.GuessResource(kind)
	scope := "Cluster"
	if namespaced {
		scope = "Namespaced"
	}
	v := map[string]any{"name": gv.Version, "served": true, "storage": true,
		"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	if withStatus {
		v["subresources"] = map[string]any{"status": map[string]any{}}
	}
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + gv.Group},
		"spec": map[string]any{"group": gv.Group, "scope": scope,
			"names":    map[string]any{"plural": plural, "singular": singular, "kind": kind, "listKind": kind + "List"},
			"versions": []any{v}}}
}

// isBuiltin reports whether obj is of a built-in kind.
func isBuiltin(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gvk, err := schema.FromAPIVersionAndKind(av, kind)
	if err != nil {
		return false
	}
	k, err := schema.Builtin(gvk)
	return err == nil && k.Resource != ""
}

// stored returns obj as the server holds it: in namespace (for namespaced resources) and with a
// resourceVersion ("1" when the file has none: every stored object has one).
func stored(obj map[string]any, namespace string) (map[string]any, error) {
	c, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, &inputError{err: err}
	}
	md, _ := c["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		c["metadata"] = md
	}
	if namespace != "" {
		md["namespace"] = namespace
	}
	if rv, _ := md["resourceVersion"].(string); rv == "" {
		md["resourceVersion"] = "1"
	}
	return c, nil
}

// newCLIWorld builds the world of objs (stored objects, CRDs, admission configuration).
// Namespaces not among them exist.
func newCLIWorld(objs []map[string]any, uid func() string) (*registry.Static, error) {
	s, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true, UID: uid})
	if err != nil {
		return nil, &inputError{err: err}
	}
	return s, nil
}

// send runs one request; the response's warnings go to stderr as kubectl prints them.
func (e *env) send(w registry.World, method string, t registry.Target, query map[string][]string, contentType string, body []byte, now time.Time) (registry.Response, error) {
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: t.Path(), Query: query,
		ContentType: contentType, Body: body, Now: now, User: registry.User{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}}})
	for _, h := range resp.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", registry.WarningText(h))
	}
	if err != nil {
		return resp, err
	}
	return resp, nil
}

// responseError is the error a non-2xx response carries (its Status).
func responseError(resp registry.Response) error {
	if resp.Code < 300 {
		return nil
	}
	if resp.Reset {
		return errStreamReset
	}
	var st status.Error
	if err := st.UnmarshalJSON(resp.Body); err != nil {
		return fmt.Errorf("the server answered %d: %s", resp.Code, strings.TrimSpace(string(resp.Body)))
	}
	return &st
}

var errStreamReset = errors.New("stream reset")

// withoutManagedFields is the object as kubectl prints it (managedFields hidden).
func withoutManagedFields(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, has := md["managedFields"]; !has {
		return obj
	}
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			m[k] = v
		}
	}
	c["metadata"] = m
	return c
}
