package gc_test

import (
	"fmt"
	"time"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/schema"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func owned(kind, name, uid string, block bool) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": kind, "name": name, "uid": uid, "blockOwnerDeletion": block}
}

func configMap(name, uid string, owners ...any) gc.Object {
	md := map[string]any{"name": name, "namespace": "demo", "uid": uid}
	if len(owners) > 0 {
		md["ownerReferences"] = owners
	}
	return gc.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
}

func ExampleDelete() {
	fg := gc.Foreground
	res, err := gc.Delete(configMap("owner", "u1"), gc.DeleteOptions{PropagationPolicy: &fg, Now: now})
	if err != nil {
		panic(err)
	}
	md := res.Object["metadata"].(map[string]any)
	fmt.Println(res.Code, res.Removed, md["deletionTimestamp"], md["finalizers"])

	uid := "other"
	_, err = gc.Delete(configMap("owner", "u1"), gc.DeleteOptions{Preconditions: &gc.Preconditions{UID: &uid}, Now: now})
	fmt.Println(err)
	// Output:
	// 200 false 2026-11-29T12:00:00Z [foregroundDeletion]
	// Operation cannot be fulfilled on ConfigMap "owner": the UID in the precondition (other) does not match the UID in record (u1). The object might have been deleted and then recreated
}

func ExampleUpdate() {
	old := configMap("held", "u1")
	old["metadata"].(map[string]any)["deletionTimestamp"] = "2026-11-29T11:00:00Z"
	old["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}

	added := configMap("held", "u1")
	added["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold", "example.com/more"}
	_, err := gc.Update(old, added, nil)
	fmt.Println(err)

	res, err := gc.Update(old, configMap("held", "u1"), nil)
	fmt.Println(res.Removed, err)
	// Output:
	// ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}
	// true <nil>
}

func ExampleRun() {
	fg := gc.Foreground
	del, _ := gc.Delete(configMap("a", "ua"), gc.DeleteOptions{PropagationPolicy: &fg, Now: now})
	snapshot := []gc.Object{
		del.Object,
		configMap("b", "ub", owned("ConfigMap", "a", "ua", true)),
		configMap("c", "uc", owned("ConfigMap", "b", "ub", true)),
	}
	res, err := gc.Run(snapshot, gc.Options{Now: now})
	if err != nil {
		panic(err)
	}
	for i, round := range res.Rounds {
		for _, a := range round {
			fmt.Println(i, a.Type, a.Target.Name, a.PropagationPolicy, a.Finalizer, a.Outcome)
		}
	}
	fmt.Println(len(res.Objects), res.Converged)
	// Output:
	// 0 Delete b Foreground  terminating
	// 0 Delete c Background  removed
	// 1 RemoveFinalizer b  foregroundDeletion removed
	// 2 RemoveFinalizer a  foregroundDeletion removed
	// 0 true
}

func ExampleStep() {
	snapshot := []gc.Object{
		configMap("orphaned", "u1", owned("ConfigMap", "gone", "u0", false)),
	}
	actions, err := gc.Step(snapshot, gc.Options{Now: now})
	if err != nil {
		panic(err)
	}
	for _, a := range actions {
		fmt.Println(a)
	}
	// Output:
	// garbagecollector: Delete demo/ConfigMap/orphaned propagationPolicy=Background (every owner is absent (ConfigMap/gone)) -> removed
}

func ExampleDiagnose() {
	fg := gc.Foreground
	del, _ := gc.Delete(configMap("owner", "u1"), gc.DeleteOptions{PropagationPolicy: &fg, Now: now})
	held := configMap("held", "u2", owned("ConfigMap", "owner", "u1", true))
	held["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	d, err := gc.Diagnose([]gc.Object{del.Object, held}, gc.Ref{Kind: "ConfigMap", Namespace: "demo", Name: "owner"}, gc.DiagnoseOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Deadlock)
	for _, r := range d.Reasons {
		fmt.Println(r)
	}
	for _, b := range d.Blockers {
		fmt.Println(b.Ref, "-", b.Why)
	}
	// Output:
	// true
	// foreground deletion waits for 1 dependent(s) with blockOwnerDeletion=true
	// demo/ConfigMap/held - being deleted, waiting for finalizer "example.com/hold" (example.com, which is not running)
}

func ExampleFinalizerOwner() {
	fmt.Println(gc.FinalizerOwner("kubernetes.io/pvc-protection"))
	fmt.Println(gc.FinalizerOwner("example.com/hold"))
	// Output:
	// pvc-protection true
	// example.com false
}

func ExampleBuiltin() {
	job, _ := gc.Builtin(schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"})
	pod, _ := gc.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	_, served := gc.Builtin(schema.GroupVersionKind{Group: "extensions", Version: "v1beta1", Kind: "Deployment"})
	fmt.Printf("%s %q graceful=%v served=%v\n", job.Resource, job.Policy, pod.Graceful, served)
	// Output:
	// jobs "OrphanDependents" graceful=true served=false
}

func ExampleCheckCreate() {
	held := configMap("held", "u1")
	held["metadata"].(map[string]any)["deletionTimestamp"] = "2026-11-29T11:00:00Z"
	held["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	fmt.Println(gc.CheckCreate(configMap("held", ""), held, nil, nil))

	ns := gc.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}, "status": map[string]any{"phase": "Terminating"}}
	fmt.Println(gc.CheckCreate(configMap("new", ""), nil, ns, nil))
	// Output:
	// object is being deleted: configmaps "held" already exists
	// configmaps "new" is forbidden: unable to create new content in namespace demo because it is being terminated
}
