package apply

import (
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// UpdateValidation is a REST strategy's ValidateUpdate: it checks obj, the object the write
// would store (after the merge and the strategy's value reset), against live, the stored
// object, and returns the apiserver's 422 (a *status.Error) or nil. It does not change its
// arguments.
type UpdateValidation func(obj, live map[string]any) error

// StrategyValidation returns the update validation this package models for an endpoint: Pod
// /resize (ValidatePodResize) and /ephemeralcontainers (ValidatePodEphemeralContainersUpdate)
// in Kubernetes 1.37. nil for every other endpoint.
//
// The checks are schema/validation's (PodSubresourceChecks): the subresource's own, and of the
// whole pod's validation both strategies also run (which the registry runs through
// validation.ValidateUpdate) only the part these writes can break. Each strategy's value reset
// (StrategyReset) keeps the rest of the stored pod, which was valid when it was stored.
func StrategyValidation(gvk schema.GroupVersionKind, subresource string) UpdateValidation {
	if gvk.Group != "" || gvk.Kind != "Pod" {
		return nil
	}
	switch subresource {
	case "resize":
		return func(obj, live map[string]any) error { return podInvalid(obj, ValidatePodResize(obj, live)) }
	case "ephemeralcontainers":
		return func(obj, live map[string]any) error {
			return podInvalid(obj, ValidatePodEphemeralContainersUpdate(obj, live))
		}
	}
	return nil
}

// validateUpdate runs v on an update (live != nil); the hook Apply and Update call after the
// strategy's value reset.
func validateUpdate(v UpdateValidation, obj, live map[string]any) error {
	if v == nil || live == nil {
		return nil
	}
	return v(obj, live)
}

func podInvalid(obj map[string]any, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return status.Invalid(status.GroupKind{Kind: "Pod"}, metaString(obj, "name"), errs)
}

// ValidatePodResize is the update validation of Pod /resize without the whole pod's
// (schema/validation's PodSubresourceChecks): obj is the pod after the resize strategy's value
// reset (StrategyReset), live the stored pod. The errors come in the apiserver's order.
func ValidatePodResize(obj, live map[string]any) field.ErrorList {
	return validation.PodSubresourceChecks("resize", obj, live)
}

// ValidatePodEphemeralContainersUpdate is the update validation of Pod /ephemeralcontainers
// without the whole pod's (schema/validation's PodSubresourceChecks).
func ValidatePodEphemeralContainersUpdate(obj, live map[string]any) field.ErrorList {
	return validation.PodSubresourceChecks("ephemeralcontainers", obj, live)
}

// present returns m[key] and whether it is set to something other than null (a non-nil Go
// pointer once decoded).
func present(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	return v, ok && v != nil
}

func restartableInit(c map[string]any) bool { return c["restartPolicy"] == "Always" }
