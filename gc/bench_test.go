package gc_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/writepath/writepath/gc"
)

// deploymentGraph builds about n objects: Deployments (being deleted in the foreground), each
// owning 10 ReplicaSets, each owning 99 Pods (unscheduled), all references controller and
// blocking, as the controllers create them.
func deploymentGraph(n int) []gc.Object {
	objs := make([]gc.Object, 0, n+1000)
	ref := func(apiVersion, kind, name, uid string) []any {
		return []any{map[string]any{"apiVersion": apiVersion, "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}}
	}
	for d := 0; len(objs) < n; d++ {
		dn, du := fmt.Sprintf("d%d", d), fmt.Sprintf("ud%d", d)
		objs = append(objs, gc.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{
			"name": dn, "namespace": "bench", "uid": du, "generation": int64(2),
			"deletionTimestamp": "2026-11-29T12:00:00Z", "deletionGracePeriodSeconds": int64(0), "finalizers": []any{"foregroundDeletion"}}})
		for r := 0; r < 10; r++ {
			rn, ru := fmt.Sprintf("%s-rs%d", dn, r), fmt.Sprintf("%s-r%d", du, r)
			objs = append(objs, gc.Object{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{
				"name": rn, "namespace": "bench", "uid": ru, "generation": int64(1), "ownerReferences": ref("apps/v1", "Deployment", dn, du)}})
			for p := 0; p < 99; p++ {
				objs = append(objs, gc.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{
					"name": fmt.Sprintf("%s-p%d", rn, p), "namespace": "bench", "uid": fmt.Sprintf("%s-p%d", ru, p), "generation": int64(1),
					"ownerReferences": ref("apps/v1", "ReplicaSet", rn, ru)}, "spec": map[string]any{"terminationGracePeriodSeconds": int64(30)}})
			}
		}
	}
	return objs
}

// BenchmarkRunForeground runs a foreground deletion of Deployment → ReplicaSet → Pod graphs to
// the fixpoint (every object removed).
func BenchmarkRunForeground(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		objs := deploymentGraph(n)
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := gc.Run(objs, gc.Options{Now: t0})
				if err != nil || len(res.Objects) != 0 || !res.Converged {
					b.Fatalf("run: %v, %d left", err, len(res.Objects))
				}
			}
			// The machine is shared: CPU time (all threads, Go's collector included) says more
			// than wall time when other processes compete for the cores.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(len(objs)), "objects")
		})
	}
}

// BenchmarkDelete is one DELETE of a pod bound to a node (graceful deletion).
func BenchmarkDelete(b *testing.B) {
	pod := gc.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "ns", "uid": "u", "generation": int64(1)},
		"spec": map[string]any{"nodeName": "n", "terminationGracePeriodSeconds": int64(30)}}
	fg := gc.Foreground
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := gc.Delete(pod, gc.DeleteOptions{PropagationPolicy: &fg, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
