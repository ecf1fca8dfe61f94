package apply

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/managedfields"
)

// capUpdateManagersSequential is what capUpdateManagers did before it united the folded sets
// once: the bucket united with each folded set in turn.
func capUpdateManagersSequential(managed managedfields.Managed, maxUpdaters int) {
	var updaters []string
	for id, vs := range managed.Fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= maxUpdaters {
		return
	}
	seconds := func(id string) int64 {
		if t := managed.Times[id]; t != nil {
			return t.Unix()
		}
		return 0
	}
	sort.Slice(updaters, func(i, j int) bool {
		si, sj := seconds(updaters[i]), seconds(updaters[j])
		if si != sj {
			return si < sj
		}
		return updaters[i] < updaters[j]
	})
	firstOfVersion := map[fieldpath.APIVersion]string{}
	for i, length := 0, len(updaters); i < len(updaters) && length > maxUpdaters; i++ {
		id := updaters[i]
		vs := managed.Fields[id]
		t := managed.Times[id]
		version := vs.APIVersion()
		bucket := managedfields.Identifier(managedfields.Entry{Manager: AncientChangesManager, Operation: managedfields.OperationUpdate, APIVersion: string(version)})
		first, ok := firstOfVersion[version]
		if !ok {
			firstOfVersion[version] = id
			continue
		}
		if _, ok := managed.Fields[bucket]; !ok {
			s := managed.Fields[first]
			delete(managed.Fields, first)
			managed.Fields[bucket] = s
		}
		managed.Fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(managed.Fields[bucket].Set()), vs.APIVersion(), vs.Applied())
		delete(managed.Fields, id)
		length--
		managed.Times[bucket] = t
	}
}

// randomManaged is n managers (Update mostly, some Apply) of two versions with times that
// tie, owning data keys that overlap, sometimes with ancient-changes entries already there.
func randomManaged(r *rand.Rand, n int) managedfields.Managed {
	m := managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
	add := func(e managedfields.Entry, keys int) {
		s := fieldpath.NewSet()
		for range keys {
			s.Insert(fieldpath.MakePathOrDie("data", fmt.Sprintf("k%d", r.IntN(3*n+1))))
		}
		id := managedfields.Identifier(e)
		m.Fields[id] = fieldpath.NewVersionedSet(s, fieldpath.APIVersion(e.APIVersion), e.Operation == managedfields.OperationApply)
		t := time.Date(2026, 1, 1, 0, 0, r.IntN(n+1), 0, time.UTC)
		if r.IntN(8) > 0 {
			m.Times[id] = &t
		}
	}
	for i := range n {
		op := managedfields.OperationUpdate
		if r.IntN(5) == 0 {
			op = managedfields.OperationApply
		}
		add(managedfields.Entry{Manager: fmt.Sprintf("m%d", i), Operation: op, APIVersion: []string{"v1", "v2"}[r.IntN(2)]}, 1+r.IntN(4))
	}
	for _, v := range []string{"v1", "v2"} {
		if r.IntN(3) == 0 {
			add(managedfields.Entry{Manager: AncientChangesManager, Operation: managedfields.OperationUpdate, APIVersion: v}, 1+r.IntN(3))
		}
	}
	return m
}

func copyManagedWithTimes(m managedfields.Managed) managedfields.Managed {
	out := managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
	for id, vs := range m.Fields {
		out.Fields[id] = vs
	}
	for id, t := range m.Times {
		out.Times[id] = t
	}
	return out
}

func TestCapUpdateManagersAgreesWithSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 6))
	for range 2000 {
		n := 1 + r.IntN(30)
		max := r.IntN(12)
		if max == 0 {
			max = 1
		}
		in := randomManaged(r, n)
		want, got := copyManagedWithTimes(in), copyManagedWithTimes(in)
		capUpdateManagersSequential(want, max)
		require.NoError(t, (&engine{maxUpdaters: max}).capUpdateManagers(got))
		require.True(t, want.Fields.Equals(got.Fields), "max %d of %v:\nwant %v\ngot  %v", max, in.Fields, want.Fields, got.Fields)
		require.Equal(t, want.Times, got.Times)
	}
}

// Folding n Update managers into ancient-changes copies each set a logarithmic number of
// times (uniting the bucket with each folded set in turn copied the growing bucket every time:
// quadratic).
func TestScalingCapUpdateManagers(t *testing.T) {
	allocated := func(n int) uint64 {
		m := managedfields.Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*time.Time{}}
		for i := range n {
			id := managedfields.Identifier(managedfields.Entry{Manager: fmt.Sprintf("m%05d", i), Operation: managedfields.OperationUpdate, APIVersion: "v1"})
			m.Fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(fieldpath.MakePathOrDie("data", fmt.Sprintf("k%05d", i))), "v1", false)
			tm := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
			m.Times[id] = &tm
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		require.NoError(t, (&engine{maxUpdaters: DefaultMaxUpdateManagers}).capUpdateManagers(m))
		runtime.ReadMemStats(&after)
		require.Len(t, m.Fields, DefaultMaxUpdateManagers)
		bucket := managedfields.Identifier(managedfields.Entry{Manager: AncientChangesManager, Operation: managedfields.OperationUpdate, APIVersion: "v1"})
		require.Equal(t, n-DefaultMaxUpdateManagers+1, m.Fields[bucket].Set().Size())
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(500), allocated(4000)
	t.Logf("bytes allocated: n=500 %d, n=4000 %d", small, large)
	// n log n: 8 times and the logarithm's growth (12/9), with slack for slices' doubling;
	// quadratic is 64 times.
	assert.LessOrEqual(t, large, 14*small, "more than n log n")
}
