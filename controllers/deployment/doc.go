// Package deployment is kube-controller-manager's Deployment controller as a pure sync
// function: a Deployment, the ReplicaSets of its namespace (and, for Recreate, its Pods)
// go in; the writes it makes come out, each with the object written and why. Reference:
// k8s.io/kubernetes v1.37.2 pkg/controller/deployment (syncDeployment, sync, rolling,
// recreate, rollback, progress) and its util package, feature gates at their 1.37
// defaults (DeploymentReplicaSetTerminatingReplicas on).
//
// One sync, in the controller's order: a selector of {} selects all Pods and only
// records observedGeneration; ReplicaSets are claimed (orphans the selector matches
// adopted, owned ones it no longer matches released); a Deployment being deleted only
// gets its status; the Progressing condition goes Unknown with DeploymentPaused /
// DeploymentResumed when paused or resumed (with a progress deadline); a paused
// Deployment, and one whose spec.replicas differs from a ReplicaSet's desired-replicas
// annotation, is scaled (the only active ReplicaSet follows spec.replicas; a saturated
// new ReplicaSet scales the old ones to 0; during a rolling update the difference to
// spec.replicas+maxSurge is spread proportionally over the active ReplicaSets by their
// max-replicas annotation, the leftover going to the largest); a
// deprecated.deployment.rollback.to annotation rolls back (the template of that
// revision, 0 meaning the previous one) and is cleared; otherwise RollingUpdate (new
// ReplicaSet up to spec.replicas+maxSurge, surge rounded up; old ones cleaned of
// unavailable replicas, then scaled down while availability stays at least
// spec.replicas-maxUnavailable, rounded down, 1 when both are 0) or Recreate (old ones to
// 0, then the new one to spec.replicas once no old Pod runs). A finished rollout deletes
// the oldest old ReplicaSets past revisionHistoryLimit that are scaled to 0 and settled.
// Status sums the ReplicaSets' counters; Available is MinimumReplicasAvailable or
// MinimumReplicasUnavailable; Progressing is NewReplicaSetCreated, FoundNewReplicaSet,
// ReplicaSetUpdated, NewReplicaSetAvailable or ProgressDeadlineExceeded (against Now
// and lastUpdateTime + progressDeadlineSeconds); ReplicaFailure is copied from the
// ReplicaSets. The messages are the controller's, word for word.
//
// The new ReplicaSet is found by template equality, as the controller finds it:
// EqualIgnoreHash compares the templates without the pod-template-hash label, with
// nil and empty maps and lists equal. Templates must be as the apiserver stores them
// (after its typed round trip): a field the round trip would add (resources: {}) or
// drop (hostNetwork: false) counts here and not under the controller's typed
// equality.Semantic.
//
// # Usage
//
//	res, err := deployment.Sync(deployment.Input{Deployment: d, ReplicaSets: rss}, deployment.Options{Now: now})
//	for _, a := range res.Actions { fmt.Println(a.Type, a.Name, a.Why); apply(a) }
//	undone, err := deployment.Rollback(d, rss, 0) // what `kubectl rollout undo` writes
//
// The caller's duties: pass the clock as Options.Now; give objects metadata.uid and
// creationTimestamp (ReplicaSets are ordered by it, then by name); store created
// ReplicaSets with a uid and creationTimestamp; bump metadata.generation when a spec
// changes, as the apiserver does; run the ReplicaSet controller (controllers/replicaset)
// to make ReplicaSet status follow.
//
// # Invariants
//
// Sync never modifies its inputs; results share nothing with them. No package state, no
// goroutines: safe for concurrent use, deterministic. Within one sync the controller
// reuses the objects it wrote: each action's Object is the state written at that point.
//
// # Errors
//
// Sync returns *InputError for a Deployment without namespace, name or uid. An invalid
// selector, an unknown strategy type and API refusals (Options.Refuse) are the
// controller's errors: Result.Err, the action's Err, and the conditions it writes
// (ReplicaSetCreateError). Rollback returns kubectl's words for a paused Deployment, a
// missing revision or an unchanged template.
//
// # Fidelity: the pod-template-hash
//
// ComputeHash is fnv-32a over the template's JSON with sorted keys (without the
// pod-template-hash label), then, when status.collisionCount is set, its value as 8
// little-endian bytes (the last four zero), printed as a decimal uint32 and encoded with
// rand.SafeEncodeString's alphabet; the ReplicaSet is named "<deployment>-<hash>" (the
// Deployment name cut to fit 253 characters) and the hash becomes the template's and
// the selector's pod-template-hash label. The real controller hashes a go-spew dump of
// the typed PodTemplateSpec (every field, zero or not, with its Go type name and
// internal representations of quantities and times), which this object model cannot
// reproduce, so hashes and ReplicaSet names differ from the real ones: a ReplicaSet the
// real controller created is found (by template) all the same, and a writepath
// ReplicaSet is found by the real controller the same way.
package deployment
