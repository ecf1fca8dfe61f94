package apply

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// pruneByWalk is pruneNothingDangling without the pruned object: it proves, from the merged
// object's field set alone, that the Updater's last two pruning passes remove nothing, and
// answers ok; when it cannot, the caller builds the pruned object and tries
// pruneNothingDangling, then the Updater's own steps.
//
// pruneNothingDangling needs R1 = named(M) − (named(P) ∪ named(O)), where M and P are the field
// sets of the merged and pruned objects and O the managers' union; its checks (R1 holds field
// names only and no apiVersion, and keepsPlace) are monotone: if they hold for a superset of R1
// they hold for R1 and the proof goes through. This walk computes such a superset,
// R1' = named(M) − (named(S) ∪ named(O)), for a set S ⊆ P read off M and named(last) (the set
// the pruned object is made with, pruned = merged.RemoveItems(named(last))) instead of taking
// the pruned object's field set. S is M without
//
//   - the paths at or below a member of named(last) (RemoveItems drops those nodes), and
//   - every list item of a list node that named(last) enters without removing the item whole
//     (children under an item that is not a member, or an index): RemoveItems may change such an
//     item's key (a key field removed, or the item nulled) or shift the indices, which changes
//     the path elements — and duplicates — of its siblings.
//
// Everything else of M keeps its path and its membership in P: RemoveItems leaves untouched
// subtrees as they are and removes nothing else; a map field whose children it removes
// becomes an empty map or null, which the field set records as a member (it was one, or a
// named field that named() makes one); a scalar, or a list item not disturbed, is a member in
// both. Hence S ⊆ P, named(S) ⊆ named(P) (named() is monotone, P has no empty nodes) and R1 ⊆
// R1'. Outside named(last)'s tree S equals M, so R1' is empty there and the walk does not go
// there. It stops (not ok) as soon as R1' would hold a path through a list item, which
// onlyFieldNames would refuse anyway.
//
// The Updater also converts the pruned object to the last-applied version; with smdConverter
// that is the identity exactly when it is for the merged object and the pruned object kept
// apiVersion (it does unless named(last) removes it). And P's field set cannot fail where M's
// did not: its nodes are a subset of M's, each typed by the same schema reference.
func (u *smdUpdater) pruneByWalk(merged *typed.TypedValue, version fieldpath.APIVersion, managers fieldpath.ManagedFields, lastSet fieldpath.VersionedSet) (bool, error) {
	if _, ok := u.conv.(smdConverter); !ok {
		return false, nil
	}
	if lastSet.APIVersion() != version {
		return false, nil
	}
	owned := make([]*fieldpath.Set, 0, len(managers))
	for _, vs := range managers {
		if vs.APIVersion() != version {
			return false, nil
		}
		owned = append(owned, vs.Set())
	}
	if m, err := u.conv.Convert(merged, version); err != nil || m != merged {
		return false, nil
	}
	sc, tr := merged.Schema(), merged.TypeRef()
	last := u.named(lastSet.Set(), sc, tr)
	if last.Members.Has(apiVersionElement) {
		return false, nil
	}
	mergedSet, err := u.toFieldSet(merged)
	if err != nil {
		return false, fmt.Errorf("failed add back owned items: failed to create field set from merged object at version %v: %v", version, err)
	}
	w := removalWalker{sc: sc, r1: fieldpath.NewSet()}
	w.walk(tr, mergedSet, last, true, owned)
	if w.abort || w.r1.Members.Has(apiVersionElement) {
		return false, nil
	}
	return keepsPlace(last, w.r1, mergedSet), nil
}

var apiVersionElement = fieldpath.PathElement{FieldName: &apiVersionField}

// removalWalker computes R1' (see pruneByWalk), a superset of what the Updater's
// addBackOwnedItems removes from the merged object, into r1.
type removalWalker struct {
	sc    *schema.Schema
	r1    *fieldpath.Set
	path  fieldpath.Path
	abort bool
}

