package apply

import "github.com/writepath/writepath/schema"

// Prepare is the value half of a REST strategy's PrepareForCreate and PrepareForUpdate, apart
// from the field manager: kube-apiserver runs the field manager, then mutating admission, then
// the strategy, so a mutating webhook or policy sees the fields a write sends but the strategy
// resets (a Deployment's status on an update of the Deployment), and what it writes there is
// reset again. Apply and Update run it themselves when their request carries ResetValues or
// Reset (the answer without admission); a pipeline with admission (registry) leaves those empty
// and calls Prepare after mutating admission, then KeepTimesOnNoop.
type Prepare struct {
	// Kind, Types and CreateFrom give the object a create restores from (the kind's zero
	// object), as in Request.
	Kind       schema.GroupVersionKind
	Types      TypeConverter
	CreateFrom map[string]any
	// ResetValues and Reset are as in Request.
	ResetValues [][]string
	Reset       ValueReset
	// LiveShared is as in UpdateRequest: the reset values may be Live's own.
	LiveShared bool
}

// Apply resets obj (owned by the caller, changed in place) from live, the stored object (nil
// on a create: the reset then restores the object the create started from).
func (p Prepare) Apply(obj, live map[string]any) {
	if p.ResetValues != nil {
		base := live
		if base == nil {
			base = createBase(p.CreateFrom, p.Types, p.Kind)
		}
		resetValuesSharing(obj, base, p.ResetValues, p.LiveShared && live != nil)
	}
	if p.Reset != nil {
		p.Reset(obj, live)
	}
}

// ValidateUpdate runs v, a strategy's update validation (StrategyValidation), on an update
// (live != nil): its 422, or nil.
func ValidateUpdate(v UpdateValidation, obj, live map[string]any) error {
	return validateUpdate(v, obj, live)
}

// KeepTimesOnNoop is the storage layer's IgnoreManagedFieldsTimestampsTransformer, which
// kube-apiserver runs after the strategy (rest.BeforeUpdate): when obj differs from live only
// in managedFields timestamps, it gets live's. obj is owned by the caller and may be changed in
// place; the result is obj or its replacement.
func KeepTimesOnNoop(obj, live map[string]any) map[string]any {
	if live == nil {
		return obj
	}
	return keepTimesOnNoop(obj, live)
}
