package admission

import (
	"errors"
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// The registry's steps on metadata around admission: the handler's namespace
// check before admission (k8s.io/apiserver endpoints/handlers create.go and
// update.go), the storage precondition and the store's resourceVersion check
// of an update (generic/registry/store.go Update), and rest.BeforeCreate /
// rest.BeforeUpdate after mutating admission.

// namespaced reports whether req's resource is namespace-scoped: the
// catalogue's scope for a built-in resource, otherwise (custom resources)
// whether the request names a namespace, as its URL would: the apiserver
// serves writes of a namespaced resource only under /namespaces/<ns>/.
func namespaced(req *Request) bool {
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	if k, err := schema.BuiltinForResource(gvr); err == nil {
		return k.Namespaced
	}
	if k, err := schema.Builtin(schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}); err == nil && k.Resource != "" {
		return k.Namespaced
	}
	return req.Namespace != ""
}

// ensureNamespace is rest.EnsureObjectNamespaceMatchesRequestNamespace: an
// object without a namespace gets expected, an expected "" clears the
// object's, any other difference is a 400.
func ensureNamespace(obj map[string]any, expected string) error {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	switch {
	case ns == expected:
		return nil
	case ns == "":
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		md["namespace"] = expected
		return nil
	case expected == "":
		delete(md, "namespace")
		return nil
	}
	return status.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
}

// handlerNamespace is what the create and update handlers do to metadata
// before admission: on create, WipeObjectMetaSystemFields (admission never
// sees a uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds
// or selfLink the client sent); the namespace step
// (ExpectedNamespaceForResource: the request's namespace, "" for namespaces
// themselves); on update, checkName (the object's name must be the one in the
// URL, req.Name, when given).
func handlerNamespace(req *Request, obj map[string]any) error {
	if req.Operation == Create && req.SubResource == "" {
		if md, ok := obj["metadata"].(map[string]any); ok {
			for _, k := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
				delete(md, k)
			}
		}
	}
	expected := req.Namespace
	if req.Resource.Group == "" && req.Resource.Resource == "namespaces" {
		expected = ""
	}
	if err := ensureNamespace(obj, expected); err != nil {
		return err
	}
	if req.Operation == Update && req.Name != "" {
		if name := getString(obj, "metadata", "name"); name != req.Name {
			return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.Name))
		}
	}
	return nil
}

// scopeNamespace is rest.BeforeCreate's and rest.BeforeUpdate's namespace step
// (ExpectedNamespaceForScope: "" for a cluster-scoped resource).
func scopeNamespace(req *Request, obj map[string]any) error {
	expected := req.Namespace
	if !namespaced(req) {
		expected = ""
	}
	return ensureNamespace(obj, expected)
}

// strategyOf is the versions strategy of req's resource: the built-in one, or
// that of a custom resource (no unconditional updates).
func strategyOf(req *Request) versions.Strategy {
	if s, ok := versions.BuiltinResource(schema.GroupVersionResource{Group: req.Resource.Group, Resource: req.Resource.Resource}); ok {
		return s
	}
	return versions.CustomResource(req.Resource.Group, req.Resource.Resource, req.Kind.Kind, versions.CustomResourceOptions{})
}

// concurrencyChecked reports whether the update's resourceVersion goes through
// the store's check: writes of the resource and its status (other
// subresources have their own storage paths).
func concurrencyChecked(req *Request) bool {
	return req.Operation == Update && req.OldObject != nil && req.Object != nil &&
		(req.SubResource == "" || req.SubResource == "status")
}

// checkUIDPrecondition is the storage precondition of an update: the uid of
// the object the client sent, when it has one, must be the stored object's.
// Storage checks it before the update function runs, so before mutating
// admission (a 409 Conflict naming the storage key).
func checkUIDPrecondition(req *Request) error {
	if !concurrencyChecked(req) {
		return nil
	}
	uid := getString(req.Object, "metadata", "uid")
	if uid == "" {
		return nil
	}
	return asStatus(versions.CheckPreconditions(strategyOf(req), versions.Preconditions{UID: &uid}, req.OldObject))
}

// checkResourceVersion is the store's optimistic concurrency check of an
// update, after mutating admission (versions.CheckPatch: CheckUpdate without
// the UID precondition, which storage checked earlier): no resourceVersion
// (or "0") is a 422 unless the strategy allows unconditional updates, in which
// case obj gets the stored version; another version than the stored one is a
// 409 Conflict. An old object without a resourceVersion was not read from a
// server: only the 422 (which does not depend on the stored version) is
// predicted, and nothing is filled in.
func checkResourceVersion(req *Request, obj map[string]any) error {
	old := req.OldObject
	standIn := false
	if getString(old, "metadata", "resourceVersion") == "" {
		// Any stored version gives the same answer to an update without
		// one; a conflict with this stand-in is not a prediction.
		old = withResourceVersion(old, "1")
		standIn = true
	}
	d, err := versions.CheckPatch(strategyOf(req), old, obj)
	if err != nil {
		if standIn && status.CodeOf(err) == 409 {
			return nil
		}
		return asStatus(err)
	}
	if d.Unconditional && !standIn {
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		md["resourceVersion"] = d.ResourceVersion
	}
	return nil
}

// withResourceVersion returns a shallow copy of obj whose metadata has rv.
func withResourceVersion(obj map[string]any, rv string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md, _ := obj["metadata"].(map[string]any)
	nmd := make(map[string]any, len(md)+1)
	for k, v := range md {
		nmd[k] = v
	}
	nmd["resourceVersion"] = rv
	out["metadata"] = nmd
	return out
}

// asStatus returns err as a status error: versions reports metadata that is
// not well formed as a field error, which the apiserver's decoder would have
// refused with 400.
func asStatus(err error) error {
	if err == nil {
		return nil
	}
	var st *status.Error
	if errors.As(err, &st) {
		return st
	}
	return status.BadRequest(err.Error())
}

// beforeUpdate is what rest.BeforeUpdate does to metadata before validation:
// the namespace step, the stored generation (a client cannot change it; the
// strategy's own bump, versions.NextGeneration, is not applied), the stored
// uid when none was sent, the stored creationTimestamp, deletionTimestamp and,
// when none was sent, deletionGracePeriodSeconds.
func beforeUpdate(req *Request, obj map[string]any) error {
	if err := scopeNamespace(req, obj); err != nil {
		return err
	}
	old := getMap(req.OldObject, "metadata")
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	restore := func(k string, when bool) {
		if !when {
			return
		}
		if v, ok := old[k]; ok && v != nil {
			md[k] = v
		} else {
			delete(md, k)
		}
	}
	g, _ := old["generation"].(int64)
	restore("generation", true)
	if g == 0 {
		delete(md, "generation")
	}
	restore("uid", getString(md, "uid") == "")
	restore("creationTimestamp", getString(old, "creationTimestamp") != "")
	restore("deletionTimestamp", getString(old, "deletionTimestamp") != "")
	restore("deletionGracePeriodSeconds", old["deletionGracePeriodSeconds"] != nil && md["deletionGracePeriodSeconds"] == nil)
	return nil
}
