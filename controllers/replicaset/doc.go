// Package replicaset is kube-controller-manager's ReplicaSet controller as a pure sync
// function: a ReplicaSet, the Pods of its namespace and the expectations the controller
// recorded go in; the writes it makes (adopt, release, create, delete Pods, update
// status), its new status and expectations come out. Reference: k8s.io/kubernetes
// v1.37.2 pkg/controller/replicaset (syncReplicaSet, manageReplicas, calculateStatus)
// and pkg/controller (ClaimPods, ActivePodsWithRanks, GetPodFromTemplate, expectations),
// with feature gates at their 1.37 defaults (PodDeletionCost, LogarithmicScaleDown and
// DeploymentReplicaSetTerminatingReplicas on).
//
// One sync: Pods controlled by the ReplicaSet (kind ReplicaSet, its name and uid) and
// orphans are considered; active ones (not Succeeded, Failed or being deleted) are
// claimed: an owned Pod the selector no longer matches is released, an orphan it matches
// is adopted (not while the ReplicaSet or the Pod is being deleted). When the expectations
// are satisfied and the ReplicaSet is not being deleted, it creates the missing Pods, at
// most BurstReplicas, in slow-start batches of 1, 2, 4, ... (a refused create ends the
// batches: the rest are not attempted and not expected), or deletes the surplus, ranked
// as Ranked says. Status counts the claimed Pods: replicas, fullyLabeledReplicas (labels
// a superset of the template's), readyReplicas, availableReplicas (ready for
// minReadySeconds at Now), terminatingReplicas (owned, selected, being deleted);
// ReplicaFailure is set with reason FailedCreate or FailedDelete and the error's words
// while writes fail and removed once they succeed; observedGeneration is the
// generation. The status is written only when it changed.
//
// # Usage
//
//	res, err := replicaset.Sync(replicaset.Input{ReplicaSet: rs, Pods: pods, Expectations: exp},
//		replicaset.Options{Now: now})
//	for _, a := range res.Actions { apply(a) }   // a Pod create carries generateName
//	exp = res.Expectations                        // then, as the informer sees them:
//	exp = exp.CreationObserved()                  // a created Pod
//	exp = exp.DeletionObserved("ns/pod")          // a deleted Pod (or one marked for deletion)
//
// The caller's duties:
//  1. Pass the clock as Options.Now; nothing here reads it.
//  2. Give every object metadata.uid, and Pods creationTimestamp (the ranking reads it).
//  3. Record what the informer would observe into the expectations between syncs.
//  4. Choose Pod names for generateName (the apiserver's job) when applying creates.
//
// # Invariants
//
// Sync never modifies its inputs; results share nothing with them. No package state, no
// goroutines: safe for concurrent use, and the same inputs give the same result. The real
// controller sorts with sort.Sort over informer order (a random map order), so among
// Pods its ranking ties it deletes any; Sync deletes the first in Input.Pods order.
// The SuccessfulCreate Event names the Pod the apiserver generated, which a pure
// function cannot know: its message says "<generated name>" (package cluster, which sends
// the create, records the Event with the name the apiserver answered).
//
// # Errors
//
// Sync returns *InputError for a ReplicaSet without namespace, name or uid. A selector
// LabelSelectorAsSelector refuses makes the controller drop the key: no writes, no error.
// Write errors (from Options.Refuse) are the controller's: Result.Err, the action's Err,
// and the ReplicaFailure condition.
package replicaset
