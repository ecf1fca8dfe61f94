package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

// AdmitOptions choose the registry's steps Admit runs around an admission chain, and give their
// effects.
type AdmitOptions struct {
	// SystemFields is the handler's and the store's work on metadata: on create the system
	// fields a client cannot set are wiped before admission, uid and creationTimestamp set and
	// generateName turned into a name after it (rest.BeforeCreate); on update the object's name
	// must be the URL's (req.Name) and the stored system fields are kept (rest.BeforeUpdate); the
	// namespace is the request's (a cluster-scoped object's is cleared).
	SystemFields bool
	// Concurrency is the store's optimistic concurrency on update: the uid precondition before
	// mutating admission, the resourceVersion check after it (versions.CheckPatch).
	Concurrency bool
	// Now is the time of the request (creationTimestamp of a created object).
	Now time.Time
	// UID returns a new object uid; GenerateName a name for generateName base. Nil fails a create
	// that needs them (SystemFields).
	UID          func() string
	GenerateName func(base string) string
}

// Admit runs req through chain as kube-apiserver's handler and store run a write around
// admission, for a chain used outside Handle (one write from files, a test of a chain): with
// o.SystemFields and o.Concurrency, the handler's namespace and name steps and the uid
// precondition; chain.Mutate; the resourceVersion check; rest.BeforeCreate's or
// rest.BeforeUpdate's metadata; ValidateObjectMeta (always, for creates and updates of the main
// resource); then chain.Validate on the mutated object. An update whose stored object has no
// resourceVersion (one not read from a server) is checked against a stand-in: only the 422 of a
// missing resourceVersion, which does not depend on the stored version, is predicted. req is not
// modified; Result.Object is a fresh value (nil for DELETE).
func Admit(ctx context.Context, chain *admission.Chain, req admission.Request, o AdmitOptions) (admission.Result, error) {
	var res admission.Result
	writes := req.Operation == admission.Create || req.Operation == admission.Update
	if req.Object != nil && (o.SystemFields || o.Concurrency) {
		obj, err := value.DeepCopyMap(req.Object)
		if err != nil {
			return res, status.BadRequest(err.Error())
		}
		req.Object = obj
	}
	if o.SystemFields && writes && req.Object != nil {
		if err := handlerSteps(&req, req.Object); err != nil {
			return res, err
		}
	}
	if o.Concurrency {
		if err := checkUIDPrecondition(&req); err != nil {
			return res, err
		}
	}
	mut, err := chain.Mutate(ctx, req, nil)
	res = mut
	if err != nil {
		return res, err
	}
	obj := mut.Object
	if o.Concurrency && concurrencyChecked(&req) {
		if err := checkResourceVersion(&req, obj); err != nil {
			return res, err
		}
	}
	if req.Operation == admission.Create && o.SystemFields && obj != nil {
		if err := admitSystemFields(&req, obj, o); err != nil {
			return res, err
		}
	}
	if req.Operation == admission.Update && o.SystemFields && obj != nil && req.OldObject != nil {
		if err := ensureNamespace(obj, scopeNamespace(&req)); err != nil {
			return res, err
		}
		restoreStoredMeta(obj, req.OldObject)
	}
	if obj != nil && writes {
		if _, err := ValidateObjectMeta(ctx, req, obj); err != nil {
			return res, err
		}
	}
	req.Object = obj
	val, err := chain.Validate(ctx, req, nil)
	res.RawWarnings = append(res.RawWarnings, val.RawWarnings...)
	res.Warnings = admission.ResponseWarnings(res.RawWarnings)
	for k, v := range val.AuditAnnotations {
		if res.AuditAnnotations == nil {
			res.AuditAnnotations = map[string]string{}
		}
		res.AuditAnnotations[k] = v
	}
	if err != nil {
		return res, err
	}
	res.Object = obj
	return res, nil
}

// handlerSteps is what the create and update handlers do to metadata before admission: on
// create, WipeObjectMetaSystemFields; the namespace step (ExpectedNamespaceForResource); on
// update, checkName (the object's name must be req.Name, when given).
func handlerSteps(req *admission.Request, obj map[string]any) error {
	if req.Operation == admission.Create && req.SubResource == "" {
		wipeSystemFields(obj)
	}
	expected := req.Namespace
	if req.Resource.Group == "" && req.Resource.Resource == "namespaces" {
		expected = ""
	}
	if err := ensureNamespace(obj, expected); err != nil {
		return err
	}
	if req.Operation == admission.Update && req.Name != "" {
		return checkURLName(obj, req.Name)
	}
	return nil
}

