package apply

import (
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/schema"
)

// adversarialDeployment is randomDeployment with what can make RemoveItems change the path
// elements of list items it keeps: ports keyed by containerPort and protocol (protocol has a
// default, so an item that loses it may take a sibling's key) and, when dup is set, duplicate
// keys (live objects may have them).
func adversarialDeployment(r *rand.Rand, dup bool) map[string]any {
	obj := randomDeployment(r)
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	podSpec, _ := tmpl["spec"].(map[string]any)
	if podSpec == nil {
		return obj
	}
	for _, c := range podSpec["containers"].([]any) {
		cm := c.(map[string]any)
		if r.Float64() < 0.6 {
			var ports []any
			for _, p := range []int64{80, 443} {
				if r.Float64() < 0.6 {
					port := map[string]any{"containerPort": p}
					switch r.Intn(3) {
					case 0:
						port["protocol"] = "TCP"
					case 1:
						port["protocol"] = "UDP"
					}
					if r.Float64() < 0.3 {
						port["name"] = fmt.Sprint("p", r.Intn(2))
					}
					ports = append(ports, port)
				}
			}
			if dup && len(ports) > 0 && r.Float64() < 0.3 {
				ports = append(ports, ports[0])
			}
			cm["ports"] = ports
		}
		if env, ok := cm["env"].([]any); ok && dup && len(env) > 0 && r.Float64() < 0.3 {
			cm["env"] = append(env, map[string]any{"name": env[0].(map[string]any)["name"], "value": "dup"})
		}
	}
	return obj
}

// randomSubset keeps each path of s with probability p: sets that own an item's fields but not
// the item, or a field below a map they do not own, as Update managers and hand edits do.
func randomSubset(r *rand.Rand, s *fieldpath.Set, p float64) *fieldpath.Set {
	out := fieldpath.NewSet()
	s.Iterate(func(path fieldpath.Path) {
		if r.Float64() < p {
			out.Insert(path.Copy())
		}
	})
	return out
}

// TestPruneWalkContainsR1 checks the claim pruneByWalk rests on: whenever the walk completes,
// the set it computes contains R1 = named(M) − (named(P) ∪ named(O)) computed the Updater's
// way, from the pruned object's own field set. (On Deployments the two are equal whenever the
// walk completes: what S leaves out of P lies below list items, where the walk stops.)
func TestPruneWalkContainsR1(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	toSet := func(tv *typed.TypedValue) *fieldpath.Set {
		s, err := tv.ToFieldSet()
		require.NoError(t, err)
		return s.Difference(stripMetaSet)
	}
	r := rand.New(rand.NewSource(7))
	cases := 3000
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 100000
	}
	completed, strict, withR1 := 0, 0, 0
	for i := 0; i < cases; i++ {
		live, err := pt.FromUnstructured(adversarialDeployment(r, true), typed.AllowDuplicates)
		require.NoError(t, err)
		config, err := pt.FromUnstructured(adversarialDeployment(r, false))
		require.NoError(t, err)
		merged, err := live.Merge(config)
		require.NoError(t, err)
		sc, tr := merged.Schema(), merged.TypeRef()

		lastSource := live
		if r.Float64() < 0.3 {
			lastSource, err = pt.FromUnstructured(adversarialDeployment(r, false))
			require.NoError(t, err)
		}
		last := toSet(lastSource)
		if r.Float64() < 0.5 {
			last = randomSubset(r, last, 0.7)
		}
		owned := []*fieldpath.Set{toSet(config)}
		for j := 0; j < r.Intn(3); j++ {
			owned = append(owned, randomSubset(r, toSet(live), r.Float64()))
		}

		namedLast := last.EnsureNamedFieldsAreMembers(sc, tr)
		pruned := merged.RemoveItems(namedLast)
		mergedSet, err := merged.ToFieldSet()
		require.NoError(t, err)
		prunedSet, err := pruned.ToFieldSet()
		require.NoError(t, err)
		union := fieldpath.NewSet()
		for _, o := range owned {
			union = union.Union(o)
		}
		keep := prunedSet.EnsureNamedFieldsAreMembers(sc, tr).Union(union.EnsureNamedFieldsAreMembers(sc, tr))
		r1 := mergedSet.EnsureNamedFieldsAreMembers(sc, tr).Difference(keep)

		w := r1Walker{sc: sc, r1: fieldpath.NewSet()}
		w.walk(tr, mergedSet, namedLast, true, owned)
		if w.abort {
			continue
		}
		completed++
		if !r1.Empty() {
			withR1++
		}
		if !w.r1.Equals(r1) {
			strict++
		}
		assert.True(t, r1.Difference(w.r1).Empty(), "case %d: R1 %v not within the walk's %v (last %v)", i, r1, w.r1, namedLast)
		assert.True(t, w.r1.Difference(mergedSet.EnsureNamedFieldsAreMembers(sc, tr)).Empty(), "case %d: the walk's set %v is not within named(M)", i, w.r1)
	}
	t.Logf("%d cases: the walk completed %d times (R1 non-empty %d times, a strict superset %d times)", cases, completed, withR1, strict)
	assert.Positive(t, completed)
	assert.Positive(t, withR1)
}

