package managedfields

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// ownersMatchingScan is what ownersMatching did before it sorted the owned paths: the union
// built one entry at a time, then every entry's set asked for every path of it.
func ownersMatchingScan(obj map[string]any, prefix string) ([]FieldOwners, error) {
	entries, err := decodeSets(obj)
	if err != nil {
		return nil, err
	}
	union := fieldpath.NewSet()
	for _, e := range entries {
		union = union.Union(e.set)
	}
	var out []FieldOwners
	union.Iterate(func(p fieldpath.Path) {
		s := p.String()
		if prefix != "" && !underPath(s, prefix) {
			return
		}
		fo := FieldOwners{Path: s}
		for _, e := range entries {
			if e.set.Has(p) {
				fo.Owners = append(fo.Owners, ownerOf(e.Entry))
			}
		}
		out = append(out, fo)
	})
	return out, nil
}

// objectWithSets is a ConfigMap whose managedFields hold one Update entry per set.
func objectWithSets(t testing.TB, sets []*fieldpath.Set) map[string]any {
	var entries []any
	for i, s := range sets {
		raw, err := FieldsV1FromSet(s)
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(raw, &fields))
		entries = append(entries, map[string]any{"manager": fmt.Sprintf("m%d", i), "operation": "Update", "apiVersion": "v1",
			"time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields})
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "default", "managedFields": entries}}
}

// randomPath is a path of one to four elements of every kind, with field names that print
// alike (".a.b" is a then b, or the one field "a.b").
func randomPath(r *rand.Rand) fieldpath.Path {
	n := 1 + r.IntN(4)
	p := make(fieldpath.Path, 0, n)
	for range n {
		var pe fieldpath.PathElement
		switch r.IntN(6) {
		case 0, 1, 2:
			pe = fieldpath.FieldNameElement([]string{"a", "b", "a.b", "spec", "data"}[r.IntN(5)])
		case 3:
			pe = fieldpath.KeyElementByFields("name", []string{"x", "y"}[r.IntN(2)])
		case 4:
			pe = fieldpath.ValueElement(value.NewValueInterface([]any{"v1", int64(2), true}[r.IntN(3)]))
		default:
			pe = fieldpath.IndexElement(r.IntN(2))
		}
		p = append(p, pe)
	}
	return p
}

func TestOwnersAgreeWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 3))
	for range 1500 {
		sets := make([]*fieldpath.Set, 1+r.IntN(5))
		for i := range sets {
			sets[i] = fieldpath.NewSet()
			for range r.IntN(12) {
				sets[i].Insert(randomPath(r))
			}
		}
		obj := objectWithSets(t, sets)
		for _, prefix := range []string{"", ".a", ".a.b", ".spec", "[name=\"x\"]"} {
			want, werr := ownersMatchingScan(obj, prefix)
			got, gerr := ownersMatching(obj, prefix)
			require.Equal(t, werr, gerr, "prefix %q of %v", prefix, obj)
			require.Equal(t, want, got, "prefix %q of %v", prefix, obj)
		}
	}
}

// Owners of an object with many managers counts work n log n in the paths they own (the
// union built one entry at a time and every entry asked for every path cost managers times
// fields: 1,000 managers owning a key each, a million set lookups).
func TestScalingOwners(t *testing.T) {
	work := func(n int) int {
		sets := make([]*fieldpath.Set, n)
		for i := range sets {
			// Every manager owns a key of its own and .data.shared.
			sets[i] = fieldpath.NewSet(
				fieldpath.MakePathOrDie("data", fmt.Sprintf("k%06d", i)),
				fieldpath.MakePathOrDie("data", "shared"))
		}
		st := &ownersStats{}
		owners, err := ownersMatchingCounted(objectWithSets(t, sets), "", st)
		require.NoError(t, err)
		require.Len(t, owners, n+1)
		for _, fo := range owners {
			if fo.Path == ".data.shared" {
				assert.Len(t, fo.Owners, n)
			} else {
				assert.Len(t, fo.Owners, 1, fo.Path)
			}
		}
		return st.paths + st.compares
	}
	small, large := work(500), work(4000)
	t.Logf("work units: n=500 %d, n=4000 %d", small, large)
	// n log n: 8 times and the logarithm's growth, with 10% to spare (quadratic is 64 times).
	growth := float64(bits.Len(8000)) / float64(bits.Len(1000))
	assert.LessOrEqual(t, float64(large), 1.1*8*growth*float64(small), "more than n log n")
}
