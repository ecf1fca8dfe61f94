package apply

import (
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/writepath/writepath/schema"
)

// withGarbage adds paths recorded under another schema: below leaves (as when a field became
// atomic or scalar), to unknown fields, and atomic fields owned through their children.
func withGarbage(r *rand.Rand, s *fieldpath.Set) *fieldpath.Set {
	var paths []fieldpath.Path
	s.Iterate(func(p fieldpath.Path) { paths = append(paths, p.Copy()) })
	out := s.Copy()
	for n := r.Intn(4); n > 0 && len(paths) > 0; n-- {
		p := paths[r.Intn(len(paths))]
		var pe fieldpath.PathElement
		switch r.Intn(4) {
		case 0:
			pe = fieldpath.FieldNameElement("x")
		case 1:
			pe = fieldpath.IndexElement(0)
		case 2:
			pe = fieldpath.ValueElement(value.NewValueInterface("v"))
		default:
			pe = fieldpath.KeyElementByFields("name", "a")
		}
		out.Insert(append(p.Copy(), pe))
		if r.Float64() < 0.5 {
			out.Insert(p) // the member too
		}
	}
	return out
}

// TestReconcileNoopMatchesSMD compares reconcileNoop with typed.ReconcileFieldSetWithSchema
// (true exactly when it returns nil, nil) on random sets of Deployments, of walkSchema's shapes
// and of deduced objects, with garbage below leaves and atomic fields.
func TestReconcileNoopMatchesSMD(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	deployment, err := k.SMDType()
	require.NoError(t, err)
	parser, err := typed.NewParser(walkSchema)
	require.NoError(t, err)
	shapes := parser.Type("root")
	r := rand.New(rand.NewSource(3))
	cases := 3000
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 100000
	}
	noops, changes := 0, 0
	for i := 0; i < cases; i++ {
		var pt typed.ParseableType
		var obj, other map[string]any
		switch i % 3 {
		case 0:
			pt, obj, other = deployment, adversarialDeployment(r, true), adversarialDeployment(r, true)
		case 1:
			pt, obj, other = shapes, randomWalkObject(r, true), randomWalkObject(r, true)
		default:
			pt, obj, other = typed.DeducedParseableType, randomWalkObject(r, true), adversarialDeployment(r, true)
		}
		tv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
		require.NoError(t, err)
		otv, err := pt.FromUnstructured(other, typed.AllowDuplicates)
		require.NoError(t, err)
		s, err := otv.ToFieldSet()
		require.NoError(t, err)
		if r.Float64() < 0.5 {
			s = randomSubset(r, s, r.Float64())
		}
		if r.Float64() < 0.6 {
			s = withGarbage(r, s)
		}
		want, werr := typed.ReconcileFieldSetWithSchema(s, tv)
		got := reconcileNoop(tv.Schema(), tv.TypeRef(), s)
		assert.Equal(t, want == nil && werr == nil, got, "case %d: set %v, SMD %v %v", i, s, want, werr)
		if got {
			noops++
		} else {
			changes++
		}
	}
	t.Logf("%d sets: %d left as they are, %d reconciled", cases, noops, changes)
	assert.Positive(t, noops)
	assert.Positive(t, changes)
}
