package versions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	wpschema "github.com/writepath/writepath/schema"
	wpversions "github.com/writepath/writepath/versions"
)

// quantityString draws strings around the resource.Quantity grammar.
func quantityString(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString([]string{"-", "+"}[r.IntN(2)])
	}
	for i := r.IntN(4); i > 0; i-- {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	if r.IntN(3) == 0 {
		b.WriteByte('.')
		for i := r.IntN(12); i > 0; i-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	suffixes := []string{"", "", "", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2", "e+3", "E+1", "e0", "e", "x", "mi", "K", " "}
	b.WriteString(suffixes[r.IntN(len(suffixes))])
	return b.String()
}

// related draws a second quantity equal in value to q in another notation half
// of the time.
func related(r *rand.Rand, q string) string {
	if p, err := resource.ParseQuantity(q); err == nil && r.IntN(2) == 0 {
		switch r.IntN(3) {
		case 0:
			return p.String()
		case 1:
			return fmt.Sprintf("%dm", p.MilliValue())
		default:
			return p.AsDec().String()
		}
	}
	return quantityString(r)
}

// TestQuantityGeneration compares the generation rule on a changed container
// limit with apimachinery's quantity comparison (equality.Semantic compares
// resource.Quantity values with Cmp).
func TestQuantityGeneration(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s, _ := wpversions.Builtin(wpschema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	obj := func(q string) map[string]any {
		return map[string]any{"metadata": map[string]any{"generation": int64(1)}, "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": q}}}}}}}}
	}
	n := sampleSize(5_000) // pairs the apiserver accepts
	compared, failures := 0, 0
	for compared < n {
		a := quantityString(r)
		b := related(r, a)
		qa, errA := resource.ParseQuantity(a)
		qb, errB := resource.ParseQuantity(b)
		if errA != nil || errB != nil {
			continue // the apiserver rejects the object before any comparison
		}
		compared++
		want := qa.Cmp(qb) != 0
		g, err := wpversions.NextGeneration(s, obj(a), obj(b), "")
		require.NoError(t, err)
		if !assert.Equal(t, want, g.Bumped(), "%q vs %q", a, b) {
			failures++
			if failures > 20 {
				t.Fatal("too many disagreements")
			}
		}
	}
	t.Logf("compared %d quantity pairs: %d disagreements", compared, failures)
}
