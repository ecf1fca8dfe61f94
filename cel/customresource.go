package cel

import (
	"context"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// blockingNotice is the apiserver's error when schema validation already failed in a way that
// makes CEL evaluation meaningless.
const blockingNotice = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// ValidateCustomResource runs the x-kubernetes-validations rules of a CRD version on a custom
// object, as the custom resource strategy does after schema validation: obj is the object as
// validated (pruned, defaulted; schema.Result.Object), old the stored object on update (nil on
// create), prior the errors schema validation found. When prior holds an error of type
// NotSupported, Required, TooLong, TooMany or TypeInvalid the rules are not run and the
// apiserver's single notice is returned instead. The runtime budget is RuntimeCELCostBudget.
// The rules are compiled on every call: a caller validating many objects holds a Validators
// and calls its ValidateCustomResource. obj and old are not modified.
func ValidateCustomResource(ctx context.Context, v *schema.Version, obj, old map[string]any, prior field.ErrorList) Result {
	var vs Validators
	return vs.ValidateCustomResource(ctx, v, obj, old, prior)
}

// ValidateCustomResource is the package's ValidateCustomResource with the rules compiled once
// per schema and kept in vs.
func (vs *Validators) ValidateCustomResource(ctx context.Context, v *schema.Version, obj, old map[string]any, prior field.ErrorList) Result {
	if v == nil || v.Structural == nil {
		return Result{RemainingBudget: RuntimeCELCostBudget}
	}
	val := vs.For(v.Structural)
	if val == nil {
		return Result{RemainingBudget: RuntimeCELCostBudget}
	}
	for _, e := range prior {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return Result{Errors: field.ErrorList{field.Invalid(field.Path{}, nil, blockingNotice)}, RemainingBudget: RuntimeCELCostBudget}
		}
	}
	var oldAny any
	if old != nil {
		oldAny = old
	}
	return val.Validate(ctx, field.Path{}, obj, oldAny, RuntimeCELCostBudget)
}
