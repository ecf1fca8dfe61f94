package versions

import (
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic/registry"
)

func typesUID(s string) types.UID { return types.UID(s) }

func uidPtr(s *string) *types.UID {
	if s == nil {
		return nil
	}
	u := types.UID(*s)
	return &u
}

// conflictRef is registry.Store.Update's answer to a stale resourceVersion.
func conflictRef(gr schema.GroupResource) error {
	return apierrors.NewConflict(gr, "web", fmt.Errorf(registry.OptimisticLockErrorMsg))
}

// missingRVRef is registry.Store.Update's answer to an update without
// resourceVersion where the strategy does not allow unconditional updates.
func missingRVRef(gr schema.GroupResource) error {
	gk := schema.GroupKind{Group: gr.Group, Kind: gr.Resource}
	return apierrors.NewInvalid(gk, "web", field.ErrorList{
		field.Invalid(field.NewPath("metadata").Child("resourceVersion"), uint64(0), "must be specified for an update")})
}

// parseRef is the versioner's error for a resourceVersion that is not a number.
func parseRef(rv string) error {
	_, err := strconv.ParseUint(rv, 10, 64)
	return err
}
