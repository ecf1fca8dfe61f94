package apply

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// valueAtScan is what Explain did before its lists were indexed: a scan of the list for every
// key or value element.
func valueAtScan(obj any, p fieldpath.Path) (any, bool) {
	cur := obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			cur, ok = m[*pe.FieldName]
			if !ok {
				return nil, false
			}
		case pe.Key != nil, pe.Value != nil:
			l, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			found := false
			for _, item := range l {
				if matches(item, keyOf(pe), valueOf(pe)) {
					cur, found = item, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case pe.Index != nil:
			l, ok := cur.([]any)
			if !ok || *pe.Index < 0 || *pe.Index >= len(l) {
				return nil, false
			}
			cur = l[*pe.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

func keyOf(pe fieldpath.PathElement) value.FieldList {
	if pe.Key == nil {
		return nil
	}
	return *pe.Key
}

func valueOf(pe fieldpath.PathElement) value.Value {
	if pe.Value == nil {
		return nil
	}
	return *pe.Value
}

// randomScalar is a scalar of every kind, with values equal across kinds (1 and 1.0, 0 and -0).
func randomScalar(r *rand.Rand) any {
	return []any{int64(1), 1.0, int64(0), math.Copysign(0, -1), 2.5, "1", "a", true, false, nil, math.NaN(),
		int64(1 << 60), float64(1 << 60), int64(1<<60 + 1), []any{int64(1)}, map[string]any{"a": int64(1)}}[r.IntN(16)]
}

func TestIndexedValueAtAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	for range 3000 {
		list := make([]any, r.IntN(12))
		for i := range list {
			switch r.IntN(6) {
			case 0:
				list[i] = randomScalar(r)
			case 1:
				list[i] = "not a map"
			default:
				m := map[string]any{"v": int64(i)}
				if r.IntN(5) != 0 {
					m["name"] = randomScalar(r)
				}
				if r.IntN(2) == 0 {
					m["port"] = randomScalar(r)
				}
				list[i] = m
			}
		}
		obj := map[string]any{"spec": map[string]any{"items": list}}
		var f valueFinder
		for range 8 {
			var pe fieldpath.PathElement
			switch r.IntN(3) {
			case 0:
				pe = fieldpath.PathElement{Key: &value.FieldList{{Name: "name", Value: value.NewValueInterface(randomScalar(r))}}}
			case 1:
				pe = fieldpath.PathElement{Key: &value.FieldList{{Name: "name", Value: value.NewValueInterface(randomScalar(r))},
					{Name: "port", Value: value.NewValueInterface(randomScalar(r))}}}
			default:
				v := value.NewValueInterface(randomScalar(r))
				pe = fieldpath.PathElement{Value: &v}
			}
			p := fieldpath.Path{fieldpath.FieldNameElement("spec"), fieldpath.FieldNameElement("items"), pe}
			want, wok := valueAtScan(obj, p)
			got, gok := f.valueAt(obj, p)
			require.Equal(t, wok, gok, "%v in %#v", p, list)
			if wok {
				// The same item: the first match in list order.
				require.Equal(t, fmt.Sprintf("%p %#v", want, want), fmt.Sprintf("%p %#v", got, got), "%v in %#v", p, list)
			}
		}
	}
}

// A conflict report on n fields of a keyed list of n items finds each field's values through
// an index of the list: work linear in n, where a scan per field was quadratic.
func TestScalingExplainKeyedList(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(n int, image string) map[string]any {
		var containers []any
		for i := 0; i < n; i++ {
			containers = append(containers, map[string]any{"name": fmt.Sprintf("c%05d", i), "image": image})
		}
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "d"},
			"spec": map[string]any{"containers": containers}}
	}
	work := func(n int) int {
		res, err := Apply(Request{Config: pod(n, "x"), Manager: "a", Now: now})
		require.NoError(t, err)
		req := Request{Live: res.Object, Config: pod(n, "y"), Manager: "b", Now: now}
		_, err = Apply(req)
		var ce *ConflictError
		require.ErrorAs(t, err, &ce)
		st := &finderStats{}
		rep := explain(req, ce, st)
		require.Len(t, rep.Fields, n)
		assert.Equal(t, `"x"`, rep.Fields[n-1].Live)
		assert.Equal(t, `"y"`, rep.Fields[n-1].Requested)
		return st.indexed + st.compared
	}
	small, large := work(100), work(800)
	t.Logf("work units: n=100 %d, n=800 %d", small, large)
	assert.LessOrEqual(t, large, 9*small, "more than linear")
}