// TestSMDApplyEqualsUpdaterAdversarial is TestSMDApplyEqualsUpdater on the adversarial objects
// and partial sets, with and without pruneByWalk.
func TestSMDApplyEqualsUpdaterAdversarial(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	toSet := func(obj map[string]any, dups bool) *fieldpath.Set {
		opts := []typed.ValidationOptions{}
		if dups {
			opts = append(opts, typed.AllowDuplicates)
		}
		tv, err := pt.FromUnstructured(obj, opts...)
		require.NoError(t, err)
		s, err := tv.ToFieldSet()
		require.NoError(t, err)
		return s.Difference(stripMetaSet)
	}
	r := rand.New(rand.NewSource(11))
	cases := 1500
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 30000
	}
	walked, shortcuts := 0, 0
	for i := 0; i < cases; i++ {
		live := adversarialDeployment(r, r.Float64() < 0.5)
		liveTyped, err := pt.FromUnstructured(live, typed.AllowDuplicates)
		require.NoError(t, err)
		managers := fieldpath.ManagedFields{}
		for j, name := range []string{"alice", "bob", "carol"} {
			if r.Float64() < 0.8 {
				s := toSet(live, true)
				if r.Float64() < 0.3 {
					s = toSet(adversarialDeployment(r, false), false)
				}
				if r.Float64() < 0.6 {
					s = randomSubset(r, s, 0.3+0.7*r.Float64())
				}
				managers[fmt.Sprintf(`{"manager":%q,"operation":"Apply"}`, name)] = fieldpath.NewVersionedSet(s, "apps/v1", j != 2)
			}
		}
		config := adversarialDeployment(r, false)
		configTyped, err := pt.FromUnstructured(config)
		if err != nil {
			continue // an invalid config (a duplicate port): not this test's business
		}
		force := r.Float64() < 0.7
		id := `{"manager":"alice","operation":"Apply"}`
		e := newEngine(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "", testTime, Builtin, nil, nil, 0)
		want, wantManagers, wantErr := e.updater.Apply(liveTyped, configTyped, e.gv, copyManaged(managers), id, force)
		msg := fmt.Sprintf("case %d: live %v, config %v, managers %v, force %v", i, live, config, managers, force)
		for _, noWalk := range []bool{false, true} {
			u := smdUpdater{conv: e.updater.Converter, filters: e.updater.IgnoreFilter, noWalk: noWalk}
			got, gotManagers, gotErr := u.apply(liveTyped, configTyped, e.gv, copyManaged(managers), id, force)
			if u.walked {
				walked++
			}
			if u.shortcut {
				shortcuts++
			}
			assertSameApply(t, msg, want, wantManagers, wantErr, got, gotManagers, gotErr)
		}
	}
	t.Logf("%d random applies, pruning answered by the walk %d times, by the pruned set's proof %d times", cases, walked, shortcuts)
	assert.Positive(t, walked)
	assert.Positive(t, shortcuts)
}
