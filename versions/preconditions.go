package versions

import (
	"fmt"
	"strconv"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// OptimisticLockErrorMsg is the reason of the 409 Conflict of an update whose
// resourceVersion is not the stored one (apiserver's
// registry.OptimisticLockErrorMsg).
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// Preconditions are the UID and resourceVersion a write requires of the stored
// object (metav1.Preconditions). A nil field is not checked.
type Preconditions struct {
	UID             *string
	ResourceVersion *string
}

// meta holds the identity fields of a stored or sent object.
type meta struct {
	name, namespace, uid, resourceVersion string
}

func metaOf(obj map[string]any, which string) (meta, error) {
	md, err := metadataOf(obj, which)
	if err != nil {
		return meta{}, err
	}
	var m meta
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &m.name}, {"namespace", &m.namespace}, {"uid", &m.uid}, {"resourceVersion", &m.resourceVersion}} {
		switch v := md[f.key].(type) {
		case nil:
		case string:
			*f.dst = v
		default:
			return meta{}, field.Invalid(field.NewPath("metadata", f.key), v, "must be a string")
		}
	}
	return m, nil
}

// storageError renders the text of apiserver's storage.StorageError for an
// "invalid object" error (code 4), which is what a failed storage precondition
// becomes; InterpretUpdateError then wraps it into a Conflict.
func storageError(key, msg string) error {
	return fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s", key, msg)
}

