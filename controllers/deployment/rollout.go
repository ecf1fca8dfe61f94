package deployment

import (
	"fmt"
	"time"

	"github.com/writepath/writepath/controllers/internal/object"
)

func (s *session) rolloutRolling(rsList []Object) error {
	d := s.d
	newRS, oldRSs, err := s.allReplicaSets(rsList, true)
	if err != nil {
		return err
	}
	all := append(append([]Object(nil), oldRSs...), newRS)
	up, err := s.reconcileNew(all, newRS)
	if err != nil {
		return err
	}
	if up {
		return s.syncRolloutStatus(all, newRS)
	}
	down, err := s.reconcileOld(all, active(oldRSs), newRS)
	if err != nil {
		return err
	}
	if down {
		return s.syncRolloutStatus(all, newRS)
	}
	if complete(d, object.Map(d, "status")) {
		if err := s.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(all, newRS)
}

func (s *session) reconcileNew(all []Object, newRS Object) (bool, error) {
	d := s.d
	switch {
	case specReplicas(newRS) == specReplicas(d):
		return false, nil
	case specReplicas(newRS) > specReplicas(d):
		scaled, _, err := s.scaleReplicaSet(newRS, specReplicas(d), false, "the new ReplicaSet is above spec.replicas")
		return scaled, err
	}
	n, err := NewRSNewReplicas(d, all, newRS)
	if err != nil {
		return false, err
	}
	why := fmt.Sprintf("surge: spec.replicas %d + maxSurge %d allows %d Pods, %d exist", specReplicas(d), MaxSurge(d), specReplicas(d)+MaxSurge(d), replicaCount(all))
	scaled, _, err := s.scaleReplicaSet(newRS, n, false, why)
	return scaled, err
}

func (s *session) reconcileOld(all, oldRSs []Object, newRS Object) (bool, error) {
	d := s.d
	oldPods := replicaCount(oldRSs)
	if oldPods == 0 {
		return false, nil
	}
	allPods := replicaCount(all)
	minAvailable := specReplicas(d) - MaxUnavailable(d)
	newUnavailable := specReplicas(newRS) - statusInt(newRS, "availableReplicas")
	maxScaledDown := allPods - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := s.cleanupUnhealthy(oldRSs, maxScaledDown)
	if err != nil {
		return false, nil
	}
	all = append(append([]Object(nil), oldRSs...), newRS)
	scaledDown, err := s.scaleDownOld(all, oldRSs)
	if err != nil {
		return false, nil
	}
	return cleaned+scaledDown > 0, nil
}

func (s *session) cleanupUnhealthy(oldRSs []Object, maxCleanup int64) ([]Object, int64, error) {
	sortByCreation(oldRSs)
	var total int64
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if specReplicas(rs) == 0 || specReplicas(rs) == statusInt(rs, "availableReplicas") {
			continue
		}
		count := min(maxCleanup-total, specReplicas(rs)-statusInt(rs, "availableReplicas"))
		n := specReplicas(rs) - count
		if n > specReplicas(rs) {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", object.Namespace(rs), object.Name(rs), specReplicas(rs), n)
		}
		_, updated, err := s.scaleReplicaSet(rs, n, false, fmt.Sprintf("cleanup of %d unavailable replicas of an old ReplicaSet", count))
		if err != nil {
			return nil, total, err
		}
		total += count
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

func (s *session) scaleDownOld(all, oldRSs []Object) (int64, error) {
	d := s.d
	minAvailable := specReplicas(d) - MaxUnavailable(d)
	available := statusSum(all, "availableReplicas")
	if available <= minAvailable {
		return 0, nil
	}
	sortByCreation(oldRSs)
	var total int64
	want := available - minAvailable
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		if specReplicas(rs) == 0 {
			continue
		}
		count := min(specReplicas(rs), want-total)
		n := specReplicas(rs) - count
		why := fmt.Sprintf("unavailability: %d available, at least %d (spec.replicas %d - maxUnavailable %d) must stay", available, minAvailable, specReplicas(d), MaxUnavailable(d))
		if _, _, err := s.scaleReplicaSet(rs, n, false, why); err != nil {
			return total, err
		}
		total += count
	}
	return total, nil
}

func (s *session) rolloutRecreate(rsList []Object, pods []Object) error {
	d := s.d
	newRS, oldRSs, err := s.allReplicaSets(rsList, false)
	if err != nil {
		return err
	}
	all := append(append([]Object(nil), oldRSs...), newRS)
	podMap := podsByReplicaSet(d, rsList, pods)
	scaled := false
	activeOld := active(oldRSs)
	for i, rs := range activeOld {
		if specReplicas(rs) == 0 {
			continue
		}
		ok, updated, err := s.scaleReplicaSet(rs, 0, false, "Recreate: old ReplicaSets go to 0 first")
		if err != nil {
			return err
		}
		if ok {
			activeOld[i] = updated
			scaled = true
		}
	}
	if scaled {
		return s.syncRolloutStatus(all, newRS)
	}
	if oldPodsRunning(newRS, oldRSs, podMap) {
		return s.syncRolloutStatus(all, newRS)
	}
	if newRS == nil {
		newRS, oldRSs, err = s.allReplicaSets(rsList, true)
		if err != nil {
			return err
		}
		all = append(append([]Object(nil), oldRSs...), newRS)
	}
	if _, _, err := s.scaleReplicaSet(newRS, specReplicas(d), false, "Recreate: no old Pod runs, the new ReplicaSet scales up"); err != nil {
		return err
	}
	if complete(d, object.Map(d, "status")) {
		if err := s.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(all, newRS)
}

// podsByReplicaSet is getPodMapForDeployment: the Pods each claimed ReplicaSet
// controls (by kind, name and uid), by the ReplicaSet's uid.
func podsByReplicaSet(d Object, rsList, pods []Object) map[string][]Object {
	// The Pods grouped once by controller (namespace, name, uid), then handed to each
	// ReplicaSet: linear in Pods plus ReplicaSets.
	type owner struct{ ns, name, uid string }
	byOwner := map[owner][]Object{}
	for _, p := range pods {
		if ref, ok := object.ControllerOf(p); ok && ref.Kind == "ReplicaSet" {
			k := owner{object.Namespace(p), ref.Name, ref.UID}
			byOwner[k] = append(byOwner[k], p)
		}
	}
	out := map[string][]Object{}
	for _, rs := range rsList {
		out[object.UID(rs)] = byOwner[owner{object.Namespace(rs), object.Name(rs), object.UID(rs)}]
	}
	return out
}

func oldPodsRunning(newRS Object, oldRSs []Object, podMap map[string][]Object) bool {
	if statusSum(oldRSs, "replicas") > 0 {
		return true
	}
	for uid, pods := range podMap {
		if newRS != nil && object.UID(newRS) == uid {
			continue
		}
		for _, p := range pods {
			switch object.Phase(p) {
			case "Failed", "Succeeded":
				continue
			default:
				return true
			}
		}
	}
	return false
}

// complete is DeploymentComplete.
func complete(d, st Object) bool {
	n := specReplicas(d)
	upd, _ := object.Int(st, "updatedReplicas")
	rep, _ := object.Int(st, "replicas")
	av, _ := object.Int(st, "availableReplicas")
	og, _ := object.Int(st, "observedGeneration")
	return upd == n && rep == n && av == n && og >= object.Generation(d)
}

// progressing is DeploymentProgressing: more updated, fewer old, more ready or
// available replicas than the Deployment's status says.
func progressing(d, st Object) bool {
	old := object.Map(d, "status")
	oi := func(o Object, k string) int64 { n, _ := object.Int(o, k); return n }
	oldOld := oi(old, "replicas") - oi(old, "updatedReplicas")
	newOld := oi(st, "replicas") - oi(st, "updatedReplicas")
	return oi(st, "updatedReplicas") > oi(old, "updatedReplicas") || newOld < oldOld ||
		oi(st, "readyReplicas") > oi(old, "readyReplicas") || oi(st, "availableReplicas") > oi(old, "availableReplicas")
}

// timedOut is DeploymentTimedOut.
func timedOut(d, st Object, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := statusCondition(st, "Progressing")
	if c == nil || object.String(c, "reason") == ReasonNewRSAvailable {
		return false
	}
	if object.String(c, "reason") == ReasonTimedOut {
		return true
	}
	secs, _ := object.Int(d, "spec", "progressDeadlineSeconds")
	from := object.Time(c["lastUpdateTime"])
	return from.Add(time.Duration(secs) * time.Second).Before(now)
}

// syncRolloutStatus is syncRolloutStatus: status, the Progressing condition against the
// deadline, ReplicaFailure from the ReplicaSets.
func (s *session) syncRolloutStatus(all []Object, newRS Object) error {
	d := s.d
	st := calculateStatus(all, newRS, d, s.opts.Now)
	if !hasProgressDeadline(d) {
		removeCondition(st, "Progressing")
	}
	cur := object.Condition(d, "Progressing")
	isComplete := statusInt(Object{"status": st}, "replicas") == statusInt(Object{"status": st}, "updatedReplicas") &&
		cur != nil && object.String(cur, "reason") == ReasonNewRSAvailable
	if hasProgressDeadline(d) && !isComplete {
		name := fmt.Sprintf("Deployment %q", object.Name(d))
		if newRS != nil {
			name = fmt.Sprintf("ReplicaSet %q", object.Name(newRS))
		}
		switch {
		case complete(d, st):
			setStatusCondition(st, newCondition("Progressing", "True", ReasonNewRSAvailable, name+" has successfully progressed.", s.opts.Now))
		case progressing(d, st):
			c := newCondition("Progressing", "True", ReasonReplicaSetUpdated, name+" is progressing.", s.opts.Now)
			if cur != nil {
				if object.String(cur, "status") == "True" {
					c["lastTransitionTime"] = cur["lastTransitionTime"]
				}
				removeCondition(st, "Progressing")
			}
			setStatusCondition(st, c)
		case timedOut(d, st, s.opts.Now):
			setStatusCondition(st, newCondition("Progressing", "False", ReasonTimedOut, name+" has timed out progressing.", s.opts.Now))
		}
	}
	if f := replicaFailure(all, newRS); f != nil {
		setStatusCondition(st, f)
	} else {
		removeCondition(st, "ReplicaFailure")
	}
	if statusEqual(object.Map(d, "status"), st) {
		return nil
	}
	d["status"] = st
	return s.updateStatus("rollout status")
}

// replicaFailure is getReplicaFailures' first condition: the new ReplicaSet's
// ReplicaFailure, else the first of any ReplicaSet's.
func replicaFailure(all []Object, newRS Object) Object {
	conv := func(c Object) Object {
		return Object{"type": c["type"], "status": c["status"], "lastTransitionTime": c["lastTransitionTime"],
			"lastUpdateTime": c["lastTransitionTime"], "reason": c["reason"], "message": c["message"]}
	}
	if c := object.Condition(newRS, "ReplicaFailure"); c != nil {
		return conv(c)
	}
	for _, rs := range all {
		if c := object.Condition(rs, "ReplicaFailure"); rs != nil && c != nil {
			return conv(c)
		}
	}
	return nil
}
