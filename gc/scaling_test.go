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

// why-stuck on a chain of owner references writes each level's explanation once (it used to
// rebuild the explanation below each level at every level: quadratic in the chain's length).
func TestScalingDiagnoseChain(t *testing.T) {
	work := func(n int) int {
		st := &explainStats{}
		d, err := diagnose(chain(n), Ref{Kind: "ConfigMap", Namespace: "demo", Name: "c0"},
			DiagnoseOptions{Options: Options{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}}, st)
		require.NoError(t, err)
		require.Len(t, d.Blockers, 1)
		assert.True(t, d.Deadlock)
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
