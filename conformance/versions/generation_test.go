package versions

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	wpversions "github.com/writepath/writepath/versions"
)

// objGen draws values of the object model, with the shapes that matter to
// semantic equality: null, empty maps and lists, int64 next to an equal
// float64, nesting.
type objGen struct{ r *rand.Rand }

func (g objGen) scalar() any {
	switch g.r.IntN(8) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return int64(g.r.IntN(3))
	case 3:
		return float64(g.r.IntN(3))
	case 4:
		return 0.5
	case 5:
		return ""
	default:
		return []string{"a", "b", "1"}[g.r.IntN(3)]
	}
}

func (g objGen) value(depth int) any {
	if depth > 3 {
		return g.scalar()
	}
	switch g.r.IntN(6) {
	case 0:
		m := map[string]any{}
		for i := g.r.IntN(3); i > 0; i-- {
			m[[]string{"a", "b", "c"}[g.r.IntN(3)]] = g.value(depth + 1)
		}
		return m
	case 1:
		l := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			l = append(l, g.value(depth+1))
		}
		return l
	}
	return g.scalar()
}

// mutate returns a changed deep copy of v (sometimes an equal one).
func (g objGen) mutate(v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = runtime.DeepCopyJSONValue(e)
		}
		switch g.r.IntN(5) {
		case 0:
			out[[]string{"a", "b", "c", "d"}[g.r.IntN(4)]] = g.value(depth + 1)
		case 1:
			for k := range out {
				delete(out, k)
				break
			}
		case 2:
			for k, e := range out {
				out[k] = g.mutate(e, depth+1)
				break
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = runtime.DeepCopyJSONValue(e)
		}
		if len(out) > 0 && g.r.IntN(2) == 0 {
			i := g.r.IntN(len(out))
			out[i] = g.mutate(out[i], depth+1)
		} else if g.r.IntN(2) == 0 {
			out = append(out, g.value(depth+1))
		}
		return out
	case int64:
		if g.r.IntN(2) == 0 {
			return float64(x) // same number, other type
		}
	case float64:
		if x == float64(int64(x)) && g.r.IntN(2) == 0 {
			return int64(x)
		}
	}
	if g.r.IntN(3) == 0 {
		return runtime.DeepCopyJSONValue(v)
	}
	return g.value(depth)
}

func (g objGen) object() map[string]any {
	obj := map[string]any{
		"apiVersion": "stable.example.com/v1",
		"kind":       "CronTab",
		"metadata":   map[string]any{"name": "c", "namespace": "default", "generation": int64(1 + g.r.IntN(5))},
	}
	for _, k := range []string{"spec", "status", "data"} {
		if g.r.IntN(3) > 0 {
			obj[k] = g.value(0)
		}
	}
	return obj
}

// evolve returns the object an update sends: obj with a few changes anywhere.
func (g objGen) evolve(obj map[string]any) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		switch g.r.IntN(6) {
		case 0:
			md := out["metadata"].(map[string]any)
			md["labels"] = map[string]any{"l": []string{"x", "y"}[g.r.IntN(2)]}
		case 1:
			md := out["metadata"].(map[string]any)
			md["generation"] = int64(100) // a client cannot set it
		case 2:
			delete(out, []string{"spec", "status", "data"}[g.r.IntN(3)])
		default:
			k := []string{"spec", "status", "data", "extra"}[g.r.IntN(4)]
			if v, ok := out[k]; ok {
				out[k] = g.mutate(v, 0)
			} else {
				out[k] = g.value(0)
			}
		}
	}
	return out
}

// referenceGeneration runs apiextensions-apiserver's strategy the way
// rest.BeforeUpdate does: generation restored from the stored object, then
// PrepareForUpdate.
func referenceGeneration(withStatus bool, sub string, old, sent map[string]any) int64 {
	var st *apiextensions.CustomResourceSubresourceStatus
	if withStatus {
		st = &apiextensions.CustomResourceSubresourceStatus{}
	}
	strategy := customresource.NewStrategy(nil, true, schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"},
		nil, nil, nil, st, nil, nil)
	oldU := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
	newU := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(sent)}
	newU.SetGeneration(oldU.GetGeneration())
	ctx := genericapirequest.NewContext()
	if sub == "status" {
		customresource.NewStatusStrategy(strategy).PrepareForUpdate(ctx, newU, oldU)
	} else {
		strategy.PrepareForUpdate(ctx, newU, oldU)
	}
	return newU.GetGeneration()
}

// TestCustomResourceGeneration compares NextGeneration with
// customResourceStrategy.PrepareForUpdate (and the status strategy) on random
// pairs of objects, with and without the status subresource.
func TestCustomResourceGeneration(t *testing.T) {
	g := objGen{r: rand.New(rand.NewPCG(137, 5504))}
	n := sampleSize(8_000)
	failures, bumps := 0, 0
	for i := 0; i < n; i++ {
		withStatus := g.r.IntN(2) == 0
		sub := ""
		if withStatus && g.r.IntN(4) == 0 {
			sub = "status"
		}
		old := g.object()
		sent := g.evolve(old)
		s := wpversions.CustomResource("stable.example.com", "crontabs", "CronTab", wpversions.CustomResourceOptions{StatusSubresource: withStatus})
		want := referenceGeneration(withStatus, sub, old, sent)
		got, err := wpversions.NextGeneration(s, old, sent, sub)
		require.NoError(t, err)
		if got.Bumped() {
			bumps++
		}
		if !assert.Equal(t, want, got.New, "case %d (status subresource %v, sub %q):\nold  %v\nsent %v\nreason %s", i, withStatus, sub, old, sent, got.Reason) {
			failures++
			if failures > 20 {
				t.Fatal("too many disagreements")
			}
		}
	}
	t.Logf("compared %d custom-resource updates (%d bumped): %d disagreements", n, bumps, failures)
}

func ExampleNextGeneration() {
	s := wpversions.CustomResource("stable.example.com", "crontabs", "CronTab", wpversions.CustomResourceOptions{})
	old := map[string]any{"metadata": map[string]any{"generation": int64(1)}, "spec": map[string]any{"n": int64(1)}}
	sent := map[string]any{"metadata": map[string]any{"generation": int64(1)}, "spec": map[string]any{"n": 1.0}}
	got, _ := wpversions.NextGeneration(s, old, sent, "")
	fmt.Println(got.New, referenceGeneration(false, "", old, sent))
	// Output: 2 2
}
