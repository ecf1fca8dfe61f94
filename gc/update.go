package gc

import (
	"fmt"
	"sort"

	"github.com/writepath/writepath/field"
)

// UpdateResult is the outcome of an update (PUT, or the object a patch produced) as far as
// deletion is concerned.
type UpdateResult struct {
	// Object is the object as stored, with the fields an update cannot change (deletionTimestamp,
	// deletionGracePeriodSeconds) carried over from the old object; nil when removed.
	Object Object
	// Removed is true when the update removed the last finalizer of an object being deleted
	// whose grace period is over: the apiserver deletes it instead of storing it.
	Removed bool
}

// Update applies the deletion rules of an update of old into updated, as kube-apiserver does:
// rest.BeforeUpdate carries deletionTimestamp and deletionGracePeriodSeconds over, validation
// refuses new finalizers on an object being deleted and changes to the deletion fields, and
// an update that leaves an object being deleted (with no grace period pending) without
// finalizers deletes it (for namespaces, spec.finalizers must be empty too). Other validation
// and the generation are the business of other packages. Neither input is modified; errors are
// *status.Error values (422 Invalid).
func Update(old, updated Object, kinds Kinds) (UpdateResult, error) {
	om, err := readMeta(old)
	if err != nil {
		return UpdateResult{}, badRequest(err.Error())
	}
	nm, err := readMeta(updated)
	if err != nil {
		return UpdateResult{}, badRequest(err.Error())
	}
	k := (&catalog{user: kinds}).kindOf(&om)
	set := map[string]any{}
	if om.deleting() {
		set["deletionTimestamp"] = om.deletionTimestamp
	}
	if om.deletionGrace != nil && nm.deletionGrace == nil {
		set["deletionGracePeriodSeconds"] = *om.deletionGrace
	}
	var errs field.ErrorList
	if om.deleting() {
		have := map[string]bool{}
		for _, f := range om.finalizers {
			have[f] = true
		}
		extra := map[string]bool{}
		for _, f := range nm.finalizers {
			if !have[f] {
				extra[f] = true
			}
		}
		if len(extra) > 0 {
			list := sortedKeys(extra)
			sort.Strings(list)
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "finalizers"),
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", list)))
		}
	} else if nm.deleting() {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "deletionTimestamp"), nm.deletionTimestamp, "field is immutable"))
	}
	if nm.deletionGrace != nil {
		if om.deletionGrace == nil || *om.deletionGrace != *nm.deletionGrace {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "deletionGracePeriodSeconds"), *nm.deletionGrace, "field is immutable"))
		}
	}
	if len(errs) > 0 {
		return UpdateResult{}, invalidError(k.Group, k.Kind, nm.name, errs)
	}
	next := updated
	if len(set) > 0 {
		next = withMeta(updated, set)
	}
	it := &item{m: om, k: &k}
	if shouldDeleteDuringUpdate(it, next, nm.finalizers) {
		return UpdateResult{Removed: true}, nil
	}
	return UpdateResult{Object: next}, nil
}
