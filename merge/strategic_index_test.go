package merge

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// The indexed list algorithms against the reference's scans they replace: the same results, the
// same errors, the same writes into the backing array.

// deleteMatchingEntriesScan is the reference's deleteMatchingEntries: scan, remove, rescan.
func deleteMatchingEntriesScan(original []any, mergeKey string, mergeValue any) ([]any, error) {
	for {
		_, i, found, err := findMapInSliceBasedOnKeyValue(original, mergeKey, mergeValue)
		if err != nil {
			return nil, err
		}
		if !found {
			return original, nil
		}
		original = append(original[:i], original[i+1:]...)
	}
}

// randomScalars draws n values from a small pool so that duplicates abound; NaN, -0 and a lone
// map or list show up too.
func randomScalars(r *rand.Rand, n int) []any {
	pool := []any{int64(1), int64(2), int64(3), "a", "b", "1", 1.0, 2.5, math.Copysign(0, -1), 0.0, true, false, nil, math.NaN()}
	out := make([]any, n)
	for i := range out {
		out[i] = pool[r.IntN(len(pool))]
	}
	switch r.IntN(6) {
	case 0:
		out[r.IntN(n)] = map[string]any{"x": int64(1)}
	case 1:
		out[r.IntN(n)] = []any{int64(1)}
	case 2:
		out[r.IntN(n)] = map[string]any{"x": int64(1)}
		out[r.IntN(n)] = map[string]any{"y": int64(1)}
	}
	return out
}

// same compares two lists element by element, NaN equal to NaN and maps by identity of content.
func same(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		fa, oka := a[i].(float64)
		fb, okb := b[i].(float64)
		if oka && okb && math.IsNaN(fa) && math.IsNaN(fb) {
			continue
		}
		if oka && okb {
			if math.Float64bits(fa) != math.Float64bits(fb) {
				return false
			}
			continue
		}
		if fmt.Sprintf("%#v", a[i]) != fmt.Sprintf("%#v", b[i]) {
			return false
		}
	}
	return true
}

func checkDedupe(t *testing.T, in []any) {
	t.Helper()
	want := slices.Clone(in)
	got := slices.Clone(in)
	wantOut, wantErr := deduplicateScalarsPairwise(want)
	gotOut, gotErr := deduplicateScalars(got, nil)
	require.Equal(t, wantErr, gotErr, "input %#v", in)
	if wantErr != nil {
		return
	}
	assert.True(t, same(wantOut, gotOut), "input %#v: result %#v, want %#v", in, gotOut, wantOut)
	// The slots past the new end hold what the reference left there.
	assert.True(t, same(want, got), "input %#v: backing array %#v, want %#v", in, got, want)
}

func TestDeduplicateScalarsAgreesWithPairwise(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	for range 3000 {
		checkDedupe(t, randomScalars(r, 1+r.IntN(40)))
	}
	checkDedupe(t, []any{})
	checkDedupe(t, []any{"a"})
}

func FuzzDeduplicateScalars(f *testing.F) {
	f.Add([]byte{1, 2, 1, 3, 1, 1})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{13, 13, 9, 8, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 200 {
			return
		}
		pool := []any{int64(1), int64(2), int64(3), "a", "b", "1", 1.0, 2.5, math.Copysign(0, -1), 0.0, true, false, nil, math.NaN(), map[string]any{}, []any{}}
		in := make([]any, len(b))
		for i, c := range b {
			in[i] = pool[int(c)%len(pool)]
		}
		checkDedupe(t, in)
	})
}

// randomMapList is a list of maps with merge key "k" (some repeated, some missing, some of
// another type), with the odd non-map item.
func randomMapList(r *rand.Rand, n int) []any {
	out := make([]any, n)
	for i := range out {
		m := map[string]any{"v": int64(i)}
		switch r.IntN(8) {
		case 0:
		case 1:
			m["k"] = fmt.Sprint(r.IntN(5))
		case 2:
			m["k"] = map[string]any{"x": int64(1)}
		default:
			m["k"] = int64(r.IntN(6))
		}
		out[i] = m
	}
	if r.IntN(5) == 0 {
		out[r.IntN(n)] = "not a map"
	}
	return out
}

