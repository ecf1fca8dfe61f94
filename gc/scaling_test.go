package gc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chain is a foreground deletion waiting on a chain of n dependents, each in foreground
// deletion too and blocking its owner, the last one held by a finalizer nobody removes.
func chain(n int) []Object {
	objs := make([]Object, 0, n+1)
	for i := 0; i <= n; i++ {
		md := map[string]any{"name": fmt.Sprintf("c%d", i), "namespace": "demo", "uid": fmt.Sprintf("u%d", i),
			"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{FinalizerForeground}}
		if i == n {
			md["finalizers"] = []any{"example.com/hold"}
		}
		if i > 0 {
			md["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"name": fmt.Sprintf("c%d", i-1), "uid": fmt.Sprintf("u%d", i-1), "blockOwnerDeletion": true}}
		}
		objs = append(objs, Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md})
	}
	return objs
}

// diagnoseDeadlockForScaling diagnoses the ConfigMap demo/name of objs, counting the work, and
// checks that it is a deadlock held by the given number of blockers.
func diagnoseDeadlockForScaling(t *testing.T, objs []Object, name string, blockers int) (Diagnosis, *explainStats) {
	t.Helper()
	st := &explainStats{}
	d, err := diagnose(objs, Ref{Kind: "ConfigMap", Namespace: "demo", Name: name},
		DiagnoseOptions{Options: Options{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}}, st)
	require.NoError(t, err)
	require.Len(t, d.Blockers, blockers)
	assert.True(t, d.Deadlock)
	return d, st
}

// why-stuck on a chain of owner references writes each level's explanation once (it used to
// rebuild the explanation below each level at every level: quadratic in the chain's length).
func TestScalingDiagnoseChain(t *testing.T) {
	work := func(n int) int {
		d, st := diagnoseDeadlockForScaling(t, chain(n), "c0", 1)
		why := d.Blockers[0].Why
		assert.Equal(t, n-1, strings.Count(why, "its foreground deletion waits for ["))
		// What building a string per level cost: every level's explanation holds the ones below.
		perLevel := len(why)
		for i := 2; i <= n; i++ {
			perLevel += len(why) - strings.Index(why, fmt.Sprintf("demo/ConfigMap/c%d: ", i))
		}
		t.Logf("n=%d: %d bytes written; a string per level would have built %d", n, st.bytes, perLevel)
		return st.bytes + st.compares
	}
	small, large := work(100), work(800)
	t.Logf("explanation bytes written: n=100 %d, n=800 %d", small, large)
	assert.LessOrEqual(t, large, 9*small)
}

// ladder is a foreground deletion over n levels of diamonds: both objects of each level are
// owned (blockOwnerDeletion) by both objects of the level above, every object in foreground
// deletion, the two at the bottom held by a finalizer nobody removes. Its paths double at
// every level.
func ladder(n int) []Object {
	cm := func(name string, owners []string, finalizer string) Object {
		md := map[string]any{"name": name, "namespace": "demo", "uid": "u-" + name,
			"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": []any{finalizer}}
		var refs []any
		for _, o := range owners {
			refs = append(refs, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": o, "uid": "u-" + o, "blockOwnerDeletion": true})
		}
		if refs != nil {
			md["ownerReferences"] = refs
		}
		return Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	}
	objs := []Object{cm("top", nil, FinalizerForeground)}
	above := []string{"top"}
	for i := 1; i <= n; i++ {
		f := FinalizerForeground
		if i == n {
			f = "example.com/hold"
		}
		level := []string{fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)}
		for _, name := range level {
			objs = append(objs, cm(name, above, f))
		}
		above = level
	}
	return objs
}

// why-stuck on diamonds of owner references explains each dependent once and refers back to it
// where another owner waits for it too: the explanation grows with the objects, where one
// written along every path doubles at every level.
func TestScalingDiagnoseDiamonds(t *testing.T) {
	work := func(n int) (int, string) {
		d, st := diagnoseDeadlockForScaling(t, ladder(n), "top", 2)
		var all strings.Builder
		for _, b := range d.Blockers {
			all.WriteString(b.Why)
			all.WriteString("\n")
		}
		text := all.String()
		// Every object below the top is explained in full exactly once.
		for i := 2; i < n; i++ {
			for _, name := range []string{"a", "b"} {
				assert.Equal(t, 1, strings.Count(text, fmt.Sprintf("demo/ConfigMap/%s%d: being deleted", name, i)), "n=%d %s%d", n, name, i)
			}
		}
		assert.Contains(t, text, `finalizer "example.com/hold" (example.com, which is not running)`)
		return st.bytes + st.compares, text
	}
	small, text := work(3)
	// a1 and b1 (the two blockers) wait for a2 and b2, which wait for a3 and b3: b1's
	// explanation refers back to a1's.
	level3 := "demo/ConfigMap/a3: %[2]s; demo/ConfigMap/b3: %[2]s]"
	want := fmt.Sprintf("%[1]sdemo/ConfigMap/a2: %[1]s"+level3+"; demo/ConfigMap/b2: %[1]s"+level3+"]\n"+
		"%[1]sdemo/ConfigMap/a2: already explained above; demo/ConfigMap/b2: already explained above]\n",
		"being deleted, waiting for finalizer \"foregroundDeletion\" (garbagecollector); its foreground deletion waits for [", "being deleted, waiting for finalizer \"example.com/hold\" (example.com, which is not running)")
	assert.Equal(t, want, text)
	small, _ = work(20)
	large, _ := work(160)
	t.Logf("explanation work: n=20 %d, n=160 %d", small, large)
	assert.LessOrEqual(t, large, 9*small)
}

// terminating is n namespaces being deleted, each holding a ConfigMap and a Pod.
func terminating(n int) []Object {
	var objs []Object
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns%d", i)
		objs = append(objs,
			Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns, "uid": "u-" + ns,
				"deletionTimestamp": "2026-01-01T00:00:00Z"}, "spec": map[string]any{"finalizers": []any{"kubernetes"}},
				"status": map[string]any{"phase": "Terminating"}},
			Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": ns, "uid": "u-cm-" + ns}},
			Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": ns, "uid": "u-p-" + ns},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x"}}}})
	}
	return objs
}

