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

		w := removalWalker{sc: sc, r1: fieldpath.NewSet()}
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

// walkSchema has the shapes the Deployment lacks: a set list, a list keyed by two fields one of
// which has a default, maps of structs (named fields below unnamed ones), an atomic map, a
// separable list of structs and a deduced (untyped) field.
const walkSchema = `types:
- name: root
  map:
    fields:
    - name: apiVersion
      type: {scalar: string}
    - name: kind
      type: {scalar: string}
    - name: spec
      type: {namedType: spec}
- name: spec
  map:
    fields:
    - name: tags
      type: {list: {elementType: {scalar: string}, elementRelationship: associative}}
    - name: items
      type: {list: {elementType: {namedType: item}, elementRelationship: associative, keys: [name, kind]}}
    - name: byName
      type: {map: {elementType: {namedType: inner}}}
    - name: atomicMap
      type: {map: {elementType: {scalar: string}, elementRelationship: atomic}}
    - name: sep
      type: {list: {elementType: {namedType: inner}, elementRelationship: separable}}
    - name: free
      type: {namedType: __untyped_deduced_}
- name: item
  map:
    fields:
    - name: name
      type: {scalar: string}
    - name: kind
      type: {scalar: string}
      default: A
    - name: value
      type: {scalar: string}
    - name: sub
      type: {namedType: inner}
- name: inner
  map:
    fields:
    - name: x
      type: {scalar: string}
    - name: "y"
      type: {map: {fields: [{name: z, type: {scalar: string}}]}}
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_deduced_}
    elementRelationship: separable
`

func randomWalkObject(r *rand.Rand, dup bool) map[string]any {
	pick := func(p float64) bool { return r.Float64() < p }
	inner := func() map[string]any {
		m := map[string]any{}
		if pick(0.5) {
			m["x"] = fmt.Sprint(r.Intn(2))
		}
		if pick(0.4) {
			y := map[string]any{}
			if pick(0.6) {
				y["z"] = fmt.Sprint(r.Intn(2))
			}
			m["y"] = y
		}
		return m
	}
	spec := map[string]any{}
	if pick(0.5) {
		var tags []any
		for _, t := range []string{"a", "b", "c"} {
			if pick(0.5) {
				tags = append(tags, t)
			}
		}
		if dup && len(tags) > 0 && pick(0.3) {
			tags = append(tags, tags[0])
		}
		spec["tags"] = tags
	}
	if pick(0.7) {
		var items []any
		for _, n := range []string{"p", "q"} {
			for _, k := range []string{"A", "B", ""} {
				if pick(0.35) {
					it := map[string]any{"name": n}
					if k != "" {
						it["kind"] = k
					}
					if pick(0.5) {
						it["value"] = fmt.Sprint(r.Intn(2))
					}
					if pick(0.4) {
						it["sub"] = inner()
					}
					items = append(items, it)
				}
			}
		}
		if !dup {
			// without duplicates: "" and "A" are the same key (the default)
			seen := map[string]bool{}
			var unique []any
			for _, it := range items {
				m := it.(map[string]any)
				k := fmt.Sprint(m["name"], m["kind"])
				if m["kind"] == nil {
					k = fmt.Sprint(m["name"], "A")
				}
				if !seen[k] {
					seen[k] = true
					unique = append(unique, it)
				}
			}
			items = unique
		}
		spec["items"] = items
	}
	if pick(0.5) {
		by := map[string]any{}
		for _, k := range []string{"m", "n"} {
			if pick(0.5) {
				by[k] = inner()
			}
		}
		spec["byName"] = by
	}
	if pick(0.3) {
		spec["atomicMap"] = map[string]any{"k": fmt.Sprint(r.Intn(2))}
	}
	if pick(0.3) {
		spec["sep"] = []any{inner(), inner()}
	}
	if pick(0.5) {
		free := map[string]any{}
		if pick(0.5) {
			free["s"] = fmt.Sprint(r.Intn(2))
		}
		if pick(0.5) {
			free["o"] = map[string]any{"t": fmt.Sprint(r.Intn(2)), "l": []any{int64(r.Intn(2))}}
		}
		spec["free"] = free
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "W"}
	if len(spec) > 0 || pick(0.5) {
		obj["spec"] = spec
	}
	return obj
}

// TestPruneWalkContainsR1OtherShapes is TestPruneWalkContainsR1 on walkSchema.
func TestPruneWalkContainsR1OtherShapes(t *testing.T) {
	parser, err := typed.NewParser(walkSchema)
	require.NoError(t, err)
	pt := parser.Type("root")
	r := rand.New(rand.NewSource(5))
	cases := 3000
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 100000
	}
	completed, withR1, tried := 0, 0, 0
	for i := 0; i < cases; i++ {
		live, err := pt.FromUnstructured(randomWalkObject(r, true), typed.AllowDuplicates)
		require.NoError(t, err)
		config, err := pt.FromUnstructured(randomWalkObject(r, false))
		require.NoError(t, err)
		merged, err := live.Merge(config)
		if err != nil {
			continue
		}
		tried++
		sc, tr := merged.Schema(), merged.TypeRef()
		toSet := func(tv *typed.TypedValue) *fieldpath.Set {
			s, err := tv.ToFieldSet()
			require.NoError(t, err)
			return s
		}
		last := toSet(live)
		if r.Float64() < 0.5 {
			last = toSet(config)
		}
		if r.Float64() < 0.6 {
			last = randomSubset(r, last, 0.3+0.6*r.Float64())
		}
		owned := []*fieldpath.Set{randomSubset(r, toSet(config), 0.5+0.5*r.Float64())}
		for j := 0; j < r.Intn(3); j++ {
			owned = append(owned, randomSubset(r, toSet(live), r.Float64()))
		}
		namedLast := last.EnsureNamedFieldsAreMembers(sc, tr)
		pruned := merged.RemoveItems(namedLast)
		mergedSet := toSet(merged)
		prunedSet := toSet(pruned)
		union := fieldpath.NewSet()
		for _, o := range owned {
			union = union.Union(o)
		}
		keep := prunedSet.EnsureNamedFieldsAreMembers(sc, tr).Union(union.EnsureNamedFieldsAreMembers(sc, tr))
		r1 := mergedSet.EnsureNamedFieldsAreMembers(sc, tr).Difference(keep)
		w := removalWalker{sc: sc, r1: fieldpath.NewSet()}
		w.walk(tr, mergedSet, namedLast, true, owned)
		if w.abort {
			continue
		}
		completed++
		if !r1.Empty() {
			withR1++
		}
		assert.True(t, r1.Difference(w.r1).Empty(), "case %d: R1 %v not within the walk's %v (last %v, merged %v)", i, r1, w.r1, namedLast, merged.AsValue())
	}
	t.Logf("%d cases (%d merged): the walk completed %d times (R1 non-empty %d times)", cases, tried, completed, withR1)
	assert.Positive(t, completed)
	assert.Positive(t, withR1)
}