func TestIndexesAgreeWithScans(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	values := []any{int64(0), int64(1), int64(5), int64(9), "1", "3", nil, map[string]any{"x": int64(1)}, true}
	for range 2000 {
		list := randomMapList(r, 1+r.IntN(20))
		for _, kind := range []elemKind{kindMap, kindScalar} {
			oi := newOrderIndex(list, "k", kind, nil)
			for _, v := range values {
				val := any(map[string]any{"k": v})
				if kind == kindScalar {
					val = v
				}
				wi, werr := index(list, val, "k", kind)
				gi, gerr := oi.index(val)
				require.Equal(t, werr, gerr, "index of %#v in %#v", val, list)
				require.Equal(t, wi, gi, "index of %#v in %#v", val, list)
			}
		}
		mi := newMapIndex(slices.Clone(list), "k", nil)
		for _, v := range values {
			wm, wi, wf, werr := findMapInSliceBasedOnKeyValue(mi.list, "k", v)
			gm, gi, gf, gerr := mi.find(v)
			require.Equal(t, werr, gerr, "find %#v in %#v", v, list)
			require.Equal(t, wf, gf, "find %#v in %#v", v, list)
			require.Equal(t, wi, gi, "find %#v in %#v", v, list)
			require.Equal(t, wm, gm, "find %#v in %#v", v, list)
			// Change the list as mergeSliceWithoutSpecialElements does.
			if gf && r.IntN(2) == 0 {
				mi.set(gi, map[string]any{"k": values[r.IntN(len(values))]})
			} else if r.IntN(2) == 0 {
				mi.add(map[string]any{"k": v, "added": true})
			}
		}
		for _, v := range values {
			want, werr := deleteMatchingEntriesScan(slices.Clone(list), "k", v)
			got, gerr := deleteMatchingEntries(slices.Clone(list), "k", v, nil)
			require.Equal(t, werr, gerr, "delete %#v from %#v", v, list)
			require.Equal(t, want, got, "delete %#v from %#v", v, list)
		}
	}
}

// A strategic merge of two large primitive lists (finalizers, args) counts work linear in their
// length (n log n for the sorts): the reference compares every pair (deduplication) and scans
// the order list for every comparison of its sorts.
func TestScalingStrategicPrimitiveLists(t *testing.T) {
	meta, err := KindMeta(mustKind(t, "v1", "Pod"))
	require.NoError(t, err)
	work := func(n int) int {
		live := make([]any, n)
		patch := make([]any, n)
		for i := range n {
			live[i] = fmt.Sprintf("example.com/f-%d", i)
			patch[i] = fmt.Sprintf("example.com/f-%d", i+n/2) // half overlaps
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "finalizers": live},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "args": live}}}}
		p, err := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": patch},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "args": patch}}}})
		require.NoError(t, err)
		st := &mergeStats{}
		res, err := ApplyStrategic(obj, p, meta, Options{MaxRequestBytes: -1, stats: st})
		require.NoError(t, err)
		fin := res.Object["metadata"].(map[string]any)["finalizers"].([]any)
		require.Len(t, fin, n+n/2)
		assert.Equal(t, live[0], fin[0])
		return st.work
	}
	small, large := work(1000), work(8000)
	t.Logf("work units: n=1000 %d, n=8000 %d", small, large)
	assert.LessOrEqual(t, large, 10*small, "more than n log n")
}

// Merging a list of maps by merge key (containers, env) finds each patch entry through an index.
func TestScalingStrategicMapLists(t *testing.T) {
	meta, err := KindMeta(mustKind(t, "v1", "Pod"))
	require.NoError(t, err)
	work := func(n int) int {
		live := make([]any, n)
		patch := make([]any, n)
		for i := range n {
			live[i] = map[string]any{"name": fmt.Sprintf("E%d", i), "value": "old"}
			patch[i] = map[string]any{"name": fmt.Sprintf("E%d", i+n/2), "value": "new"}
		}
		for i := 0; i < n; i += 10 {
			patch[i] = map[string]any{"name": fmt.Sprintf("E%d", i), "$patch": "delete"}
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "env": live}}}}
		p, err := json.Marshal(map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "env": patch}}}})
		require.NoError(t, err)
		st := &mergeStats{}
		_, err = ApplyStrategic(obj, p, meta, Options{MaxRequestBytes: -1, stats: st})
		require.NoError(t, err)
		return st.work
	}
	small, large := work(200), work(1600)
	t.Logf("work units: n=200 %d, n=1600 %d", small, large)
	assert.LessOrEqual(t, large, 10*small, "more than n log n")
}

func mustKind(t *testing.T, apiVersion, kind string) *schema.Kind {
	t.Helper()
	k, err := schema.Builtin(schema.GroupVersionKind{Version: apiVersion, Kind: kind})
	require.NoError(t, err)
	return k
}