// The namespace controller looks at a terminating namespace's own content, not at every
// object of the snapshot for every namespace.
func TestScalingNamespaceContent(t *testing.T) {
	work := func(n int) int {
		s, err := newState(terminating(n), Options{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
		require.NoError(t, err)
		res := s.run()
		require.NotEmpty(t, res.Rounds)
		for _, it := range s.items {
			assert.True(t, it.gone, "n=%d: %s is removed", n, it.ref())
		}
		return s.contentVisits
	}
	small, large := work(50), work(400)
	t.Logf("items looked at by the namespace controller: n=50 %d, n=400 %d", small, large)
	assert.LessOrEqual(t, large, 9*small)
}

// sharedDependent is n ConfigMaps owning one dependent, the first half deleting in the
// foreground with a blocking reference.
func sharedDependent(n int) []Object {
	var objs []Object
	var refs []any
	for i := range n {
		md := map[string]any{"name": fmt.Sprintf("o%d", i), "namespace": "demo", "uid": fmt.Sprintf("u-o%d", i)}
		ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": fmt.Sprintf("o%d", i), "uid": fmt.Sprintf("u-o%d", i)}
		if i < n/2 {
			md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
			md["finalizers"] = []any{FinalizerForeground}
			ref["blockOwnerDeletion"] = true
		}
		objs = append(objs, Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md})
		refs = append(refs, ref)
	}
	return append(objs, Object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "dep", "namespace": "demo", "uid": "u-dep", "ownerReferences": refs}})
}

// Owners of one dependent find whether it still refers to them (and blocks them) through an
// index of its references: work linear in the references, where a scan per owner was
// quadratic.
func TestScalingSharedDependent(t *testing.T) {
	work := func(n int) int {
		s, err := newState(sharedDependent(n), Options{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
		require.NoError(t, err)
		res := s.run()
		require.True(t, res.Converged)
		// The live owners keep the dependent: the garbage collector drops its references to
		// the owners deleting in the foreground, which then go.
		require.Len(t, res.Removed, n/2)
		var dep *item
		for _, it := range s.items {
			if it.m.name == "dep" {
				dep = it
			}
		}
		require.NotNil(t, dep)
		assert.Len(t, dep.m.owners, n-n/2, "references left")
		return s.refWork
	}
	small, large := work(200), work(1600)
	t.Logf("references looked at: n=200 %d, n=1600 %d", small, large)
	assert.LessOrEqual(t, large, 9*small, "more than linear")
}
