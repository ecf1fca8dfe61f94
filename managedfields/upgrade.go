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
	out := entries
	for _, csa := range csaManagers {
		var err error
		if out, err = upgradeOne(out, csa, ssaManager, subresource); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func upgradeOne(entries []Entry, csa, ssa, subresource string) ([]Entry, error) {
	if entries == nil {
		return nil, nil
	}
	list := append([]Entry(nil), entries...)
	isCSA := func(e Entry) bool {
		return e.Manager == csa && e.Operation == OperationUpdate && e.Subresource == subresource
	}
	target := -1
	for i, e := range list {
		if e.Manager == ssa && e.Operation == OperationApply && e.Subresource == subresource {
			target = i
			break
		}
	}
	if target < 0 {
		for i, e := range list {
			if isCSA(e) {
				target = i
				break
			}
		}
		if target < 0 {
			return list, nil
		}
		list[target].Operation = OperationApply
		list[target].Manager = ssa
	}
	targetSet, err := SetFromFieldsV1(list[target].FieldsV1)
	if err != nil {
		return nil, fmt.Errorf("failed to convert fields to set: %w", err)
	}
	combined := targetSet
	for _, e := range list {
		if isCSA(e) && e.APIVersion == list[target].APIVersion {
			s, err := SetFromFieldsV1(e.FieldsV1)
			if err != nil {
				return nil, fmt.Errorf("failed to convert fields to set: %w", err)
			}
			combined = combined.Union(s)
			break
		}
	}
	raw, err := FieldsV1FromSet(combined)
	if err != nil {
		return nil, fmt.Errorf("failed to encode field set: %w", err)
	}
	list[target].FieldsV1 = raw
	var filtered []Entry
	for _, e := range list {
		if !isCSA(e) {
			filtered = append(filtered, e)
		}
	}
	return filtered, nil
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
