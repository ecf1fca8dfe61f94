package deployment

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/internal/object"
	"github.com/writepath/writepath/internal/labels"
)

// Object is a Kubernetes object in the library's object model.
type Object = map[string]any

// ActionType names a write the controller makes.
type ActionType string

// The writes of a sync.
const (
	// ActionAdoptReplicaSet / ActionReleaseReplicaSet: strategic merge patches of a
	// ReplicaSet's ownerReferences (Patch).
	ActionAdoptReplicaSet   ActionType = "AdoptReplicaSet"
	ActionReleaseReplicaSet ActionType = "ReleaseReplicaSet"
	// ActionCreateReplicaSet: POST of Object.
	ActionCreateReplicaSet ActionType = "CreateReplicaSet"
	// ActionUpdateReplicaSet: PUT of Object (scale, annotations, minReadySeconds).
	ActionUpdateReplicaSet ActionType = "UpdateReplicaSet"
	// ActionDeleteReplicaSet: DELETE of an old ReplicaSet past revisionHistoryLimit.
	ActionDeleteReplicaSet ActionType = "DeleteReplicaSet"
	// ActionUpdateStatus: PUT of the Deployment's status subresource with Object (the
	// revision annotation travels with it).
	ActionUpdateStatus ActionType = "UpdateStatus"
	// ActionUpdate: PUT of the Deployment (a rollback: template, annotations).
	ActionUpdate ActionType = "Update"
	// ActionEvent: an Event recorded without a write of its own (Event is set); other
	// Events ride on the write they report.
	ActionEvent ActionType = "Event"
)

// Action is one write, as data.
type Action struct {
	Type      ActionType `json:"type"`
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Object    Object     `json:"object,omitempty"`
	Patch     Object     `json:"patch,omitempty"`
	// Why says in words why the controller writes (a scale's reason: surge,
	// unavailability, proportional scaling, ...).
	Why string `json:"why,omitempty"`
	// Err is the API's refusal from Options.Refuse.
	Err string `json:"error,omitempty"`
	// Event is recorded once the write succeeded; on a refused write (Err set), it reports
	// the refusal and is recorded all the same (FailedRSCreate).
	Event *Event `json:"event,omitempty"`
}

// Event is an Event recorded on the Deployment.
type Event struct{ Type, Reason, Message string }

// Input is the state a sync sees.
type Input struct {
	Deployment Object
	// ReplicaSets of the Deployment's namespace (others ignored).
	ReplicaSets []Object
	// Pods of the namespace; only Recreate reads them (no old Pod may run while the new
	// ReplicaSet scales up).
	Pods []Object
}

// Options configures a sync.
type Options struct {
	// Now is the clock of condition times and the progress deadline.
	Now time.Time
	// Refuse answers each write as the API would; nil accepts all. It must be pure.
	Refuse func(Action) error
}

// Result is what one sync does.
type Result struct {
	Actions []Action
	// Err is the sync's error (the controller requeues); nil when none.
	Err error
}

// InputError reports a Deployment the sync cannot read.
type InputError struct{ Detail string }

func (e *InputError) Error() string { return "deployment: " + e.Detail }

// session is one sync: the Deployment copy the controller mutates in place, and the
// writes so far.
type session struct {
	d    Object
	opts Options
	res  Result
}

// write records a; it returns the API's error.
func (s *session) write(a Action) error {
	a.Object = object.Copy(a.Object)
	var err error
	if s.opts.Refuse != nil {
		if err = s.opts.Refuse(a); err != nil {
			a.Err = err.Error()
		}
	}
	s.res.Actions = append(s.res.Actions, a)
	return err
}

func (s *session) event(typ, reason, msg string) {
	if n := len(s.res.Actions); n > 0 && s.res.Actions[n-1].Event == nil {
		s.res.Actions[n-1].Event = &Event{typ, reason, msg}
		return
	}
	s.res.Actions = append(s.res.Actions, Action{Type: ActionEvent, Namespace: object.Namespace(s.d), Name: object.Name(s.d), Event: &Event{typ, reason, msg}})
}

func (s *session) updateStatus(why string) error {
	return s.write(Action{Type: ActionUpdateStatus, Namespace: object.Namespace(s.d), Name: object.Name(s.d), Object: s.d, Why: why})
}

