package validation

import (
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// Options are what the request decides beyond the object: the subresource written and the
// request's time. The zero value is a write of the main resource at the zero time.
type Options struct {
	// Subresource is the subresource of the write: "" for the resource itself, "status",
	// "scale", "resize", "ephemeralcontainers", ...
	Subresource string
	// Now is the time of the request, which a strategy's PrepareForCreate or PrepareForUpdate
	// may record (a PersistentVolume's status.lastPhaseTransitionTime).
	Now time.Time
	// Expressions compiles the CEL expressions of admission policies and webhook match
	// conditions (expressions.go); nil checks them for presence only.
	Expressions ExpressionCompiler
	// User is the requesting user, which a strategy's PrepareForCreate may record (a
	// CertificateSigningRequest's spec.username, uid, groups and extra); nil is none.
	User *User
	// Namespace reads the object's namespace for the strategies that consult it: a
	// ResourceClaim's or ResourceClaimTemplate's request for admin access, and a claim /status
	// granting it, need the namespace's resource.kubernetes.io/admin-access label to be "true"
	// (pkg/registry/resource's AuthorizedForAdmin). It returns the stored Namespace object, nil
	// when there is none; an error is reported as the reference reports a failed read (an
	// InternalError at the adminAccess field). Nil skips those checks: the caller shows no
	// namespaces (registry always passes one).
	Namespace func() (map[string]any, error)
}

// User is a requesting user as authentication gives it.
type User struct {
	Name, UID string
	Groups    []string
	Extra     map[string][]string
}

// Validate is the kind's REST strategy Validate on create: the errors the apiserver returns for
// obj (errors in the apiserver's order). obj is the defaulted object; it is not modified. A kind
// this package does not model yet returns nil.
func Validate(gvk schema.GroupVersionKind, obj map[string]any, opts Options) field.ErrorList {
	k, ok := kindOf(gvk)
	if !ok || k.validate == nil {
		return nil
	}
	return k.validate(obj, opts)
}

// ValidateUpdate is the kind's (or its subresource's) strategy ValidateUpdate: obj is the new
// object, old the stored one. Neither is modified. A kind this package does not model yet
// returns nil.
func ValidateUpdate(gvk schema.GroupVersionKind, obj, old map[string]any, opts Options) field.ErrorList {
	k, ok := kindOf(gvk)
	if !ok || k.validateUpdate == nil {
		return nil
	}
	return k.validateUpdate(obj, old, opts)
}

// Warnings is the strategy's WarningsOnCreate (old nil) or WarningsOnUpdate: the warnings the
// apiserver sends back in Warning headers, in its order. Neither object is modified.
func Warnings(gvk schema.GroupVersionKind, obj, old map[string]any, opts Options) []string {
	k, ok := kindOf(gvk)
	if !ok || k.warnings == nil {
		return nil
	}
	return k.warnings(obj, old, opts)
}

// strategy is one kind's validation: each function may be nil (nothing to check).
type strategy struct {
	validate       func(obj map[string]any, opts Options) field.ErrorList
	validateUpdate func(obj, old map[string]any, opts Options) field.ErrorList
	warnings       func(obj, old map[string]any, opts Options) []string
	// prepareCreate and prepareUpdate return the object the strategy's PrepareForCreate and
	// PrepareForUpdate leave (obj itself when they change nothing, never obj modified).
	prepareCreate func(obj map[string]any, opts Options) map[string]any
	prepareUpdate func(obj, old map[string]any, opts Options) map[string]any
}

// groupKind names a kind independently of its version: the apiserver validates the internal
// object, so every served version of a kind has the same rules.
type groupKind struct{ group, kind string }

// PrepareForCreate is the effect of the kind's strategy PrepareForCreate on obj beyond what the
// registry does for every kind (status and spec resets, generation, system fields): fields the
// strategy drops or derives (among them, for a Pod and every kind with a pod template, the legacy
// init container annotations: InitContainerAnnotations). It returns obj itself when the strategy
// changes nothing, else a fresh object; obj is never modified.
func PrepareForCreate(gvk schema.GroupVersionKind, obj map[string]any, opts Options) map[string]any {
	obj = dropInitContainerAnnotations(gvk, obj, opts.Subresource)
	k, ok := kindOf(gvk)
	if !ok || k.prepareCreate == nil {
		return obj
	}
	return k.prepareCreate(obj, opts)
}

// PrepareForUpdate is PrepareForCreate's counterpart on update (the strategy's PrepareForUpdate,
// or its subresource's, after the generation is decided): obj is the new object, old the stored
// one. Neither is modified; obj itself is returned when nothing changes.
func PrepareForUpdate(gvk schema.GroupVersionKind, obj, old map[string]any, opts Options) map[string]any {
	obj = dropInitContainerAnnotations(gvk, obj, opts.Subresource)
	k, ok := kindOf(gvk)
	if !ok || k.prepareUpdate == nil {
		return obj
	}
	return k.prepareUpdate(obj, old, opts)
}

// Modelled reports whether this package models the REST strategy of gvk's kind (its Validate
// and ValidateUpdate are the apiserver's), as opposed to a kind whose rules are not written yet.
func Modelled(gvk schema.GroupVersionKind) bool {
	_, ok := kindOf(gvk)
	return ok
}

// KeepsStatusOnCreate reports whether the kind's PrepareForCreate keeps the status a create
// carries, where the other kinds' strategies reset it: a Node (the kubelet registers its Node
// with its status; ValidateNode checks it). The field manager still owns no status field.
func KeepsStatusOnCreate(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "" && gvk.Kind == "Node"
}
