package apply

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/managedfields"
)

// RenamePlan says what renaming an applier (from) to req.Manager changes, when the new name
// applies req.Config.
type RenamePlan struct {
	// Owned are the fields from's Apply entry owns now; managedfields.Rename moves them to the new
	// name (a managedFields rewrite through PUT or JSON patch before the first apply).
	Owned []string
	// Conflicts are what the new name's first apply would conflict on without that migration.
	Conflicts []Conflict
	// Shared are the fields the new name would co-own with from after a forced first apply
	// without migration; from keeps them until it applies a configuration without them, so
	// removing them from the configuration later would not delete them.
	Shared []string
}

// PlanRename computes the RenamePlan of moving from's ownership to req.Manager. req is an apply
// by the new name; it is not changed.
func PlanRename(req Request, from string) (RenamePlan, error) {
	var plan RenamePlan
	fromID := managedfields.Identifier(managedfields.Entry{Manager: from, Operation: managedfields.OperationApply, Subresource: req.Subresource})
	var fromSet *fieldpath.Set
	if req.Live != nil {
		m, err := managedfields.DecodeObject(req.Live)
		if err != nil {
			return plan, internalError(err)
		}
		if vs, ok := m.Fields[fromID]; ok {
			fromSet = vs.Set()
			fromSet.Iterate(func(p fieldpath.Path) { plan.Owned = append(plan.Owned, p.String()) })
		}
	}
	conflicts, err := WouldConflict(req)
	if err != nil {
		return plan, err
	}
	plan.Conflicts = conflicts
	forced := req
	forced.Force = true
	res, err := Apply(forced)
	if err != nil {
		return plan, err
	}
	if fromSet == nil {
		return plan, nil
	}
	after, err := managedfields.DecodeObject(res.Object)
	if err != nil {
		return plan, internalError(err)
	}
	toID := managedfields.Identifier(managedfields.Entry{Manager: req.Manager, Operation: managedfields.OperationApply, Subresource: req.Subresource})
	fromAfter, okFrom := after.Fields[fromID]
	toAfter, okTo := after.Fields[toID]
	if okFrom && okTo {
		fromAfter.Set().Intersection(toAfter.Set()).Iterate(func(p fieldpath.Path) { plan.Shared = append(plan.Shared, p.String()) })
	}
	return plan, nil
}