// Sync is syncDeployment for one Deployment. It does not modify its inputs.
func Sync(in Input, opts Options) (Result, error) {
	if in.Deployment == nil {
		return Result{}, &InputError{"no Deployment"}
	}
	if object.Namespace(in.Deployment) == "" || object.Name(in.Deployment) == "" || object.UID(in.Deployment) == "" {
		return Result{}, &InputError{"the Deployment needs metadata.namespace, name and uid"}
	}
	s := &session{d: object.Copy(in.Deployment), opts: opts}
	s.res.Err = s.sync(in)
	return s.res, nil
}

func (s *session) sync(in Input) error {
	d := s.d
	if sel, ok := object.Map(d, "spec")["selector"].(map[string]any); ok && len(object.Map(sel, "matchLabels")) == 0 && len(object.List(sel, "matchExpressions")) == 0 {
		s.event("Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if statusInt(d, "observedGeneration") < object.Generation(d) {
			setStatus(d, "observedGeneration", object.Generation(d))
			_ = s.updateStatus("observedGeneration")
		}
		return nil
	}
	rsList, err := s.claim(in)
	if err != nil {
		return err
	}
	if object.Deleting(d) {
		newRS, oldRSs, err := s.allReplicaSets(rsList, false)
		if err != nil {
			return err
		}
		return s.syncStatus(append(oldRSs, newRS), newRS)
	}
	if err := s.checkPausedConditions(); err != nil {
		return err
	}
	if paused(d) {
		return s.syncScale(rsList)
	}
	if rollbackTo(d) != nil {
		return s.rollback(rsList)
	}
	scaling, err := s.isScalingEvent(rsList)
	if err != nil {
		return err
	}
	if scaling {
		return s.syncScale(rsList)
	}
	switch object.String(d, "spec", "strategy", "type") {
	case "Recreate":
		return s.rolloutRecreate(rsList, in.Pods)
	case "RollingUpdate":
		return s.rolloutRolling(rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", object.String(d, "spec", "strategy", "type"))
}

func paused(d Object) bool { p, _ := object.Map(d, "spec")["paused"].(bool); return p }

func setStatus(d Object, k string, v any) {
	st := object.Map(d, "status")
	if st == nil {
		st = Object{}
		d["status"] = st
	}
	st[k] = v
}

// claim is getReplicaSetsForDeployment (ClaimReplicaSets).
func (s *session) claim(in Input) ([]Object, error) {
	d := s.d
	sel, err := labels.FromLabelSelector(object.Map(d, "spec")["selector"])
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %v", object.Namespace(d), object.Name(d), err)
	}
	var claimed []Object
	var errs []string
	for _, rs := range in.ReplicaSets {
		if object.Namespace(rs) != object.Namespace(d) {
			continue
		}
		ref, owned := object.ControllerOf(rs)
		if owned {
			if ref.UID != object.UID(d) {
				continue
			}
			if sel.MatchesObject(rs) {
				claimed = append(claimed, rs)
				continue
			}
			if object.Deleting(d) {
				continue
			}
			err := s.write(Action{Type: ActionReleaseReplicaSet, Namespace: object.Namespace(rs), Name: object.Name(rs),
				Patch: Object{"metadata": Object{"ownerReferences": []any{Object{"$patch": "delete", "uid": object.UID(d)}}, "uid": object.UID(rs)}},
				Why:   "its labels no longer match the selector"})
			if err != nil && !ignorable(err) {
				errs = append(errs, err.Error())
			}
			continue
		}
		if object.Deleting(d) || !sel.MatchesObject(rs) || object.Deleting(rs) {
			continue
		}
		err := s.write(Action{Type: ActionAdoptReplicaSet, Namespace: object.Namespace(rs), Name: object.Name(rs),
			Patch: Object{"metadata": Object{"ownerReferences": []any{object.ControllerRef(d, "apps/v1", "Deployment")}, "uid": object.UID(rs)}},
			Why:   "an orphan the selector matches"})
		if err != nil {
			if code(err) != 404 {
				errs = append(errs, err.Error())
			}
			continue
		}
		rs = object.Copy(rs)
		md := object.Map(rs, "metadata")
		md["ownerReferences"] = []any{object.ControllerRef(d, "apps/v1", "Deployment")}
		claimed = append(claimed, rs)
	}
	switch len(errs) {
	case 0:
		return claimed, nil
	case 1:
		return nil, fmt.Errorf("%s", errs[0])
	}
	return nil, fmt.Errorf("[%s]", strings.Join(errs, ", "))
}

// StatusError is what Options.Refuse may return to tell its HTTP code.
type StatusError interface{ StatusCode() int32 }

func code(err error) int32 {
	if s, ok := err.(StatusError); ok {
		return s.StatusCode()
	}
	return 0
}

func ignorable(err error) bool { c := code(err); return c == 404 || c == 422 }

func (s *session) checkPausedConditions() error {
	d := s.d
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := object.Condition(d, "Progressing")
	if object.String(cond, "reason") == ReasonTimedOut {
		return nil
	}
	pausedCond := cond != nil && object.String(cond, "reason") == ReasonPaused
	switch {
	case paused(d) && !pausedCond:
		setCondition(d, newCondition("Progressing", "Unknown", ReasonPaused, "Deployment is paused", s.opts.Now))
	case !paused(d) && pausedCond:
		setCondition(d, newCondition("Progressing", "Unknown", ReasonResumed, "Deployment is resumed", s.opts.Now))
	default:
		return nil
	}
	return s.updateStatus("paused condition")
}

func newCondition(typ, status, reason, msg string, now time.Time) Object {
	t := object.FormatTime(now)
	return Object{"type": typ, "status": status, "reason": reason, "message": msg, "lastUpdateTime": t, "lastTransitionTime": t}
}

// setCondition is SetDeploymentCondition on an object's status.
func setCondition(o Object, c Object) {
	st := object.Map(o, "status")
	if st == nil {
		st = Object{}
		o["status"] = st
	}
	setStatusCondition(st, c)
}

func setStatusCondition(st Object, c Object) {
	var cur Object
	for _, x := range object.List(st, "conditions") {
		if m, _ := x.(map[string]any); object.String(m, "type") == object.String(c, "type") {
			cur = m
		}
	}
	if cur != nil && object.String(cur, "status") == object.String(c, "status") && object.String(cur, "reason") == object.String(c, "reason") {
		return
	}
	if cur != nil && object.String(cur, "status") == object.String(c, "status") {
		c["lastTransitionTime"] = cur["lastTransitionTime"]
	}
	st["conditions"] = append(withoutCondition(object.List(st, "conditions"), object.String(c, "type")), c)
}

func removeCondition(st Object, typ string) {
	if conds := withoutCondition(object.List(st, "conditions"), typ); conds != nil {
		st["conditions"] = conds
	} else {
		delete(st, "conditions")
	}
}

func withoutCondition(conds []any, typ string) []any {
	var out []any
	for _, c := range conds {
		if m, _ := c.(map[string]any); object.String(m, "type") != typ {
			out = append(out, c)
		}
	}
	return out
}

func statusCondition(st Object, typ string) Object {
	for _, x := range object.List(st, "conditions") {
		if m, _ := x.(map[string]any); object.String(m, "type") == typ {
			return m
		}
	}
	return nil
}

// allReplicaSets is getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when
// create is set and none matches the template) and all old ones, oldest first.
func (s *session) allReplicaSets(rsList []Object, create bool) (Object, []Object, error) {
	sortByCreation(rsList)
	var newRS Object
	for _, rs := range rsList {
		if EqualIgnoreHash(object.Map(rs, "spec", "template"), object.Map(s.d, "spec", "template")) {
			newRS = rs
			break
		}
	}
	var oldRSs []Object
	for _, rs := range rsList {
		if newRS != nil && object.UID(rs) == object.UID(newRS) {
			continue
		}
		oldRSs = append(oldRSs, rs)
	}
	n, err := s.newReplicaSet(newRS, oldRSs, create)
	return n, oldRSs, err
}

func (s *session) newReplicaSet(existing Object, oldRSs []Object, create bool) (Object, error) {
	d := s.d
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	if existing != nil {
		rs := object.Copy(existing)
		changed := setNewReplicaSetAnnotations(d, rs, newRevision, true)
		minReady, _ := object.Int(d, "spec", "minReadySeconds")
		rsMinReady, _ := object.Int(rs, "spec", "minReadySeconds")
		if changed || rsMinReady != minReady {
			setMinReady(rs, minReady)
			if err := s.write(Action{Type: ActionUpdateReplicaSet, Namespace: object.Namespace(rs), Name: object.Name(rs), Object: rs,
				Why: "annotations and minReadySeconds follow the Deployment"}); err != nil {
				return nil, err
			}
			return rs, nil
		}
		rev, _ := annotation(rs, RevisionAnnotation)
		needs := setRevision(d, rev)
		if hasProgressDeadline(d) && object.Condition(d, "Progressing") == nil {
			setCondition(d, newCondition("Progressing", "True", ReasonFoundNewRS, fmt.Sprintf("Found new replica set %q", object.Name(rs)), s.opts.Now))
			needs = true
		}
		if needs {
			if err := s.updateStatus("revision and Progressing condition"); err != nil {
				return nil, err
			}
		}
		return rs, nil
	}
	if !create {
		return nil, nil
	}
	tmpl := object.Copy(object.Map(d, "spec", "template"))
	if tmpl == nil {
		tmpl = Object{}
	}
	var collision *int64
	if c, ok := object.Int(d, "status", "collisionCount"); ok {
		collision = &c
	}
	hash := ComputeHash(tmpl, collision)
	md := object.Map(tmpl, "metadata")
	if md == nil {
		md = Object{}
		tmpl["metadata"] = md
	}
	lbls := object.Map(md, "labels")
	if lbls == nil {
		lbls = Object{}
		md["labels"] = lbls
	}
	lbls[PodTemplateHashLabel] = hash
	sel := object.Copy(object.Map(d, "spec", "selector"))
	if sel == nil {
		sel = Object{}
	}
	ml := object.Map(sel, "matchLabels")
	if ml == nil {
		ml = Object{}
		sel["matchLabels"] = ml
	}
	ml[PodTemplateHashLabel] = hash
	minReady, _ := object.Int(d, "spec", "minReadySeconds")
	rsLabels := object.Copy(lbls)
	rs := Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": Object{"name": ReplicaSetName(object.Name(d), hash), "namespace": object.Namespace(d),
			"ownerReferences": []any{object.ControllerRef(d, "apps/v1", "Deployment")}, "labels": rsLabels},
		"spec": Object{"replicas": int64(0), "selector": sel, "template": tmpl}}
	setMinReady(rs, minReady)
	n, err := NewRSNewReplicas(d, append(append([]Object(nil), oldRSs...), rs), rs)
	if err != nil {
		return nil, err
	}
	object.Map(rs, "spec")["replicas"] = n
	setNewReplicaSetAnnotations(d, rs, newRevision, false)
	err = s.write(Action{Type: ActionCreateReplicaSet, Namespace: object.Namespace(d), Name: object.Name(rs), Object: rs,
		Why: fmt.Sprintf("no ReplicaSet has the template: revision %s, %d replicas to start", newRevision, n)})
	if err != nil {
		if code(err) == 409 {
			// AlreadyExists: a ReplicaSet of that name with another template or owner is
			// a hash collision.
			c := int64(0)
			if collision != nil {
				c = *collision
			}
			setStatus(d, "collisionCount", c+1)
			_ = s.updateStatus("hash collision")
			return nil, err
		}
		if nt, ok := err.(interface{ NamespaceTerminating() bool }); ok && nt.NamespaceTerminating() {
			return nil, err
		}
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", object.Name(rs), err)
		create := len(s.res.Actions) - 1
		if hasProgressDeadline(d) {
			setCondition(d, newCondition("Progressing", "False", ReasonFailedRSCreate, msg, s.opts.Now))
			_ = s.updateStatus("ReplicaSet creation failed")
		}
		// The Event reports the refused create (it rides on it, Err set) and is recorded
		// whatever the status update's fate, as the controller records it after ignoring that.
		s.res.Actions[create].Event = &Event{"Warning", ReasonFailedRSCreate, msg}
		return nil, err
	}
	if n > 0 {
		s.event("Normal", "ScalingReplicaSet", fmt.Sprintf("Scaled up replica set %s from 0 to %d", object.Name(rs), n))
	}
	needs := setRevision(d, newRevision)
	if hasProgressDeadline(d) {
		setCondition(d, newCondition("Progressing", "True", ReasonNewReplicaSet, fmt.Sprintf("Created new replica set %q", object.Name(rs)), s.opts.Now))
		needs = true
	}
	if needs {
		err = s.updateStatus("revision and Progressing condition")
	}
	return rs, err
}

