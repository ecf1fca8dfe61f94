package managedfields

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Upgrade moves client-side-apply ownership to a server-side-apply manager, as client-go's
// csaupgrade.UpgradeManagedFields does (kubectl runs it after its first server-side apply of an
// object it used to apply client-side): for each name in csaManagers, in order, the fields of its
// Update entry on subresource are added to ssaManager's Apply entry (which the Update entry
// becomes, in place, when there is none yet) and the Update entry is removed. Entries keep their
// positions; nothing else changes. entries is not modified.
//
// client-go iterates over a set of names (random order); with several names writepath uses the
// order given.
func Upgrade(entries []Entry, csaManagers []string, ssaManager, subresource string) ([]Entry, error) {
	if len(csaManagers) == 0 || entries == nil {
		return entries, nil
	}
	// One pass for all the names, with the results of client-go's pass per name (each copies the
	// list and re-encodes the target's growing set: quadratic in the names and fields): the
	// target is found once, the Update entries of each name are looked up by name, and the sets
	// to add are united once at the end.
	list := append([]Entry(nil), entries...)
	isUpdate := func(e Entry) bool { return e.Operation == OperationUpdate && e.Subresource == subresource }
	byManager := map[string][]int{}
	for i, e := range list {
		if isUpdate(e) {
			byManager[e.Manager] = append(byManager[e.Manager], i)
		}
	}
	target := -1
	for i, e := range list {
		if e.Manager == ssaManager && e.Operation == OperationApply && e.Subresource == subresource {
			target = i
			break
		}
	}
	removed := make([]bool, len(list))
	var sets []*fieldpath.Set
	touched := false
	for _, csa := range csaManagers {
		idxs := byManager[csa]
		delete(byManager, csa) // a name given twice finds nothing the second time
		if target < 0 {
			if len(idxs) == 0 {
				continue
			}
			target = idxs[0]
			list[target].Operation = OperationApply
			list[target].Manager = ssaManager
		}
		if !touched {
			s, err := SetFromFieldsV1(list[target].FieldsV1)
			if err != nil {
				return nil, fmt.Errorf("failed to convert fields to set: %w", err)
			}
			sets, touched = append(sets, s), true
		}
		for _, i := range idxs {
			if i != target && list[i].APIVersion == list[target].APIVersion {
				s, err := SetFromFieldsV1(list[i].FieldsV1)
				if err != nil {
					return nil, fmt.Errorf("failed to convert fields to set: %w", err)
				}
				sets = append(sets, s)
				break
			}
		}
		for _, i := range idxs {
			if i != target {
				removed[i] = true
			}
		}
	}
	if !touched {
		return list, nil
	}
	raw, err := FieldsV1FromSet(UnionAll(sets))
	if err != nil {
		return nil, fmt.Errorf("failed to encode field set: %w", err)
	}
	list[target].FieldsV1 = raw
	var filtered []Entry
	for i, e := range list {
		if !removed[i] {
			filtered = append(filtered, e)
		}
	}
	return filtered, nil
}

// UnionAll is the union of sets (an empty set for none), united in pairs, then pairs of pairs:
// each set is copied a logarithmic number of times, where uniting them one by one into a growing
// set copies the union once per set.
func UnionAll(sets []*fieldpath.Set) *fieldpath.Set {
	if len(sets) == 0 {
		return fieldpath.NewSet()
	}
	for len(sets) > 1 {
		next := make([]*fieldpath.Set, 0, (len(sets)+1)/2)
		for i := 0; i < len(sets); i += 2 {
			if i+1 < len(sets) {
				next = append(next, sets[i].Union(sets[i+1]))
			} else {
				next = append(next, sets[i])
			}
		}
		sets = next
	}
	return sets[0]
}

// FindOwners returns the entries of the given operation whose sets contain every path of fields
// (csaupgrade.FindFieldsOwners). Entries whose FieldsV1 does not decode are skipped.
func FindOwners(entries []Entry, op Operation, fields *fieldpath.Set) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Operation != op {
			continue
		}
		s, err := SetFromFieldsV1(e.FieldsV1)
		if err != nil {
			continue
		}
		if fields.Difference(s).Empty() {
			out = append(out, e)
		}
	}
	return out
}

// Rename moves the ownership of an Apply manager to another name (a field-manager rename): the
// fields of from's Apply entry on subresource are added to to's Apply entry (from's entry becomes
// to's, in place, when to has none), and from's entry is removed. Without the rename, the new
// name's first apply would co-own every field whose value it leaves unchanged and conflict on
// every field it changes, while the old name kept its fields (see apply.WouldConflict).
// entries is not modified.
func Rename(entries []Entry, from, to, subresource string) ([]Entry, error) {
	if from == to || entries == nil {
		return append([]Entry(nil), entries...), nil
	}
	list := append([]Entry(nil), entries...)
	isFrom := func(e Entry) bool {
		return e.Manager == from && e.Operation == OperationApply && e.Subresource == subresource
	}
	src, dst := -1, -1
	for i, e := range list {
		switch {
		case isFrom(e) && src < 0:
			src = i
		case e.Manager == to && e.Operation == OperationApply && e.Subresource == subresource && dst < 0:
			dst = i
		}
	}
	if src < 0 {
		return list, nil
	}
	if dst < 0 {
		list[src].Manager = to
		return list, nil
	}
	a, err := SetFromFieldsV1(list[dst].FieldsV1)
	if err != nil {
		return nil, fmt.Errorf("failed to convert fields to set: %w", err)
	}
	b, err := SetFromFieldsV1(list[src].FieldsV1)
	if err != nil {
		return nil, fmt.Errorf("failed to convert fields to set: %w", err)
	}
	raw, err := FieldsV1FromSet(a.Union(b))
	if err != nil {
		return nil, err
	}
	list[dst].FieldsV1 = raw
	return append(list[:src:src], list[src+1:]...), nil
}
