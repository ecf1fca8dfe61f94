package apply

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/schema"
)

// randomDeployment draws a Deployment from a small vocabulary, so that random objects overlap
// (shared labels, the same containers with other fields, empty lists and maps, atomic lists).
func randomDeployment(r *rand.Rand) map[string]any {
	pick := func(p float64) bool { return r.Float64() < p }
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}
	md := map[string]any{"name": "d"}
	if pick(0.5) {
		labels := map[string]any{}
		for _, k := range []string{"a", "b", "c"} {
			if pick(0.5) {
				labels[k] = fmt.Sprint(r.Intn(2))
			}
		}
		md["labels"] = labels
	}
	if pick(0.3) {
		md["finalizers"] = []any{}
	}
	obj["metadata"] = md
	spec := map[string]any{}
	if pick(0.5) {
		spec["replicas"] = int64(r.Intn(3))
	}
	if pick(0.3) {
		spec["minReadySeconds"] = int64(r.Intn(3))
	}
	var containers []any
	for _, name := range []string{"a", "b"} {
		if !pick(0.6) {
			continue
		}
		c := map[string]any{"name": name}
		if pick(0.6) {
			c["image"] = fmt.Sprint("img:", r.Intn(2))
		}
		if pick(0.4) {
			c["command"] = []any{"sh", fmt.Sprint(r.Intn(2))}
		}
		if pick(0.3) {
			env := []any{}
			for _, e := range []string{"X", "Y"} {
				if pick(0.5) {
					env = append(env, map[string]any{"name": e, "value": fmt.Sprint(r.Intn(2))})
				}
			}
			c["env"] = env
		}
		if pick(0.2) {
			c["resources"] = map[string]any{}
		}
		containers = append(containers, c)
	}
	if containers != nil || pick(0.3) {
		podSpec := map[string]any{"containers": append([]any{}, containers...)}
		if pick(0.3) {
			podSpec["tolerations"] = []any{map[string]any{"key": "k", "operator": "Exists"}}
		}
		spec["template"] = map[string]any{"spec": podSpec}
	}
	if len(spec) > 0 || pick(0.5) {
		obj["spec"] = spec
	}
	return obj
}

// TestSMDApplyEqualsUpdater compares smdApply (memoised, with the proven-empty pruning
// shortcut) with merge.Updater.Apply on random Deployments and managers: same object, same
// managed fields, same error.
func TestSMDApplyEqualsUpdater(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	toSet := func(obj map[string]any) *fieldpath.Set {
		tv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
		require.NoError(t, err)
		s, err := tv.ToFieldSet()
		require.NoError(t, err)
		return s.Difference(stripMetaSet)
	}
	r := rand.New(rand.NewSource(1))
	shortcuts, walked := 0, 0
	cases := 600
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 30000
	}
	for i := 0; i < cases; i++ {
		live := randomDeployment(r)
		liveTyped, err := pt.FromUnstructured(live, typed.AllowDuplicates)
		require.NoError(t, err)
		managers := fieldpath.ManagedFields{}
		for j, name := range []string{"alice", "bob", "carol"} {
			if r.Float64() < 0.7 {
				// A manager owns the fields of some other random object (possibly fields the live
				// object does not have, as hand-edited managedFields may).
				var s *fieldpath.Set
				if r.Float64() < 0.7 {
					s = toSet(live).Intersection(toSet(randomDeployment(r)))
				} else {
					s = toSet(randomDeployment(r))
				}
				managers[fmt.Sprintf(`{"manager":%q,"operation":"Apply"}`, name)] = fieldpath.NewVersionedSet(s, "apps/v1", j != 2)
			}
		}
		config := randomDeployment(r)
		configTyped, err := pt.FromUnstructured(config)
		require.NoError(t, err)
		force := r.Float64() < 0.5
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

// assertSameApply compares smdApply's answer with merge.Updater.Apply's.
func assertSameApply(t *testing.T, msg string, want *typed.TypedValue, wantManagers fieldpath.ManagedFields, wantErr error, got *typed.TypedValue, gotManagers fieldpath.ManagedFields, gotErr error) {
	t.Helper()
	// SMD lists the errors of one walk in the order it ranges over Go maps: compare them as sets.
	require.Equal(t, errorLines(wantErr), errorLines(gotErr), msg)
	if wantErr != nil {
		return
	}
	require.Equal(t, want == nil, got == nil, msg)
	if want != nil {
		assert.Equal(t, want.AsValue().Unstructured(), got.AsValue().Unstructured(), msg)
	}
	require.Equal(t, len(wantManagers), len(gotManagers), msg)
	for m, vs := range wantManagers {
		g, ok := gotManagers[m]
		require.True(t, ok, msg)
		assert.True(t, vs.Set().Equals(g.Set()), "%s: manager %s: want %v, got %v", msg, m, vs.Set(), g.Set())
		assert.Equal(t, vs.APIVersion(), g.APIVersion(), msg)
		assert.Equal(t, vs.Applied(), g.Applied(), msg)
	}
}

func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	sort.Strings(lines)
	return lines
}

var testTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func copyManaged(m fieldpath.ManagedFields) fieldpath.ManagedFields {
	out := make(fieldpath.ManagedFields, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestSMDUpdateMatchesUpdater compares smdUpdate with merge.Updater.Update on random live and
// new Deployments, random managers (the writer among them or not, Update and Apply ones, sets of
// other objects and garbage below leaves and atomic fields) and with or without a reset filter.
func TestSMDUpdateMatchesUpdater(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	toSet := func(obj map[string]any) *fieldpath.Set {
		tv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
		require.NoError(t, err)
		s, err := tv.ToFieldSet()
		require.NoError(t, err)
		return s.Difference(stripMetaSet)
	}
	reset := map[fieldpath.APIVersion]fieldpath.Filter{"apps/v1": fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status")))}
	r := rand.New(rand.NewSource(5))
	cases := 600
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 30000
	}
	for i := 0; i < cases; i++ {
		live := randomDeployment(r)
		liveTyped, err := pt.FromUnstructured(live, typed.AllowDuplicates)
		require.NoError(t, err)
		newObj := randomDeployment(r)
		newTyped, err := pt.FromUnstructured(newObj, typed.AllowDuplicates)
		require.NoError(t, err)
		managers := fieldpath.ManagedFields{}
		for j, name := range []string{"alice", "bob", "carol"} {
			if r.Float64() < 0.7 {
				var s *fieldpath.Set
				if r.Float64() < 0.7 {
					s = toSet(live).Intersection(toSet(randomDeployment(r)))
				} else {
					s = withGarbage(r, toSet(randomDeployment(r)))
				}
				managers[fmt.Sprintf(`{"manager":%q,"operation":"Update"}`, name)] = fieldpath.NewVersionedSet(s, "apps/v1", j == 2)
			}
		}
		id := `{"manager":"alice","operation":"Update"}`
		var filters map[fieldpath.APIVersion]fieldpath.Filter
		if r.Float64() < 0.3 {
			filters = reset
		}
		e := newEngine(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "", testTime, Builtin, nil, filters, 0)
		_, wantManagers, wantErr := e.updater.Update(liveTyped, newTyped, e.gv, copyManaged(managers), id)
		gotManagers, gotErr := e.smdUpdate(liveTyped, newTyped, copyManaged(managers), id)
		msg := fmt.Sprintf("case %d: live %v, new %v, managers %v", i, live, newObj, managers)
		assertSameApply(t, msg, nil, wantManagers, wantErr, nil, gotManagers, gotErr)
	}
}
