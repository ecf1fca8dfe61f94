package apply

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// pruneNothingDangling answers the end of the Updater's prune without its last two full passes
// over the object, when it can prove their outcome; ok is false when it cannot (the caller then
// runs them).
//
// The Updater removes R1 = named(merged) − (named(pruned) ∪ named(owned)) from the merged object
// (addBackOwnedItems), takes the field set of that object, and finally removes from the merged
// object R2 = (named(merged) − named(thatSet)) ∩ named(last) (addBackDanglingItems); "named" is
// EnsureNamedFieldsAreMembers. When R2 is empty the result is merged.RemoveItems(∅) (a shallow
// copy of the root). R2 is empty when no path p of named(last) loses its place in the set when
// R1 is removed, which holds when, for every such p:
//
//   - no path of R1 is p or a prefix of p (p's node is still there), and
//   - p is not a prefix of a path of R1 (its subtree is untouched and so is its membership), or,
//     when it is, the merged set has a path below p outside R1's reach (a witness: p keeps a
//     child in the set, so named() keeps p).
//
// The reasoning needs list items to keep their identity, so R1 may only hold field names (a list
// entered by RemoveItems could lose a key field); and the conversions the Updater makes on the
// way must be identities (one version, apiVersion kept), which is checked. Everything else falls
// back to the Updater's own steps; the differential suite compares both with the reference.
func (u *smdUpdater) pruneNothingDangling(merged, pruned *typed.TypedValue, version fieldpath.APIVersion, managers fieldpath.ManagedFields, lastSet fieldpath.VersionedSet) (*typed.TypedValue, bool, error) {
	owned := fieldpath.NewSet()
	for _, vs := range managers {
		if vs.APIVersion() != version {
			return nil, false, nil
		}
		owned = owned.Union(vs.Set())
	}
	if lastSet.APIVersion() != version {
		return nil, false, nil
	}
	// addBackOwnedItemsForVersion's conversions, which must give back their arguments.
	if m, err := u.conv.Convert(merged, version); err != nil || m != merged {
		return nil, false, nil
	}
	if p, err := u.conv.Convert(pruned, version); err != nil || p != pruned {
		return nil, false, nil
	}
	mergedSet, err := u.toFieldSet(merged)
	if err != nil {
		return nil, false, fmt.Errorf("failed add back owned items: failed to create field set from merged object at version %v: %v", version, err)
	}
	prunedSet, err := u.toFieldSet(pruned)
	if err != nil {
		return nil, false, fmt.Errorf("failed add back owned items: failed to create field set from pruned object at version %v: %v", version, err)
	}
	sc, tr := merged.Schema(), merged.TypeRef()
	keep := u.named(prunedSet, sc, tr).Union(u.named(owned, sc, tr))
	r1 := u.named(mergedSet, sc, tr).Difference(keep)
	// The object removing R1 gives must still carry its apiVersion (the next conversion is then
	// an identity too).
	if r1.Members.Has(fieldpath.PathElement{FieldName: &apiVersionField}) || !onlyFieldNames(r1) {
		return nil, false, nil
	}
	if !keepsPlace(u.named(lastSet.Set(), sc, tr), r1, mergedSet) {
		return nil, false, nil
	}
	return merged.RemoveItems(fieldpath.NewSet()), true, nil
}

var apiVersionField = "apiVersion"

// onlyFieldNames reports whether every path element of s is a field name.
func onlyFieldNames(s *fieldpath.Set) bool {
	ok := true
	s.Members.Iterate(func(pe fieldpath.PathElement) {
		if pe.FieldName == nil {
			ok = false
		}
	})
	if !ok {
		return false
	}
	s.Children.Iterate(func(pe fieldpath.PathElement) {
		if !ok {
			return
		}
		if pe.FieldName == nil {
			ok = false
			return
		}
		c, _ := s.Children.Get(pe)
		ok = onlyFieldNames(c)
	})
	return ok
}

// keepsPlace walks last (named(last)), r (R1) and m (the merged set) at the same node and
// reports whether every path of last keeps its place in the set once r is removed (see
// pruneNothingDangling). m may be nil (no merged paths below).
func keepsPlace(last, r, m *fieldpath.Set) bool {
	ok := true
	last.Members.Iterate(func(pe fieldpath.PathElement) {
		if !ok {
			return
		}
		if r.Members.Has(pe) {
			ok = false
			return
		}
		rc, has := r.Children.Get(pe)
		if !has || rc.Empty() {
			return
		}
		var mc *fieldpath.Set
		if m != nil {
			mc, _ = m.Children.Get(pe)
		}
		ok = mc != nil && hasWitness(mc, rc)
	})
	if !ok {
		return false
	}
	last.Children.Iterate(func(pe fieldpath.PathElement) {
		if !ok {
			return
		}
		if r.Members.Has(pe) {
			ok = false
			return
		}
		rc, has := r.Children.Get(pe)
		if !has || rc.Empty() {
			return
		}
		lc, _ := last.Children.Get(pe)
		var mc *fieldpath.Set
		if m != nil {
			mc, _ = m.Children.Get(pe)
		}
		ok = keepsPlace(lc, rc, mc)
	})
	return ok
}

// hasWitness reports whether m has a path that r neither removes (no prefix of it is a member
// of r) nor reaches into (it is no prefix of a path of r).
func hasWitness(m, r *fieldpath.Set) bool {
	found := false
	m.Members.Iterate(func(pe fieldpath.PathElement) {
		if found || r.Members.Has(pe) {
			return
		}
		if rc, has := r.Children.Get(pe); !has || rc.Empty() {
			found = true
		}
	})
	if found {
		return true
	}
	m.Children.Iterate(func(pe fieldpath.PathElement) {
		if found || r.Members.Has(pe) {
			return
		}
		mc, _ := m.Children.Get(pe)
		rc, has := r.Children.Get(pe)
		if !has || rc.Empty() {
			found = !mc.Empty()
			return
		}
		found = hasWitness(mc, rc)
	})
	return found
}