// CheckPreconditions checks p against the stored object as kube-apiserver's
// storage layer does (storage.Preconditions.Check) during an update: UID
// first, then resourceVersion, both compared as strings. A failure is the
// 409 Conflict the apiserver returns, e.g.
//
//	Operation cannot be fulfilled on configmaps "cm1": StorageError: invalid object, Code: 4,
//	Key: /registry/configmaps/default/cm1, ResourceVersion: 0, AdditionalErrorMsg:
//	Precondition failed: UID in precondition: x, UID in object meta: y
//
// (on one line). An update's only precondition is the UID of the object sent,
// when it has one; DELETE checks its preconditions earlier, see
// CheckDeletePreconditions. existing is not modified.
func CheckPreconditions(s Strategy, p Preconditions, existing map[string]any) error {
	m, err := metaOf(existing, "stored")
	if err != nil {
		return err
	}
	gr := status.GroupResource{Group: s.Group, Resource: s.Resource}
	key := s.StorageKey(m.namespace, m.name)
	if p.UID != nil && *p.UID != m.uid {
		return status.Conflict(gr, m.name, storageError(key, fmt.Sprintf(
			"Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, m.uid)))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.resourceVersion {
		return status.Conflict(gr, m.name, storageError(key, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, m.resourceVersion)))
	}
	return nil
}

// CheckDeletePreconditions checks the preconditions of a DELETE request against
// the stored object, as kube-apiserver does before anything else
// (registry/rest.BeforeDelete): UID first, then resourceVersion. The conflict
// names the kind, not the resource, because that is what BeforeDelete passes:
//
//	Operation cannot be fulfilled on Deployment.apps "web": the UID in the precondition (x)
//	does not match the UID in record (y). The object might have been deleted and then recreated
//
// Namespaces have their own DELETE and its own words ("Precondition failed:
// UID in precondition: x, UID in object meta: y" on namespaces). existing is not
// modified.
func CheckDeletePreconditions(s Strategy, p Preconditions, existing map[string]any) error {
	m, err := metaOf(existing, "stored")
	if err != nil {
		return err
	}
	if !s.Custom && s.Group == "" && s.Resource == "namespaces" {
		gr := status.GroupResource{Resource: "namespaces"}
		if p.UID != nil && *p.UID != m.uid {
			return status.Conflict(gr, m.name, fmt.Errorf(
				"Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, m.uid))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != m.resourceVersion {
			return status.Conflict(gr, m.name, fmt.Errorf(
				"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, m.resourceVersion))
		}
		return nil
	}
	gr := status.GroupResource{Group: s.Group, Resource: s.Kind}
	if p.UID != nil && *p.UID != m.uid {
		return status.Conflict(gr, m.name, fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.uid))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.resourceVersion {
		return status.Conflict(gr, m.name, fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.resourceVersion))
	}
	return nil
}

// UpdateDecision says how kube-apiserver accepted an update.
type UpdateDecision struct {
	// Unconditional is true when the update carried no resourceVersion (or
	// "0") and the strategy allowed it: it applies to the stored version.
	Unconditional bool
	// ResourceVersion is the stored version the update applies to.
	ResourceVersion string
}

// parseStorageVersion reads a resourceVersion as the apiserver's versioner
// does (APIObjectVersioner.ObjectResourceVersion): "" is 0, otherwise an
// unsigned 64-bit decimal, so "0", "00" are 0 and "0042" is 42.
func parseStorageVersion(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	return strconv.ParseUint(rv, 10, 64)
}

// CheckUpdate decides whether kube-apiserver accepts an update (PUT, or the
// object a patch produced) of the stored object existing into updated, on
// optimistic concurrency alone, in the server's order:
//
//  1. the UID of updated, when set, is a precondition (CheckPreconditions);
//  2. updated's resourceVersion is read as an unsigned decimal ("" and "0"
//     are "none"; a value that does not parse fails with a 500, as it does on
//     the server, whose versioner returns a plain strconv error);
//  3. none, and the strategy allows unconditional updates in updated's API
//     version: accepted, applied to the stored version;
//  4. none otherwise: 422 `<resource> "<name>" is invalid:
//     metadata.resourceVersion: Invalid value: 0: must be specified for an update`;
//  5. a number other than the stored one: 409 Conflict with
//     OptimisticLockErrorMsg. Numbers compare as numbers: "042" matches "42".
//
// Neither input is modified.
func CheckUpdate(s Strategy, existing, updated map[string]any) (UpdateDecision, error) {
	old, err := metaOf(existing, "stored")
	if err != nil {
		return UpdateDecision{}, err
	}
	sent, err := metaOf(updated, "new")
	if err != nil {
		return UpdateDecision{}, err
	}
	if sent.uid != "" {
		uid := sent.uid
		if err := CheckPreconditions(s, Preconditions{UID: &uid}, existing); err != nil {
			return UpdateDecision{}, err
		}
	}
	name := old.name
	storedRV, err := parseStorageVersion(old.resourceVersion)
	if err != nil || storedRV == 0 {
		// Storage always sets it; an object without one was not read from a server.
		return UpdateDecision{}, status.InternalError(field.Invalid(field.NewPath("metadata", "resourceVersion"),
			old.resourceVersion, "the stored object must carry the resourceVersion storage assigned"))
	}
	newRV, err := parseStorageVersion(sent.resourceVersion)
	if err != nil {
		// Not a status error on the server: ErrorToAPIStatus makes it a bare 500.
		return UpdateDecision{}, &status.Error{Code: 500, Reason: status.ReasonUnknown, Message: err.Error()}
	}
	if newRV == 0 {
		if s.AllowsUnconditionalUpdate(apiVersionOf(updated)) {
			return UpdateDecision{Unconditional: true, ResourceVersion: old.resourceVersion}, nil
		}
		// The apiserver names the resource where a kind belongs (a TODO there).
		gk := status.GroupKind{Group: s.Group, Kind: s.Resource}
		return UpdateDecision{}, status.Invalid(gk, name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), newRV, "must be specified for an update"),
		})
	}
	if newRV != storedRV {
		return UpdateDecision{}, status.Conflict(status.GroupResource{Group: s.Group, Resource: s.Resource}, name,
			fmt.Errorf("%s", OptimisticLockErrorMsg))
	}
	return UpdateDecision{ResourceVersion: old.resourceVersion}, nil
}

// ErrResourceVersionSetOnCreate is the text of storage's refusal of a create
// that carries a resourceVersion (apiserver storage.ErrResourceVersionSetOnCreate).
const ErrResourceVersionSetOnCreate = "resourceVersion should not be set on objects to be created"

// CheckCreate decides whether kube-apiserver's storage accepts creating obj on
// versions alone: a metadata.resourceVersion that reads as a non-zero number
// is refused with a bare 500 (the storage error is not a status error); ""
// and "0" are accepted, and so is a value that does not parse as a number
// (the check is skipped, and storage assigns the version). obj is not
// modified.
func CheckCreate(obj map[string]any) error {
	m, err := metaOf(obj, "new")
	if err != nil {
		return err
	}
	if rv, err := parseStorageVersion(m.resourceVersion); err == nil && rv != 0 {
		return &status.Error{Code: 500, Reason: status.ReasonUnknown, Message: ErrResourceVersionSetOnCreate}
	}
	return nil
}

// CheckPatch decides whether kube-apiserver accepts a PATCH of the stored
// object existing whose result is patched (the stored object with the patch
// applied), on optimistic concurrency alone. It is CheckUpdate without the
// UID precondition: the patch handler builds no precondition, so a patch that
// changes metadata.uid fails later, in validation (422 "field is immutable"),
// which this package does not model. A patch without resourceVersion leaves
// the stored one in place and always matches; one that sets it to null needs
// a strategy that allows unconditional updates (else 422); a stale one is 409.
// Neither input is modified.
func CheckPatch(s Strategy, existing, patched map[string]any) (UpdateDecision, error) {
	sent, err := metaOf(patched, "patched")
	if err != nil {
		return UpdateDecision{}, err
	}
	if sent.uid == "" {
		return CheckUpdate(s, existing, patched)
	}
	md, _ := patched["metadata"].(map[string]any)
	without := make(map[string]any, len(md))
	for k, v := range md {
		if k != "uid" {
			without[k] = v
		}
	}
	shallow := make(map[string]any, len(patched))
	for k, v := range patched {
		shallow[k] = v
	}
	shallow["metadata"] = without
	return CheckUpdate(s, existing, shallow)
}

// apiVersionOf returns the version part of obj's apiVersion ("v1" of "apps/v1").
func apiVersionOf(obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	for i := len(av) - 1; i >= 0; i-- {
		if av[i] == '/' {
			return av[i+1:]
		}
	}
	return av
}
