package apply

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// smdApply is merge.Updater.Apply of structured-merge-diff v6.4.2, step for step (the same SMD
// operations on the same values, the same conversions in the same order, the same errors), with
// one difference: the pure computations the Updater repeats on identical inputs are done once.
// Its pruning takes the field set of the merged object twice (addBackOwnedItems and
// addBackDanglingItems) and widens it, and the applier's last set, to named fields twice; here a
// call-scoped memo keyed by the *TypedValue / *Set pointer answers the second request. Typed
// values and sets are immutable in SMD (every operation returns a new one) and a Converter
// returns its argument itself when no conversion is needed, so a pointer hit is the same value
// and the memo cannot change a result. The differential suite (conformance/fieldmanager) runs
// this against NewDefaultFieldManager.
func (e *engine) smdApply(live, config *typed.TypedValue, managers fieldpath.ManagedFields, manager string, force bool) (*typed.TypedValue, fieldpath.ManagedFields, error) {
	if e.updater.IgnoredFields != nil {
		return e.updater.Apply(live, config, e.gv, managers, manager, force)
	}
	u := smdUpdater{conv: e.updater.Converter, filters: e.updater.IgnoreFilter}
	return u.apply(live, config, e.gv, managers, manager, force)
}

// smdUpdate is merge.Updater.Update of structured-merge-diff v6.4.2 on the same steps as
// smdApply: reconcile (with reconcileNoop sparing SMD's walker for the sets the schema leaves
// alone), update, then the manager's set (its set less the removed fields, with the modified
// and added ones, filtered by the version's reset filter). Update returns newObject itself,
// which the caller has, so only the managers are returned.
func (e *engine) smdUpdate(live, newObj *typed.TypedValue, managers fieldpath.ManagedFields, manager string) (fieldpath.ManagedFields, error) {
	if e.updater.IgnoredFields != nil {
		_, fields, err := e.updater.Update(live, newObj, e.gv, managers, manager)
		return fields, err
	}
	u := smdUpdater{conv: e.updater.Converter, filters: e.updater.IgnoreFilter}
	managers, err := u.reconcile(live, managers)
	if err != nil {
		return fieldpath.ManagedFields{}, err
	}
	managers, cmp, err := u.update(live, newObj, e.gv, managers, manager, true)
	if err != nil {
		return fieldpath.ManagedFields{}, err
	}
	prev := fieldpath.NewSet()
	if vs, ok := managers[manager]; ok {
		prev = vs.Set()
	}
	set := prev.Difference(cmp.Removed).Union(cmp.Modified).Union(cmp.Added)
	if f := u.filters[e.gv]; f != nil {
		set = f.Filter(set)
	}
	if set.Empty() {
		delete(managers, manager)
	} else {
		managers[manager] = fieldpath.NewVersionedSet(set, e.gv, false)
	}
	return managers, nil
}

type smdUpdater struct {
	conv    merge.Converter
	filters map[fieldpath.APIVersion]fieldpath.Filter

	sets    map[*typed.TypedValue]setOrError
	widened map[widenKey]*fieldpath.Set

	// noWalk turns pruneByWalk off (tests of pruneNothingDangling); walked and shortcut record
	// which proof answered the pruning, for the tests.
	noWalk           bool
	walked, shortcut bool
}

type setOrError struct {
	set *fieldpath.Set
	err error
}

type widenKey struct {
	set *fieldpath.Set
	sc  *schema.Schema
	tr  schema.TypeRef
}

// toFieldSet is tv.ToFieldSet(), once per typed value.
func (u *smdUpdater) toFieldSet(tv *typed.TypedValue) (*fieldpath.Set, error) {
	if r, ok := u.sets[tv]; ok {
		return r.set, r.err
	}
	s, err := tv.ToFieldSet()
	if u.sets == nil {
		u.sets = make(map[*typed.TypedValue]setOrError, 4)
	}
	u.sets[tv] = setOrError{set: s, err: err}
	return s, err
}

// named is s.EnsureNamedFieldsAreMembers(sc, tr), once per set and type.
func (u *smdUpdater) named(s *fieldpath.Set, sc *schema.Schema, tr schema.TypeRef) *fieldpath.Set {
	k := widenKey{set: s, sc: sc, tr: tr}
	if w, ok := u.widened[k]; ok {
		return w
	}
	w := s.EnsureNamedFieldsAreMembers(sc, tr)
	if u.widened == nil {
		u.widened = make(map[widenKey]*fieldpath.Set, 6)
	}
	u.widened[k] = w
	return w
}