// walk visits one node of M (m, not nil) of type tr. last is named(last)'s node (nil when it
// has none or the node is removed); survive is false below a removed member; owned holds the
// owners' nodes here (without nils). It returns whether S's node is non-empty.
func (w *removalWalker) walk(tr schema.TypeRef, m, last *fieldpath.Set, survive bool, owned []*fieldpath.Set) bool {
	atom, _ := w.sc.Resolve(tr)
	keepS := survive && !(last != nil && disturbsList(last))
	sNonEmpty := false
	// The children first: S's child tells whether a named field is a member of named(S).
	type childResult struct {
		pe fieldpath.PathElement
		s  bool
	}
	var named []childResult
	var childOwned []*fieldpath.Set
	// (Iterate, not All: SMD's All does not stop when the loop breaks.)
	m.Children.Iterate(func(pe fieldpath.PathElement) {
		if w.abort {
			return
		}
		mc, _ := m.Children.Get(pe)
		childSurvive := keepS && !(last != nil && last.Members.Has(pe))
		var lc *fieldpath.Set
		if childSurvive && last != nil {
			lc, _ = last.Children.Get(pe)
		}
		var s bool
		if childSurvive && lc == nil {
			s = !mc.Empty() // untouched: S = M below, R1' empty
		} else {
			childOwned = childOwned[:0]
			for _, o := range owned {
				if oc, ok := o.Children.Get(pe); ok {
					childOwned = append(childOwned, oc)
				}
			}
			w.path = append(w.path, pe)
			s = w.walk(childType(atom, pe), mc, lc, childSurvive, append([]*fieldpath.Set(nil), childOwned...))
			w.path = w.path[:len(w.path)-1]
		}
		if s {
			sNonEmpty = true
		}
		if isNamedField(atom, pe) {
			named = append(named, childResult{pe: pe, s: s})
		}
	})
	if w.abort {
		return false
	}
	// named(M)'s members here: M's members and its named children.
	m.Members.Iterate(func(pe fieldpath.PathElement) {
		if w.abort {
			return
		}
		if keepS && !(last != nil && last.Members.Has(pe)) {
			sNonEmpty = true // in S
			return
		}
		w.check(pe, atom, owned)
	})
	for _, c := range named {
		if w.abort {
			return false
		}
		if c.s || m.Members.Has(c.pe) {
			continue // in named(S), or seen above
		}
		w.check(c.pe, atom, owned)
	}
	return sNonEmpty && !w.abort
}

// check adds pe (a member of named(M) here, not of named(S)) to R1' unless an owner has it in
// its named set; it stops the walk when R1' would hold a path through a list item.
func (w *removalWalker) check(pe fieldpath.PathElement, atom schema.Atom, owned []*fieldpath.Set) {
	for _, o := range owned {
		if o.Members.Has(pe) {
			return
		}
		if isNamedField(atom, pe) {
			if oc, ok := o.Children.Get(pe); ok && !oc.Empty() {
				return
			}
		}
	}
	if pe.FieldName == nil {
		w.abort = true
		return
	}
	for _, p := range w.path {
		if p.FieldName == nil {
			w.abort = true
			return
		}
	}
	w.r1.Insert(append(w.path.Copy(), pe))
}

// disturbsList reports whether RemoveItems with last at a node may change the path elements of
// list items it does not remove: last enters an item it does not remove whole, or names an
// index.
func disturbsList(last *fieldpath.Set) bool {
	disturbs := false
	last.Children.Iterate(func(pe fieldpath.PathElement) {
		if pe.FieldName == nil && !last.Members.Has(pe) {
			disturbs = true
		}
	})
	last.Members.Iterate(func(pe fieldpath.PathElement) {
		if pe.Index != nil {
			disturbs = true
		}
	})
	return disturbs
}

// isNamedField is the test of EnsureNamedFieldsAreMembers: a field of the node's struct type.
func isNamedField(atom schema.Atom, pe fieldpath.PathElement) bool {
	if pe.FieldName == nil || atom.Map == nil {
		return false
	}
	_, ok := atom.Map.FindField(*pe.FieldName)
	return ok
}

// childType is the type EnsureNamedFieldsAreMembers gives a child node.
func childType(atom schema.Atom, pe fieldpath.PathElement) schema.TypeRef {
	switch {
	case pe.FieldName != nil && atom.Map != nil:
		if sf, ok := atom.Map.FindField(*pe.FieldName); ok {
			return sf.Type
		}
		return atom.Map.ElementType
	case pe.Key != nil && atom.List != nil:
		return atom.List.ElementType
	}
	return schema.TypeRef{}
}