// scopeNamespace is ExpectedNamespaceForScope for req: "" for a cluster-scoped resource.
func scopeNamespace(req *admission.Request) string {
	if !requestNamespaced(*req) {
		return ""
	}
	return req.Namespace
}

// admitSystemFields is rest.BeforeCreate's metadata (with the store's Create before it): the
// scope's namespace, no deletion fields, a fresh uid and creationTimestamp, a generated name.
func admitSystemFields(req *admission.Request, obj map[string]any, o AdmitOptions) error {
	if err := ensureNamespace(obj, scopeNamespace(req)); err != nil {
		return err
	}
	md := ownMeta(obj)
	delete(md, "deletionTimestamp")
	delete(md, "deletionGracePeriodSeconds")
	if o.UID == nil {
		return status.InternalError(fmt.Errorf("registry: AdmitOptions.UID is needed to create objects"))
	}
	if g, _ := md["generateName"].(string); g != "" && o.GenerateName == nil {
		if n, _ := md["name"].(string); n == "" {
			return status.InternalError(fmt.Errorf("registry: AdmitOptions.GenerateName is needed to generate names"))
		}
	}
	fillSystemFields(obj, o.Now, o.UID, o.GenerateName)
	return nil
}

// strategyOf is the versions strategy of req's resource: the built-in one, or that of a custom
// resource (no unconditional updates).
func strategyOf(req *admission.Request) versions.Strategy {
	if s, ok := versions.BuiltinResource(schema.GroupVersionResource{Group: req.Resource.Group, Resource: req.Resource.Resource}); ok {
		return s
	}
	return versions.CustomResource(req.Resource.Group, req.Resource.Resource, req.Kind.Kind, versions.CustomResourceOptions{})
}

// concurrencyChecked reports whether the update's resourceVersion goes through the store's check:
// writes of the resource and its status (other subresources have their own storage paths).
func concurrencyChecked(req *admission.Request) bool {
	return req.Operation == admission.Update && req.OldObject != nil && req.Object != nil &&
		(req.SubResource == "" || req.SubResource == "status")
}

// checkUIDPrecondition is the storage precondition of an update: the uid of the object the
// client sent, when it has one, must be the stored object's. Storage checks it before the update
// function runs, so before mutating admission (a 409 Conflict naming the storage key).
func checkUIDPrecondition(req *admission.Request) error {
	if !concurrencyChecked(req) {
		return nil
	}
	uid := metaString(req.Object, "uid")
	if uid == "" {
		return nil
	}
	return admitStatus(versions.CheckPreconditions(strategyOf(req), versions.Preconditions{UID: &uid}, req.OldObject))
}

// checkResourceVersion is the store's optimistic concurrency check of an update, after mutating
// admission (versions.CheckPatch: CheckUpdate without the UID precondition, which storage checked
// earlier): no resourceVersion (or "0") is a 422 unless the strategy allows unconditional
// updates, in which case obj gets the stored version; another version than the stored one is a
// 409 Conflict. An old object without a resourceVersion was not read from a server: only the 422
// (which does not depend on the stored version) is predicted, and nothing is filled in.
func checkResourceVersion(req *admission.Request, obj map[string]any) error {
	old := req.OldObject
	standIn := false
	if metaString(old, "resourceVersion") == "" {
		// Any stored version gives the same answer to an update without one; a conflict with
		// this stand-in is not a prediction.
		old = ownTop(old)
		ownMeta(old)["resourceVersion"] = "1"
		standIn = true
	}
	d, err := versions.CheckPatch(strategyOf(req), old, obj)
	if err != nil {
		if standIn && status.CodeOf(err) == 409 {
			return nil
		}
		return admitStatus(err)
	}
	if d.Unconditional && !standIn {
		ownMeta(obj)["resourceVersion"] = d.ResourceVersion
	}
	return nil
}

// admitStatus returns err as a status error: versions reports metadata that is not well formed as
// a field error, which the apiserver's decoder would have refused with 400.
func admitStatus(err error) error {
	if err == nil {
		return nil
	}
	var st *status.Error
	if errors.As(err, &st) {
		return st
	}
	return status.BadRequest(err.Error())
}