func (u *smdUpdater) apply(live, config *typed.TypedValue, version fieldpath.APIVersion, managers fieldpath.ManagedFields, manager string, force bool) (*typed.TypedValue, fieldpath.ManagedFields, error) {
	managers, err := u.reconcile(live, managers)
	if err != nil {
		return nil, fieldpath.ManagedFields{}, err
	}
	merged, err := live.Merge(config)
	if err != nil {
		return nil, fieldpath.ManagedFields{}, fmt.Errorf("failed to merge config: %v", err)
	}
	lastSet := managers[manager]
	set, err := config.ToFieldSet()
	if err != nil {
		return nil, fieldpath.ManagedFields{}, fmt.Errorf("failed to get field set: %v", err)
	}
	if f := u.filters[version]; f != nil {
		set = f.Filter(set)
	}
	managers[manager] = fieldpath.NewVersionedSet(set, version, true)
	merged, err = u.prune(merged, managers, manager, lastSet)
	if err != nil {
		return nil, fieldpath.ManagedFields{}, fmt.Errorf("failed to prune fields: %v", err)
	}
	managers, _, err = u.update(live, merged, version, managers, manager, force)
	if err != nil {
		return nil, fieldpath.ManagedFields{}, err
	}
	if value.EqualsUsing(value.NewFreelistAllocator(), live.AsValue(), merged.AsValue()) {
		merged = nil
	}
	return merged, managers, nil
}

// reconcile is reconcileManagedFieldsWithSchemaChanges: sets recorded before a type changed
// between atomic and granular are adjusted to the current schema.
func (u *smdUpdater) reconcile(live *typed.TypedValue, managers fieldpath.ManagedFields) (fieldpath.ManagedFields, error) {
	out := make(fieldpath.ManagedFields, len(managers)+1)
	for id, vs := range managers {
		tv, err := u.conv.Convert(live, vs.APIVersion())
		if u.conv.IsMissingVersionError(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if reconcileNoop(tv.Schema(), tv.TypeRef(), vs.Set()) {
			out[id] = vs // what ReconcileFieldSetWithSchema's nil answer keeps
			continue
		}
		reconciled, err := typed.ReconcileFieldSetWithSchema(vs.Set(), tv)
		if err != nil {
			return nil, err
		}
		if reconciled != nil {
			out[id] = fieldpath.NewVersionedSet(reconciled, vs.APIVersion(), vs.Applied())
		} else {
			out[id] = vs
		}
	}
	return out, nil
}

// prune removes what the applier applied last time and no longer applies, unless someone else
// owns it (Updater.prune, addBackOwnedItems, addBackDanglingItems).
func (u *smdUpdater) prune(merged *typed.TypedValue, managers fieldpath.ManagedFields, applier string, lastSet fieldpath.VersionedSet) (*typed.TypedValue, error) {
	if lastSet == nil || lastSet.Set().Empty() {
		return merged, nil
	}
	version := lastSet.APIVersion()
	converted, err := u.conv.Convert(merged, version)
	if err != nil {
		if u.conv.IsMissingVersionError(err) {
			return merged, nil
		}
		return nil, fmt.Errorf("failed to convert merged object to last applied version: %v", err)
	}
	if !u.noWalk {
		if ok, err := u.pruneByWalk(converted, version, managers, lastSet); ok || err != nil {
			if err != nil {
				return nil, err
			}
			u.walked = true
			return u.conv.Convert(converted.RemoveItems(fieldpath.NewSet()), managers[applier].APIVersion())
		}
	}
	sc, tr := converted.Schema(), converted.TypeRef()
	pruned := converted.RemoveItems(u.named(lastSet.Set(), sc, tr))
	if out, ok, err := u.pruneNothingDangling(converted, pruned, version, managers, lastSet); ok || err != nil {
		if err != nil {
			return nil, err
		}
		u.shortcut = true
		return u.conv.Convert(out, managers[applier].APIVersion())
	}
	pruned, err = u.addBackOwned(converted, pruned, version, managers)
	if err != nil {
		return nil, fmt.Errorf("failed add back owned items: %v", err)
	}
	pruned, err = u.addBackDangling(converted, pruned, lastSet)
	if err != nil {
		return nil, fmt.Errorf("failed add back dangling items: %v", err)
	}
	return u.conv.Convert(pruned, managers[applier].APIVersion())
}

func (u *smdUpdater) addBackOwned(merged, pruned *typed.TypedValue, prunedVersion fieldpath.APIVersion, managers fieldpath.ManagedFields) (*typed.TypedValue, error) {
	owned := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, vs := range managers {
		v := vs.APIVersion()
		if _, ok := owned[v]; !ok {
			owned[v] = fieldpath.NewSet()
		}
		owned[v] = owned[v].Union(vs.Set())
	}
	var err error
	// The pruned version first, as the Updater does (conversions may need the pruned fields).
	if s, ok := owned[prunedVersion]; ok {
		merged, pruned, err = u.addBackOwnedAt(merged, pruned, prunedVersion, s)
		if err != nil {
			return nil, err
		}
		delete(owned, prunedVersion)
	}
	for v, s := range owned {
		merged, pruned, err = u.addBackOwnedAt(merged, pruned, v, s)
		if err != nil {
			return nil, err
		}
	}
	return pruned, nil
}

func (u *smdUpdater) addBackOwnedAt(merged, pruned *typed.TypedValue, version fieldpath.APIVersion, owned *fieldpath.Set) (*typed.TypedValue, *typed.TypedValue, error) {
	var err error
	merged, err = u.conv.Convert(merged, version)
	if err != nil {
		if u.conv.IsMissingVersionError(err) {
			return merged, pruned, nil
		}
		return nil, nil, fmt.Errorf("failed to convert merged object at version %v: %v", version, err)
	}
	pruned, err = u.conv.Convert(pruned, version)
	if err != nil {
		if u.conv.IsMissingVersionError(err) {
			return merged, pruned, nil
		}
		return nil, nil, fmt.Errorf("failed to convert pruned object at version %v: %v", version, err)
	}
	mergedSet, err := u.toFieldSet(merged)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create field set from merged object at version %v: %v", version, err)
	}
	prunedSet, err := u.toFieldSet(pruned)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create field set from pruned object at version %v: %v", version, err)
	}
	sc, tr := merged.Schema(), merged.TypeRef()
	keep := u.named(prunedSet, sc, tr).Union(u.named(owned, sc, tr))
	pruned = merged.RemoveItems(u.named(mergedSet, sc, tr).Difference(keep))
	return merged, pruned, nil
}

