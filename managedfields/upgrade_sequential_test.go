package managedfields

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// upgradeSequential is what Upgrade did before it made one pass for all the names: client-go's
// pass per name.
func upgradeSequential(entries []Entry, csaManagers []string, ssaManager, subresource string) ([]Entry, error) {
	out := entries
	for _, csa := range csaManagers {
		var err error
		if out, err = upgradeOneSequential(out, csa, ssaManager, subresource); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func upgradeOneSequential(entries []Entry, csa, ssa, subresource string) ([]Entry, error) {
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

// randomUpgradeEntries is n entries of a few managers (Update and Apply, two versions, a
// subresource), some with FieldsV1 that does not decode, owning overlapping data keys.
func randomUpgradeEntries(r *rand.Rand, n int) []Entry {
	var out []Entry
	for range n {
		e := Entry{Manager: []string{"kubectl", "csa1", "csa2", "other"}[r.IntN(4)], APIVersion: []string{"v1", "v2"}[r.IntN(2)],
			Operation: OperationUpdate}
		if r.IntN(4) == 0 {
			e.Operation = OperationApply
		}
		if r.IntN(6) == 0 {
			e.Subresource = "status"
		}
		s := fieldpath.NewSet()
		for range 1 + r.IntN(3) {
			s.Insert(fieldpath.MakePathOrDie("data", fmt.Sprintf("k%d", r.IntN(6))))
		}
		raw, err := FieldsV1FromSet(s)
		if err != nil {
			panic(err)
		}
		e.FieldsV1 = raw
		if r.IntN(30) == 0 {
			e.FieldsV1 = []byte(`{"f:data":`)
		}
		out = append(out, e)
	}
	return out
}

func TestUpgradeAgreesWithSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 7))
	names := []string{"kubectl", "csa1", "csa2", "missing"}
	for range 5000 {
		entries := randomUpgradeEntries(r, r.IntN(8))
		if r.IntN(10) == 0 {
			entries = []Entry{}
		}
		var csa []string
		for range r.IntN(4) {
			csa = append(csa, names[r.IntN(len(names))])
		}
		ssa := []string{"kubectl", "csa1", "new"}[r.IntN(3)]
		sub := []string{"", "status"}[r.IntN(2)]
		var before []Entry
		if entries != nil {
			before = append(make([]Entry, 0, len(entries)), entries...)
		}
		want, werr := upgradeSequential(entries, csa, ssa, sub)
		got, gerr := Upgrade(entries, csa, ssa, sub)
		require.Equal(t, before, entries, "entries not modified")
		require.Equal(t, werr, gerr, "%v %q %q of %s", csa, ssa, sub, MarshalEntries(entries))
		require.Equal(t, want, got, "%v %q %q of %s", csa, ssa, sub, MarshalEntries(entries))
	}
}

// Upgrading n client-side managers at once is linear in the entries (n log n in the fields
// united), where a pass per name copied the list and re-encoded the growing target each time.
func TestScalingUpgrade(t *testing.T) {
	allocated := func(n int) uint64 {
		var entries []Entry
		var csa []string
		for i := range n {
			name := fmt.Sprintf("csa%05d", i)
			csa = append(csa, name)
			raw, err := FieldsV1FromSet(fieldpath.NewSet(fieldpath.MakePathOrDie("data", fmt.Sprintf("k%05d", i))))
			require.NoError(t, err)
			entries = append(entries, Entry{Manager: name, Operation: OperationUpdate, APIVersion: "v1", FieldsV1: raw})
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		out, err := Upgrade(entries, csa, "kubectl", "")
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Len(t, out, 1)
		s, err := SetFromFieldsV1(out[0].FieldsV1)
		require.NoError(t, err)
		require.Equal(t, n, s.Size())
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(250), allocated(2000)
	t.Logf("bytes allocated: n=250 %d, n=2000 %d", small, large)
	assert.LessOrEqual(t, large, 14*small, "more than n log n")
}
