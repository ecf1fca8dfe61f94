package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The replay's resourceVersion pairing: one to one and in order, but within a batch of Pods
// the recorded cluster wrote concurrently, which may be paired anew.
func TestScenarioPairRVBatches(t *testing.T) {
	r := &scenarioReplay{rv: map[string]string{}, rvBack: map[string]string{}, batch: map[string]int{}, batchBack: map[string]int{}}
	assert.Equal(t, "", r.pairRV("100", "5"), "the ReplicaSet, before its Pods")
	pod := func(rv, at string) any {
		return map[string]any{"metadata": map[string]any{"name": "p" + rv, "resourceVersion": rv, "creationTimestamp": at}}
	}
	const second = "2026-12-03T13:26:29Z"
	w := []any{pod("3197", second), pod("3199", second), pod("3201", second)}
	g := []any{pod("6", second), pod("7", second), pod("8", second)}
	r.batchOf(w, g, []int{0, 1, 2}, []int{0, 1, 2})
	for i, p := range [][2]string{{"3197", "6"}, {"3199", "7"}, {"3201", "8"}} {
		assert.Equal(t, "", r.pairRV(p[0], p[1]), "pair %d", i)
	}
	assert.Equal(t, "", r.pairRV("3201", "7"), "the scale-down kept another Pod of the batch")
	assert.Equal(t, "7", r.rv["3201"])
	assert.Equal(t, "8", r.rv["3199"], "the two exchanged their partners")
	assert.Equal(t, "resourceVersion 5 (recorded 3201) was 7 before", r.pairRV("3201", "5"), "not with an object outside the batch")
	assert.Contains(t, r.pairRV("3300", "4"), "out of order", "the batch is ordered against every other write")

	// Pods of different seconds are no batch.
	r = &scenarioReplay{rv: map[string]string{}, rvBack: map[string]string{}, batch: map[string]int{}, batchBack: map[string]int{}}
	w = []any{pod("10", second), pod("12", "2026-12-03T13:26:30Z")}
	g = []any{pod("1", second), pod("2", "2026-12-03T13:26:30Z")}
	r.batchOf(w, g, []int{0, 1}, []int{0, 1})
	assert.Equal(t, "", r.pairRV("10", "1"))
	assert.Equal(t, "", r.pairRV("12", "2"))
	assert.Equal(t, "resourceVersion 2 (recorded 10) was 1 before", r.pairRV("10", "2"))
}
