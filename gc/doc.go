// Package gc models deletion in Kubernetes as a pure state machine: the apiserver's DELETE and
// the deletion rules of updates as functions, and the garbage collector and the namespace
// controller of kube-controller-manager as steps over a snapshot of objects, until nothing
// changes. Reference: Kubernetes 1.37 (k8s.io/apiserver registry/generic/registry/store.go and
// registry/rest/delete.go, pkg/registry/core/namespace, pkg/controller/garbagecollector,
// pkg/controller/namespace/deletion).
//
// Deletion is a process. A DELETE sets metadata.deletionTimestamp; if the object has
// finalizers it stays (Terminating) until they are all removed, and the apiserver removes it
// when the last one goes. Propagation policies are finalizers: Foreground adds
// "foregroundDeletion" (the garbage collector deletes every dependent, waits for those whose
// ownerReference has blockOwnerDeletion=true, then removes the finalizer), Orphan adds "orphan"
// (the collector removes the owner from its dependents' ownerReferences, then the finalizer),
// Background adds none (the object goes at once; the collector deletes dependents whose owners
// are all gone). The collector follows ownerReferences by uid: an owner that does not exist
// under the reference's kind and name with that uid is absent, so a stale uid, a reference
// across namespaces, or a coordinates mismatch count as absent. Pods are deleted gracefully.
// Namespaces go Terminating; the namespace controller deletes their content and removes the
// "kubernetes" finalizer from spec.finalizers once nothing is left.
//
// The model reaches the controllers' fixpoint at once: the namespace controller's resync
// delays (5 s after a namespace changes, estimate/2+1 s while content remains) and the
// collector's retries are not simulated, and discovery is assumed to succeed (the
// NamespaceDeletionDiscoveryFailure and ...GroupVersionParsingFailure conditions stay False).
//
// Like etcd's raft, time is an input and effects come back as data: Step returns the Actions
// the controllers take on a snapshot (DELETE with a policy, ownerReference patches, finalizer
// removals, Events, namespace status), each with the object as stored after it, so a caller can
// apply them to its own store; Run repeats Step to the fixpoint.
//
// # Usage
//
//	res, err := gc.Delete(owner, gc.DeleteOptions{PropagationPolicy: &fg, Now: now}) // the apiserver
//	snapshot := replace(objects, owner, res.Object)                             // owner is Terminating
//	run, err := gc.Run(snapshot, gc.Options{Now: now})                          // the controllers
//	for _, round := range run.Rounds { for _, a := range round { fmt.Println(a) } }
//	d, err := gc.Diagnose(snapshot, gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "x"}, gc.DiagnoseOptions{})
//
// A Diagnosis explains each dependent in full once: where another owner (or a later blocker)
// waits for the same dependent, its explanation says "already explained above", so the text
// grows with the objects and references, not with the paths through them.
//
// The caller's duties:
//  1. Pass the server's clock as now; nothing here reads the clock.
//  2. Give every object of a snapshot its metadata.uid (the collector tracks objects by uid)
//     and the CustomResourceDefinitions of custom kinds (or a Kinds lookup). Built-in kinds
//     come from schema's catalogue and strategies (Builtin): the kinds a 1.37 apiserver serves
//     by default, with their scope, default GC policy and graceful deletion; a kind nobody
//     declares is placed by the object's namespace and schema.GuessResource's plural.
//  3. Treat resourceVersion and managedFields as storage's business: Delete, Update and the
//     actions leave them as they were.
//
// # Invariants
//
// Functions never modify their inputs and keep no references into them that they write
// through; results share unchanged subtrees with the inputs, so callers must not mutate results
// in place either. No package state, no goroutines: everything is safe for concurrent use.
// Given the same inputs, results (including the order of actions) are identical. The real
// controllers are concurrent: the order of their writes across objects varies, the states each
// object goes through and the final state do not, and those are what the recorded scenarios of
// testdata/gc check.
//
// # Errors
//
// Delete, Update and CheckCreate return *status.Error values with the apiserver's code, reason
// and message (409 precondition conflicts, 422 invalid DeleteOptions or forbidden new
// finalizers, 403 for creates in a Terminating namespace, 409
// "object is being deleted: ... already exists"). Step, Run and Diagnose return *InputError for snapshots kube-apiserver
// could never have stored (missing uid, ownerReferences it rejects, duplicate objects); an
// ownerReference to a kind the server does not serve is the collector's behaviour, not an
// error: the dependent is left alone and Diagnose says why.
package gc