func setMinReady(rs Object, v int64) {
	spec := object.Map(rs, "spec")
	if v == 0 {
		delete(spec, "minReadySeconds")
	} else {
		spec["minReadySeconds"] = v
	}
}

func annotations(o Object) Object {
	md := object.Map(o, "metadata")
	if md == nil {
		md = Object{}
		o["metadata"] = md
	}
	a := object.Map(md, "annotations")
	if a == nil {
		a = Object{}
		md["annotations"] = a
	}
	return a
}

func setRevision(d Object, rev string) bool {
	a := annotations(d)
	if cur, _ := a[RevisionAnnotation].(string); cur != rev {
		a[RevisionAnnotation] = rev
		return true
	}
	return false
}

// setNewReplicaSetAnnotations is SetNewReplicaSetAnnotations.
func setNewReplicaSetAnnotations(d, rs Object, newRevision string, exists bool) bool {
	changed := false
	ra := annotations(rs)
	for k, v := range object.Map(d, "metadata", "annotations") {
		if skipCopy[k] {
			continue
		}
		if cur, ok := ra[k]; ok && cur == v {
			continue
		}
		ra[k] = v
		changed = true
	}
	oldRev, had := ra[RevisionAnnotation].(string)
	oldInt, err := strconv.ParseInt(oldRev, 10, 64)
	if err != nil {
		if oldRev != "" {
			return false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldInt < newInt {
		ra[RevisionAnnotation] = newRevision
		changed = true
	}
	if had && oldInt < newInt {
		hist, _ := ra[RevisionHistoryAnnotation].(string)
		olds := strings.Split(hist, ",")
		if olds[0] == "" {
			ra[RevisionHistoryAnnotation] = oldRev
		} else {
			total := len(hist) + len(oldRev) + 1
			start := 0
			for total > maxRevHistoryLengthInChars && start < len(olds) {
				total -= len(olds[start]) + 1
				start++
			}
			if total <= maxRevHistoryLengthInChars {
				ra[RevisionHistoryAnnotation] = strings.Join(append(olds[start:], oldRev), ",")
			}
		}
	}
	if !exists && setReplicasAnnotations(rs, specReplicas(d), specReplicas(d)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

func setReplicasAnnotations(rs Object, desired, maxReplicas int64) bool {
	a := annotations(rs)
	changed := false
	for k, v := range map[string]string{DesiredReplicasAnnotation: strconv.FormatInt(desired, 10), MaxReplicasAnnotation: strconv.FormatInt(maxReplicas, 10)} {
		if cur, _ := a[k].(string); cur != v {
			a[k] = v
			changed = true
		}
	}
	return changed
}

func replicasAnnotationsNeedUpdate(rs Object, desired, maxReplicas int64) bool {
	a := object.Map(rs, "metadata", "annotations")
	if a == nil {
		return true
	}
	d, _ := a[DesiredReplicasAnnotation].(string)
	m, _ := a[MaxReplicasAnnotation].(string)
	return d != strconv.FormatInt(desired, 10) || m != strconv.FormatInt(maxReplicas, 10)
}

// scaleReplicaSet is scaleReplicaSet: the ReplicaSet as written (or as it was).
func (s *session) scaleReplicaSet(rs Object, newScale int64, force bool, why string) (bool, Object, error) {
	d := s.d
	if !force && specReplicas(rs) == newScale {
		return false, rs, nil
	}
	sizeChange := specReplicas(rs) != newScale
	maxReplicas := specReplicas(d) + MaxSurge(d)
	if !sizeChange && !replicasAnnotationsNeedUpdate(rs, specReplicas(d), maxReplicas) {
		return false, rs, nil
	}
	old := specReplicas(rs)
	c := object.Copy(rs)
	object.Map(c, "spec")["replicas"] = newScale
	setReplicasAnnotations(c, specReplicas(d), maxReplicas)
	if !sizeChange {
		why = "desired-replicas and max-replicas annotations follow the Deployment"
	} else {
		why = fmt.Sprintf("%d -> %d: %s", old, newScale, why)
	}
	if err := s.write(Action{Type: ActionUpdateReplicaSet, Namespace: object.Namespace(c), Name: object.Name(c), Object: c, Why: why}); err != nil {
		return false, nil, err
	}
	if !sizeChange {
		return false, c, nil
	}
	op := "down"
	if old < newScale {
		op = "up"
	}
	s.event("Normal", "ScalingReplicaSet", fmt.Sprintf("Scaled %s replica set %s from %d to %d", op, object.Name(c), old, newScale))
	return true, c, nil
}

func (s *session) isScalingEvent(rsList []Object) (bool, error) {
	newRS, oldRSs, err := s.allReplicaSets(rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range active(append(oldRSs, newRS)) {
		desired, ok := nonNegativeAnnotation(rs, DesiredReplicasAnnotation)
		if ok && desired != specReplicas(s.d) {
			return true, nil
		}
	}
	return false, nil
}

// syncScale is sync: scale (proportionally during a rollout), clean up when paused,
// then status.
func (s *session) syncScale(rsList []Object) error {
	newRS, oldRSs, err := s.allReplicaSets(rsList, false)
	if err != nil {
		return err
	}
	if err := s.scale(newRS, oldRSs); err != nil {
		return err
	}
	if paused(s.d) && rollbackTo(s.d) == nil {
		if err := s.cleanup(oldRSs); err != nil {
			return err
		}
	}
	return s.syncStatus(append(oldRSs, newRS), newRS)
}

func (s *session) scale(newRS Object, oldRSs []Object) error {
	d := s.d
	if latest := activeOrLatest(newRS, oldRSs); latest != nil {
		if specReplicas(latest) == specReplicas(d) {
			return nil
		}
		_, _, err := s.scaleReplicaSet(latest, specReplicas(d), false, "the only active ReplicaSet follows spec.replicas")
		return err
	}
	if IsSaturated(d, newRS) {
		for _, old := range active(oldRSs) {
			if _, _, err := s.scaleReplicaSet(old, 0, false, "the new ReplicaSet is saturated"); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRolling(d) {
		return nil
	}
	all := active(append(append([]Object(nil), oldRSs...), newRS))
	total := replicaCount(all)
	var allowed int64
	if specReplicas(d) > 0 {
		allowed = specReplicas(d) + MaxSurge(d)
	}
	toAdd := allowed - total
	switch {
	case toAdd > 0:
		sort.SliceStable(all, func(i, j int) bool { return bySizeNewer(all[i], all[j]) })
	case toAdd < 0:
		sort.SliceStable(all, func(i, j int) bool { return bySizeOlder(all[i], all[j]) })
	}
	var added int64
	sizes := map[string]int64{}
	for _, rs := range all {
		if toAdd != 0 {
			p := ReplicaSetProportion(rs, d, toAdd, added)
			sizes[object.Name(rs)] = specReplicas(rs) + p
			added += p
		} else {
			sizes[object.Name(rs)] = specReplicas(rs)
		}
	}
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[object.Name(rs)] = max(sizes[object.Name(rs)]+toAdd-added, 0)
		}
		why := fmt.Sprintf("proportional scaling: %+d replicas across the active ReplicaSets toward %d (spec.replicas %d + maxSurge %d)",
			toAdd, allowed, specReplicas(d), MaxSurge(d))
		if _, _, err := s.scaleReplicaSet(rs, sizes[object.Name(rs)], true, why); err != nil {
			return err
		}
	}
	return nil
}

func bySizeNewer(a, b Object) bool {
	if specReplicas(a) == specReplicas(b) {
		return byCreation(b, a)
	}
	return specReplicas(a) > specReplicas(b)
}

func bySizeOlder(a, b Object) bool {
	if specReplicas(a) == specReplicas(b) {
		return byCreation(a, b)
	}
	return specReplicas(a) > specReplicas(b)
}

// activeOrLatest is FindActiveOrLatest (it sorts oldRSs newest first, as the controller
// does in place).
func activeOrLatest(newRS Object, oldRSs []Object) Object {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })
	all := active(append(append([]Object(nil), oldRSs...), newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return all[0]
	}
	return nil
}

// cleanup is cleanupDeployment: delete the oldest old ReplicaSets past
// revisionHistoryLimit that are scaled to 0 and settled.
func (s *session) cleanup(oldRSs []Object) error {
	d := s.d
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []Object
	for _, rs := range oldRSs {
		if rs != nil && !object.Deleting(rs) {
			cleanable = append(cleanable, rs)
		}
	}
	limit, _ := object.Int(d, "spec", "revisionHistoryLimit")
	diff := int64(len(cleanable)) - limit
	if diff <= 0 {
		return nil
	}
	sort.SliceStable(cleanable, func(i, j int) bool {
		ri, ei := revision(cleanable[i])
		rj, ej := revision(cleanable[j])
		if ei != nil || ej != nil || ri == rj {
			return byCreation(cleanable[i], cleanable[j])
		}
		return ri < rj
	})
	for i := int64(0); i < diff; i++ {
		rs := cleanable[i]
		if statusInt(rs, "replicas") != 0 || specReplicas(rs) != 0 || object.Generation(rs) > statusInt(rs, "observedGeneration") || object.Deleting(rs) {
			continue
		}
		if err := s.write(Action{Type: ActionDeleteReplicaSet, Namespace: object.Namespace(rs), Name: object.Name(rs),
			Why: fmt.Sprintf("revisionHistoryLimit %d: %d old ReplicaSets", limit, len(cleanable))}); err != nil && code(err) != 404 {
			return err
		}
	}
	return nil
}

// calculateStatus is calculateStatus.
func calculateStatus(all []Object, newRS, d Object, now time.Time) Object {
	availableReplicas := statusSum(all, "availableReplicas")
	total := replicaCount(all)
	st := Object{
		"observedGeneration":  object.Generation(d),
		"replicas":            statusSum(all, "replicas"),
		"updatedReplicas":     statusSum([]Object{newRS}, "replicas"),
		"readyReplicas":       statusSum(all, "readyReplicas"),
		"availableReplicas":   availableReplicas,
		"unavailableReplicas": max(total-availableReplicas, 0),
	}
	if c, ok := object.Int(d, "status", "collisionCount"); ok {
		st["collisionCount"] = c
	}
	if t, ok := terminating(all); ok {
		st["terminatingReplicas"] = t
	}
	if conds := object.List(d, "status", "conditions"); len(conds) > 0 {
		st["conditions"] = object.Copy(Object{"c": conds})["c"]
	}
	if availableReplicas >= specReplicas(d)-MaxUnavailable(d) {
		setStatusCondition(st, newCondition("Available", "True", ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		setStatusCondition(st, newCondition("Available", "False", ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return st
}

// terminating is GetTerminatingReplicaCountForReplicaSets: unknown (false) when a
// ReplicaSet that has been synced does not report terminatingReplicas.
func terminating(all []Object) (int64, bool) {
	var n int64
	for _, rs := range all {
		if rs == nil {
			continue
		}
		t, has := object.Int(rs, "status", "terminatingReplicas")
		switch {
		case statusInt(rs, "observedGeneration") == 0 && !has:
		case !has:
			return 0, false
		default:
			n += t
		}
	}
	return n, true
}

func (s *session) syncStatus(all []Object, newRS Object) error {
	st := calculateStatus(all, newRS, s.d, s.opts.Now)
	if statusEqual(object.Map(s.d, "status"), st) {
		return nil
	}
	s.d["status"] = st
	return s.updateStatus("status")
}

// statusEqual compares DeploymentStatus values as reflect.DeepEqual does on the typed
// status (absent counters are 0).
func statusEqual(a, b Object) bool {
	for _, k := range []string{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"} {
		x, _ := object.Int(a, k)
		y, _ := object.Int(b, k)
		if x != y {
			return false
		}
	}
	for _, k := range []string{"collisionCount", "terminatingReplicas"} {
		x, hx := object.Int(a, k)
		y, hy := object.Int(b, k)
		if hx != hy || x != y {
			return false
		}
	}
	ca, cb := object.List(a, "conditions"), object.List(b, "conditions")
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		ma, _ := ca[i].(map[string]any)
		mb, _ := cb[i].(map[string]any)
		for _, k := range []string{"type", "status", "reason", "message", "lastUpdateTime", "lastTransitionTime"} {
			if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
				return false
			}
		}
	}
	return true
}

func rollbackTo(d Object) *int64 {
	v, _ := annotation(d, RollbackToAnnotation)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func (s *session) rollback(rsList []Object) error {
	d := s.d
	newRS, oldRSs, err := s.allReplicaSets(rsList, true)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	to := *rollbackTo(d)
	if to == 0 {
		if to = LastRevision(all); to == 0 {
			s.event("Warning", ReasonRollbackRevisionNotFound, "Unable to find last revision.")
			return s.clearRollbackTo()
		}
	}
	for _, rs := range all {
		v, err := revision(rs)
		if err != nil || rs == nil || v != to {
			continue
		}
		if !EqualIgnoreHash(object.Map(d, "spec", "template"), object.Map(rs, "spec", "template")) {
			setTemplateFrom(d, rs)
			err := s.clearRollbackTo()
			if err == nil {
				s.event("Normal", ReasonRollbackDone, fmt.Sprintf("Rolled back deployment %q to revision %d", object.Name(d), to))
			}
			return err
		}
		s.event("Warning", ReasonRollbackTemplateUnchanged, fmt.Sprintf("The rollback revision contains the same template as current deployment %q", object.Name(d)))
		return s.clearRollbackTo()
	}
	s.event("Warning", ReasonRollbackRevisionNotFound, "Unable to find the revision to rollback to.")
	return s.clearRollbackTo()
}

// setTemplateFrom is SetFromReplicaSetTemplate and SetDeploymentAnnotationsTo: the
// ReplicaSet's template without its hash label, and its annotations but the skipped.
func setTemplateFrom(d, rs Object) {
	tmpl := templateWithoutHash(object.Map(rs, "spec", "template"))
	object.Map(d, "spec")["template"] = tmpl
	kept := Object{}
	for k, v := range object.Map(d, "metadata", "annotations") {
		if skipCopy[k] {
			kept[k] = v
		}
	}
	for k, v := range object.Map(rs, "metadata", "annotations") {
		if !skipCopy[k] {
			kept[k] = v
		}
	}
	object.Map(d, "metadata")["annotations"] = kept
}

func (s *session) clearRollbackTo() error {
	if a := object.Map(s.d, "metadata", "annotations"); a != nil {
		delete(a, RollbackToAnnotation)
	}
	return s.write(Action{Type: ActionUpdate, Namespace: object.Namespace(s.d), Name: object.Name(s.d), Object: s.d, Why: "rollback"})
}

// Rollback is what `kubectl rollout undo` writes: the Deployment with the template of
// the ReplicaSet of revision toRevision (0: the previous revision), its annotations
// copied as the rollback copies them. It returns an error when the revision is not
// found, or when the template is already the current one ("skipped rollback"), with
// kubectl's words.
func Rollback(d Object, replicaSets []Object, toRevision int64) (Object, error) {
	var owned []Object
	for _, rs := range replicaSets {
		if ref, ok := object.ControllerOf(rs); ok && ref.UID == object.UID(d) {
			owned = append(owned, rs)
		}
	}
	if paused(d) {
		return nil, fmt.Errorf("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	var target Object
	if toRevision == 0 {
		// kubectl's previous revision: the second highest.
		var cur, prev int64
		for _, rs := range owned {
			v, err := revision(rs)
			if err != nil {
				continue
			}
			if v > cur {
				prev, cur = cur, v
			} else if v > prev {
				prev = v
			}
		}
		if prev == 0 {
			return nil, fmt.Errorf("no rollout history found for deployment %q", object.Name(d))
		}
		toRevision = prev
	}
	for _, rs := range owned {
		if v, err := revision(rs); err == nil && v == toRevision {
			target = rs
		}
	}
	if target == nil {
		return nil, fmt.Errorf("unable to find specified revision %d in history", toRevision)
	}
	if EqualIgnoreHash(object.Map(d, "spec", "template"), object.Map(target, "spec", "template")) {
		return nil, fmt.Errorf("skipped rollback (current template already matches revision %d)", toRevision)
	}
	out := object.Copy(d)
	setTemplateFrom(out, target)
	return out, nil
}

func selectorOf(d Object) (labels.Selector, error) {
	return labels.FromLabelSelector(object.Map(d, "spec")["selector"])
}