func (u *smdUpdater) addBackDangling(merged, pruned *typed.TypedValue, lastSet fieldpath.VersionedSet) (*typed.TypedValue, error) {
	converted, err := u.conv.Convert(pruned, lastSet.APIVersion())
	if err != nil {
		if u.conv.IsMissingVersionError(err) {
			return merged, nil
		}
		return nil, fmt.Errorf("failed to convert pruned object to last applied version: %v", err)
	}
	prunedSet, err := u.toFieldSet(converted)
	if err != nil {
		return nil, fmt.Errorf("failed to create field set from pruned object in last applied version: %v", err)
	}
	mergedSet, err := u.toFieldSet(merged)
	if err != nil {
		return nil, fmt.Errorf("failed to create field set from merged object in last applied version: %v", err)
	}
	sc, tr := merged.Schema(), merged.TypeRef()
	prunedSet = u.named(prunedSet, sc, tr)
	mergedSet = u.named(mergedSet, sc, tr)
	last := u.named(lastSet.Set(), sc, tr)
	return merged.RemoveItems(mergedSet.Difference(prunedSet).Intersection(last)), nil
}

// update is Updater.update: the managers that own fields the write modified or added conflict
// (or lose them under force); every manager loses the fields the write removed. It also returns
// the comparison of old and new at version, unfiltered, as Updater.update does.
func (u *smdUpdater) update(old, new *typed.TypedValue, version fieldpath.APIVersion, managers fieldpath.ManagedFields, workflow string, force bool) (fieldpath.ManagedFields, *typed.Comparison, error) {
	conflicts := fieldpath.ManagedFields{}
	removed := fieldpath.ManagedFields{}
	cmp, err := old.Compare(new)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to compare objects: %v", err)
	}
	type versionComparison struct {
		c       *typed.Comparison
		changed *fieldpath.Set // Modified ∪ Added, computed once per version
	}
	versions := map[fieldpath.APIVersion]*versionComparison{
		version: {c: cmp.FilterFields(u.filters[version])},
	}
	for id, vs := range managers {
		if id == workflow {
			continue
		}
		v := vs.APIVersion()
		vc, ok := versions[v]
		if !ok {
			oldAt, err := u.conv.Convert(old, v)
			if err != nil {
				if u.conv.IsMissingVersionError(err) {
					delete(managers, id)
					continue
				}
				return nil, nil, fmt.Errorf("failed to convert old object: %v", err)
			}
			newAt, err := u.conv.Convert(new, v)
			if err != nil {
				if u.conv.IsMissingVersionError(err) {
					delete(managers, id)
					continue
				}
				return nil, nil, fmt.Errorf("failed to convert new object: %v", err)
			}
			c, err := oldAt.Compare(newAt)
			if err != nil {
				return nil, nil, fmt.Errorf("failed to compare objects: %v", err)
			}
			vc = &versionComparison{c: c.FilterFields(u.filters[v])}
			versions[v] = vc
		}
		if vc.changed == nil {
			vc.changed = vc.c.Modified.Union(vc.c.Added)
		}
		if cs := vs.Set().Intersection(vc.changed); !cs.Empty() {
			conflicts[id] = fieldpath.NewVersionedSet(cs, v, false)
		}
		if !vc.c.Removed.Empty() {
			removed[id] = fieldpath.NewVersionedSet(vc.c.Removed, v, false)
		}
	}
	if !force && len(conflicts) != 0 {
		return nil, nil, merge.ConflictsFromManagers(conflicts)
	}
	for id, cs := range conflicts {
		vs := managers[id]
		managers[id] = fieldpath.NewVersionedSet(vs.Set().Difference(cs.Set()), vs.APIVersion(), vs.Applied())
	}
	for id, rs := range removed {
		vs := managers[id]
		managers[id] = fieldpath.NewVersionedSet(vs.Set().Difference(rs.Set()), vs.APIVersion(), vs.Applied())
	}
	for id, vs := range managers {
		if vs.Set().Empty() {
			delete(managers, id)
		}
	}
	return managers, cmp, nil
}
