package registry

import (
	"fmt"
	"slices"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The CustomResourceDefinition REST strategy of apiextensions-apiserver
// (pkg/registry/customresourcedefinition/strategy.go) on the main resource: PrepareForCreate
// resets the status and records the storage version as stored; PrepareForUpdate keeps the
// stored status and adds the storage version to it; Validate and ValidateUpdate are
// ValidateCustomResourceDefinition (schema.FromCRD) with the CEL rules' compilation (cel) and,
// on update, spec.scope's immutability.

func (ep *endpoint) isCRDResource() bool {
	return ep.crd == nil && ep.gvk.Group == "apiextensions.k8s.io" && ep.gvk.Kind == "CustomResourceDefinition" && ep.Subresource == ""
}

// storageVersionName is the name of the first version with storage: true, or "".
func storageVersionName(crd map[string]any) string {
	spec, _ := crd["spec"].(map[string]any)
	vs, _ := spec["versions"].([]any)
	for _, x := range vs {
		if v, ok := x.(map[string]any); ok && v["storage"] == true {
			name, _ := v["name"].(string)
			return name
		}
	}
	return ""
}

// prepareCRDCreate is the strategy's PrepareForCreate: an empty status whose storedVersions is
// the storage version. obj is not modified.
func prepareCRDCreate(obj map[string]any) map[string]any {
	out := ownTop(obj)
	// The empty status as its Go type encodes it (conditions and storedVersions without
	// omitempty, acceptedNames' plural and kind).
	st := map[string]any{"conditions": nil, "acceptedNames": map[string]any{"plural": "", "kind": ""}, "storedVersions": nil}
	if v := storageVersionName(obj); v != "" {
		st["storedVersions"] = []any{v}
	}
	out["status"] = st
	return out
}

// prepareCRDUpdate is the strategy's PrepareForUpdate: the stored status, with the storage
// version added to storedVersions when it is not there yet. obj is not modified.
func prepareCRDUpdate(obj, old map[string]any) map[string]any {
	out := ownTop(obj)
	st, _ := value.Clone(old["status"]).(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	if v := storageVersionName(obj); v != "" {
		stored, _ := st["storedVersions"].([]any)
		found := false
		for _, s := range stored {
			found = found || s == v
		}
		if !found {
			st["storedVersions"] = append(append([]any{}, stored...), v)
		}
	}
	out["status"] = st
	return out
}

var crdGroupKind = status.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// isCRDStrategy reports whether the endpoint is CustomResourceDefinitions or their status.
func (ep *endpoint) isCRDStrategy() bool {
	return ep.crd == nil && ep.gvk.Group == "apiextensions.k8s.io" && ep.gvk.Kind == "CustomResourceDefinition" && (ep.Subresource == "" || ep.Subresource == "status")
}

// validateCRDCreate is the strategy's Validate: ValidateCustomResourceDefinition (metadata with
// the CRD's name rule, then the spec) and the CEL rules' compilation, one 422.
func validateCRDCreate(obj map[string]any) error {
	crd, err := schema.FromCRD(obj)
	if err != nil {
		return err
	}
	if errs := cel.ValidateCRD(crd, cel.Options{}); len(errs) > 0 {
		return status.Invalid(crdGroupKind, metaString(obj, "name"), errs)
	}
	return nil
}

// validateCRDUpdate is the spec part of the strategy's ValidateUpdate (the metadata rules are
// the caller's): the spec as a create validates it, then spec.scope's immutability and the CEL
// rules' compilation against old. A CRD that does not decode is a 400.
func validateCRDUpdate(obj, old map[string]any) (field.ErrorList, error) {
	crd, errs, err := schema.FromCRDUpdate(obj)
	if err != nil || len(errs) > 0 {
		return errs, err
	}
	if oldSpec, _ := old["spec"].(map[string]any); oldSpec != nil {
		spec, _ := obj["spec"].(map[string]any)
		if spec["scope"] != oldSpec["scope"] {
			errs = append(errs, field.Invalid(field.NewPath("spec", "scope"), spec["scope"], "field is immutable"))
		}
	}
	if oldCRD, err := schema.FromCRD(old); err == nil {
		errs = append(errs, cel.ValidateCRDUpdate(crd, oldCRD, cel.Options{})...)
	} else {
		errs = append(errs, cel.ValidateCRD(crd, cel.Options{})...)
	}
	return errs, nil
}

// crdCleanupFinalizer holds a deleted CRD until apiextensions-apiserver's finalizer controller
// removed its instances.
const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// deleteCRD is the CRD REST's Delete of a CRD not being deleted yet
// (pkg/registry/customresourcedefinition/etcd.go): the uid and resourceVersion preconditions
// checked in its words, then one update of the stored object that sets the deletionTimestamp,
// adds the cleanup finalizer and the Terminating condition InstanceDeletionPending, answered
// 200 with the CRD. The update is the storage's own, so managedFields and generation stay; the
// finalizer controller (cluster) deletes the instances and then the CRD. A CRD already being
// deleted goes through the store's Delete (deleteOne), as do the CRDs of a deletecollection.
func (h *handler) deleteCRD(live map[string]any, o gc.DeleteOptions) (Response, []Write, error) {
	ep := h.ep
	name := metaString(live, "name")
	if p := o.Preconditions; p != nil {
		if uid := metaString(live, "uid"); p.UID != nil && *p.UID != uid {
			return Response{}, nil, status.Conflict(ep.groupResource(), name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, uid))
		}
		if rv := metaString(live, "resourceVersion"); p.ResourceVersion != nil && *p.ResourceVersion != rv {
			return Response{}, nil, status.Conflict(ep.groupResource(), name,
				fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, rv))
		}
	}
	if err := h.validate(admission.Delete, nil, live, name); err != nil {
		return Response{}, nil, err
	}
	obj, err := value.DeepCopyMap(live)
	if err != nil {
		return Response{}, nil, &internalError{err: err}
	}
	now := h.req.Now.UTC().Format("2006-01-02T15:04:05Z")
	md := ownMeta(obj)
	md["deletionTimestamp"] = now
	fs, _ := md["finalizers"].([]any)
	if !slices.Contains(fs, any(crdCleanupFinalizer)) {
		md["finalizers"] = append(append([]any{}, fs...), crdCleanupFinalizer)
	}
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
		obj["status"] = st
	}
	conds, _ := st["conditions"].([]any)
	term := map[string]any{"type": "Terminating", "status": "True", "lastTransitionTime": now, "reason": "InstanceDeletionPending",
		"message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"}
	found := false
	for i, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Terminating" {
			found = true
			if m["status"] == "True" && m["lastTransitionTime"] != nil {
				term["lastTransitionTime"] = m["lastTransitionTime"]
			}
			conds[i] = term
		}
	}
	if !found {
		conds = append(conds, term)
	}
	st["conditions"] = conds
	var writes []Write
	if !h.dryRun {
		md["resourceVersion"] = h.w.NextResourceVersion()
		writes = append(writes, Write{Resource: ep.Resource, Name: name, Object: obj})
	}
	resp, err := h.respond(200, obj)
	return resp, writes, err
}
