package replicaset

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/writepath/writepath/controllers/internal/object"
	"github.com/writepath/writepath/internal/labels"
	"github.com/writepath/writepath/internal/validation"
)

// Object is a Kubernetes object in the library's object model.
type Object = map[string]any

// The controller's constants (pkg/controller and cmd/kube-controller-manager defaults).
const (
	// BurstReplicas is kube-controller-manager's burstReplicas: at most this many Pods
	// are created or deleted in one sync.
	BurstReplicas = 500
	// SlowStartInitialBatchSize is the first batch of creations; each successful batch
	// doubles the next.
	SlowStartInitialBatchSize = 1
	// ExpectationsTimeout is how long unobserved expectations block a sync.
	ExpectationsTimeout = 5 * time.Minute
	// DeletionCostAnnotation is controller.kubernetes.io/pod-deletion-cost.
	DeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"
)

// ActionType names a write the controller makes.
type ActionType string

// The writes of a sync, in the order they are made.
const (
	// ActionAdopt: strategic merge patch adding the ReplicaSet as controller of an orphan.
	ActionAdopt ActionType = "AdoptPod"
	// ActionRelease: strategic merge patch deleting the ReplicaSet's ownerReference.
	ActionRelease ActionType = "ReleasePod"
	// ActionCreate: POST of Object (a Pod with metadata.generateName).
	ActionCreate ActionType = "CreatePod"
	// ActionDelete: DELETE of the Pod Name.
	ActionDelete ActionType = "DeletePod"
	// ActionUpdateStatus: PUT of the ReplicaSet's status subresource with Object.
	ActionUpdateStatus ActionType = "UpdateStatus"
)

// Action is one write, as data.
type Action struct {
	Type ActionType `json:"type"`
	// Namespace and Name of the target (empty Name for a create).
	Namespace string `json:"namespace"`
	Name      string `json:"name,omitempty"`
	// Object is the Pod to create, or the ReplicaSet with its new status.
	Object Object `json:"object,omitempty"`
	// Patch is the strategic merge patch of an adopt or release.
	Patch Object `json:"patch,omitempty"`
	// Err is the error the API answered, from Options.Refuse; a refused write changed nothing.
	Err string `json:"error,omitempty"`
	// Event is the Event the controller records for this write, if any.
	Event *Event `json:"event,omitempty"`
}

// Event is an Event recorded on the ReplicaSet.
type Event struct {
	Type, Reason, Message string
}

// Expectations are the creations and deletions a ReplicaSet waits to observe before it
// manages replicas again (UIDTrackingControllerExpectations). The zero value and nil
// mean none.
type Expectations struct {
	Add, Del int64
	// Deleting holds the namespace/name keys of the Pods whose deletion is expected.
	Deleting []string
	// Timestamp is when they were set; past ExpectationsTimeout they no longer block.
	Timestamp time.Time
}

// Satisfied is SatisfiedExpectations as a sync with opts sees them (at opts.Now): none
// recorded, all observed, or expired.
func (e *Expectations) Satisfied(opts Options) bool {
	if e == nil {
		return true
	}
	return (e.Add <= 0 && e.Del <= 0) || opts.Now.Sub(e.Timestamp) > ExpectationsTimeout
}

// CreationObserved is the informer seeing one of the expected Pods created (or a
// refused create): one fewer creation expected. It returns a new value.
func (e *Expectations) CreationObserved() *Expectations {
	if e == nil {
		return nil
	}
	c := *e
	c.Add--
	return &c
}

// DeletionObserved is the informer seeing the Pod key deleted (or marked for
// deletion): if its deletion was expected, one fewer deletion expected.
func (e *Expectations) DeletionObserved(key string) *Expectations {
	if e == nil {
		return nil
	}
	for i, k := range e.Deleting {
		if k == key {
			c := *e
			c.Deleting = append(append([]string(nil), e.Deleting[:i]...), e.Deleting[i+1:]...)
			c.Del--
			return &c
		}
	}
	return e
}

// Input is the state one sync sees.
type Input struct {
	// ReplicaSet is the ReplicaSet as the informer holds it.
	ReplicaSet Object
	// Pods are the Pods of its namespace (others are ignored), in informer order.
	Pods []Object
	// ReplicaSets are the ReplicaSets of its namespace; those with the same controller
	// (a Deployment's) rank Pods for deletion by how many of theirs share a node. Nil
	// ranks every Pod alike.
	ReplicaSets []Object
	// Expectations recorded for the ReplicaSet before this sync; nil for none.
	Expectations *Expectations
}

// Options configures a sync.
type Options struct {
	// Now is the controller's clock: availability, condition times, expectations.
	Now time.Time
	// BurstReplicas bounds creations and deletions per sync; zero means BurstReplicas.
	BurstReplicas int
	// Refuse, when set, answers each write as the API would: a non-nil error refuses
	// it (quota, a terminating namespace, ...). It must be a pure function of its input.
	Refuse func(Action) error
}

// Result is what one sync does.
type Result struct {
	// Actions are the writes, in order: adoptions and releases, creations or deletions,
	// then the status update (absent when the status is unchanged).
	Actions []Action
	// Status is the ReplicaSet's status after the sync (written or not).
	Status Object
	// Expectations after the sync, for the next one.
	Expectations *Expectations
	// RequeueAfter is when the controller syncs again to see Pods become available
	// (minReadySeconds); zero for no timed requeue.
	RequeueAfter time.Duration
	// Err is the sync's error (the controller requeues with backoff); nil when none.
	Err error
}

// InputError reports a ReplicaSet the sync cannot read.
type InputError struct{ Detail string }

func (e *InputError) Error() string { return "replicaset: " + e.Detail }

// Sync is syncReplicaSet for one ReplicaSet: claim Pods, create or delete Pods toward
// spec.replicas when expectations allow, and compute status. It does not modify its
// inputs.
func Sync(in Input, opts Options) (Result, error) {
	rs := in.ReplicaSet
	if rs == nil {
		return Result{}, &InputError{"no ReplicaSet"}
	}
	if object.Namespace(rs) == "" || object.Name(rs) == "" || object.UID(rs) == "" {
		return Result{}, &InputError{"the ReplicaSet needs metadata.namespace, name and uid"}
	}
	burst := opts.BurstReplicas
	if burst <= 0 {
		burst = BurstReplicas
	}
	res := Result{Expectations: in.Expectations}
	needsSync := in.Expectations.Satisfied(opts)
	sel, err := labels.FromLabelSelector(object.Map(rs, "spec")["selector"])
	if err != nil {
		// The controller logs and drops the key: no writes.
		res.Status = object.Copy(object.Map(rs, "status"))
		return res, nil
	}
	ns, uid := object.Namespace(rs), object.UID(rs)
	var owned, orphans []Object
	for _, p := range in.Pods {
		if object.Namespace(p) != ns {
			continue
		}
		ref, ok := object.ControllerOf(p)
		switch {
		case !ok:
			orphans = append(orphans, p)
		case ref.Kind == "ReplicaSet" && ref.Name == object.Name(rs) && ref.UID == uid:
			owned = append(owned, p)
		}
	}
	all := append(owned, orphans...)
	var active []Object
	for _, p := range all {
		if object.PodActive(p) {
			active = append(active, p)
		}
	}
	claimed, claimErr := claim(rs, sel, active, opts, &res)
	if claimErr != nil {
		res.Err = claimErr
		res.Status = object.Copy(object.Map(rs, "status"))
		return res, nil
	}
	var terminating int64
	for _, p := range all {
		if object.PodTerminating(p) {
			if ref, ok := object.ControllerOf(p); ok && ref.UID == uid && sel.MatchesObject(p) {
				terminating++
			}
		}
	}
	var manageErr error
	if needsSync && !object.Deleting(rs) {
		manageErr = manage(rs, claimed, in, burst, opts, &res)
	}
	st := status(rs, claimed, terminating, manageErr, opts.Now)
	res.Status = st
	if statusChanged(rs, st) {
		st["observedGeneration"] = object.Generation(rs)
		updated := object.Copy(rs)
		updated["status"] = st
		a := Action{Type: ActionUpdateStatus, Namespace: ns, Name: object.Name(rs), Object: updated}
		if opts.Refuse != nil {
			if err := opts.Refuse(a); err != nil {
				a.Err = err.Error()
				res.Actions = append(res.Actions, a)
				res.Err = err
				return res, nil
			}
		}
		res.Actions = append(res.Actions, a)
	}
	if manageErr != nil {
		res.Err = manageErr
		return res, nil
	}
	minReady, _ := object.Int(rs, "spec", "minReadySeconds")
	ready, _ := object.Int(st, "readyReplicas")
	avail, _ := object.Int(st, "availableReplicas")
	if minReady > 0 && ready != avail {
		res.RequeueAfter = time.Duration(minReady) * time.Second
		if next, ok := nextAvailabilityCheck(claimed, minReady, opts.Now); ok {
			res.RequeueAfter = next
		}
	}
	return res, nil
}

// nextAvailabilityCheck is FindMinNextPodAvailabilityCheck with one clock reading.
func nextAvailabilityCheck(pods []Object, minReady int64, now time.Time) (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, p := range pods {
		if !object.PodReady(p) {
			continue
		}
		t := object.Time(object.Condition(p, "Ready")["lastTransitionTime"])
		if t.IsZero() {
			continue
		}
		if d := t.Add(time.Duration(minReady) * time.Second).Sub(now); d > 0 && (!found || d < best) {
			best, found = d, true
		}
	}
	return best, found
}

// claim is PodControllerRefManager.ClaimPods over the active Pods.
func claim(rs Object, sel labels.Selector, pods []Object, opts Options, res *Result) ([]Object, error) {
	var claimed []Object
	var errs []string
	deleting := object.Deleting(rs)
	for _, p := range pods {
		ref, owned := object.ControllerOf(p)
		if owned {
			if ref.UID != object.UID(rs) {
				continue
			}
			if sel.MatchesObject(p) {
				claimed = append(claimed, p)
				continue
			}
			if deleting {
				continue
			}
			a := Action{Type: ActionRelease, Namespace: object.Namespace(p), Name: object.Name(p), Patch: Object{"metadata": Object{
				"ownerReferences": []any{Object{"$patch": "delete", "uid": object.UID(rs)}}, "uid": object.UID(p)}}}
			if err := refuse(opts, &a); err != nil && !notFoundOrInvalid(err) {
				errs = append(errs, err.Error())
			}
			res.Actions = append(res.Actions, a)
			continue
		}
		if deleting || !sel.MatchesObject(p) || object.Deleting(p) || object.Namespace(p) != object.Namespace(rs) {
			continue
		}
		a := Action{Type: ActionAdopt, Namespace: object.Namespace(p), Name: object.Name(p), Patch: Object{"metadata": Object{
			"ownerReferences": []any{object.ControllerRef(rs, "apps/v1", "ReplicaSet")}, "uid": object.UID(p)}}}
		if err := refuse(opts, &a); err != nil {
			res.Actions = append(res.Actions, a)
			if !isNotFound(err) {
				errs = append(errs, err.Error())
			}
			continue
		}
		res.Actions = append(res.Actions, a)
		claimed = append(claimed, p)
	}
	if len(errs) == 1 {
		return claimed, fmt.Errorf("%s", errs[0])
	}
	if len(errs) > 1 {
		return claimed, fmt.Errorf("%v", errs)
	}
	return claimed, nil
}

// StatusError is what Options.Refuse may return to tell its HTTP code, so that refused
// adoptions and releases of vanished Pods are ignored as the controller ignores them.
type StatusError interface{ StatusCode() int32 }

func code(err error) int32 {
	if s, ok := err.(StatusError); ok {
		return s.StatusCode()
	}
	return 0
}

func isNotFound(err error) bool        { return code(err) == 404 }
func notFoundOrInvalid(err error) bool { c := code(err); return c == 404 || c == 422 }

func refuse(opts Options, a *Action) error {
	if opts.Refuse == nil {
		return nil
	}
	err := opts.Refuse(*a)
	if err != nil {
		a.Err = err.Error()
	}
	return err
}

// manage is manageReplicas.
func manage(rs Object, active []Object, in Input, burst int, opts Options, res *Result) error {
	want, _ := object.Int(rs, "spec", "replicas")
	diff := len(active) - int(want)
	ns, name := object.Namespace(rs), object.Name(rs)
	if diff < 0 {
		diff = min(-diff, burst)
		exp := &Expectations{Add: int64(diff), Timestamp: opts.Now}
		pod, podErr := podFromTemplate(rs)
		successes := 0
		var firstErr error
		for batch := min(diff, SlowStartInitialBatchSize); batch > 0; batch = min(2*batch, diff-successes) {
			failed := 0
			for i := 0; i < batch; i++ {
				a := Action{Type: ActionCreate, Namespace: ns, Object: object.Copy(pod)}
				var err error
				if podErr != nil {
					err = podErr
					a.Err = err.Error()
				} else if err = refuse(opts, &a); err != nil {
					if !namespaceTerminating(err) {
						a.Event = &Event{Type: "Warning", Reason: "FailedCreate", Message: "Error creating: " + err.Error()}
					}
				} else {
					a.Event = &Event{Type: "Normal", Reason: "SuccessfulCreate", Message: "Created pod: <generated name>"}
				}
				if podErr == nil {
					res.Actions = append(res.Actions, a)
				}
				if err != nil && namespaceTerminating(err) {
					err = nil
				}
				if err != nil {
					failed++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			successes += batch - failed
			if failed > 0 {
				break
			}
		}
		// Creations never attempted, and refused ones, are not expected.
		exp.Add = int64(successes)
		res.Expectations = exp
		return firstErr
	}
	if diff > 0 {
		diff = min(diff, burst)
		victims := podsToDelete(active, relatedPods(rs, in), diff, opts.Now)
		exp := &Expectations{Del: int64(len(victims)), Timestamp: opts.Now}
		for _, p := range victims {
			exp.Deleting = append(exp.Deleting, object.Key(p))
		}
		var firstErr error
		for _, p := range victims {
			a := Action{Type: ActionDelete, Namespace: ns, Name: object.Name(p)}
			if err := refuse(opts, &a); err != nil {
				exp = exp.DeletionObserved(object.Key(p))
				if !isNotFound(err) {
					a.Event = &Event{Type: "Warning", Reason: "FailedDelete", Message: "Error deleting: " + err.Error()}
					if firstErr == nil {
						firstErr = fmt.Errorf("unable to delete pods: %v", err)
					}
				}
			} else {
				a.Event = &Event{Type: "Normal", Reason: "SuccessfulDelete", Message: "Deleted pod: " + object.Name(p)}
			}
			res.Actions = append(res.Actions, a)
		}
		res.Expectations = exp
		return firstErr
	}
	_ = name
	return nil
}

// NamespaceTerminatingError is implemented by a Refuse error that carries the
// NamespaceTerminating cause: the controller neither records an Event nor counts it.
type NamespaceTerminatingError interface{ NamespaceTerminating() bool }

func namespaceTerminating(err error) bool {
	n, ok := err.(NamespaceTerminatingError)
	return ok && n.NamespaceTerminating()
}

// PodFromTemplate is the Pod the controller creates for a ReplicaSet (GetPodFromTemplate):
// the template's labels, annotations and finalizers, generateName "<name>-" (the name
// alone when "<name>-" is no valid prefix), the ReplicaSet as controller, the template's
// spec, in the ReplicaSet's namespace.
func PodFromTemplate(rs Object) (Object, error) { return podFromTemplate(rs) }

func podFromTemplate(rs Object) (Object, error) {
	tmpl := object.Map(rs, "spec", "template")
	meta := object.Map(tmpl, "metadata")
	lbls := object.StringMap(object.Map(meta, "labels"))
	if len(lbls) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	prefix := object.Name(rs) + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = object.Name(rs)
	}
	md := Object{"generateName": prefix, "namespace": object.Namespace(rs),
		"ownerReferences": []any{object.ControllerRef(rs, "apps/v1", "ReplicaSet")}}
	lm := Object{}
	for k, v := range lbls {
		lm[k] = v
	}
	md["labels"] = lm
	if ann := object.StringMap(object.Map(meta, "annotations")); len(ann) > 0 {
		am := Object{}
		for k, v := range ann {
			am[k] = v
		}
		md["annotations"] = am
	}
	if f := object.List(meta, "finalizers"); len(f) > 0 {
		md["finalizers"] = object.Copy(Object{"f": f})["f"]
	}
	pod := Object{"apiVersion": "v1", "kind": "Pod", "metadata": md}
	if spec := object.Map(tmpl, "spec"); spec != nil {
		pod["spec"] = object.Copy(spec)
	} else {
		pod["spec"] = Object{}
	}
	return pod, nil
}

// relatedPods is getIndirectlyRelatedPods: the Pods selected by every ReplicaSet with
// the same controller as rs, each once.
func relatedPods(rs Object, in Input) []Object {
	ref, ok := object.ControllerOf(rs)
	if !ok {
		return nil
	}
	var out []Object
	seen := map[string]bool{}
	for _, other := range in.ReplicaSets {
		oref, ok := object.ControllerOf(other)
		if !ok || oref.UID != ref.UID || object.Namespace(other) != object.Namespace(rs) {
			continue
		}
		sel, err := labels.FromLabelSelector(object.Map(other, "spec")["selector"])
		if err != nil {
			continue
		}
		for _, p := range in.Pods {
			if object.Namespace(p) != object.Namespace(rs) || !sel.MatchesObject(p) || seen[object.UID(p)] {
				continue
			}
			seen[object.UID(p)] = true
			out = append(out, p)
		}
	}
	return out
}

// podsToDelete is getPodsToDelete: the first diff Pods in the controller's ranking.
func podsToDelete(pods, related []Object, diff int, now time.Time) []Object {
	out := append([]Object(nil), pods...)
	if diff < len(out) {
		onNode := map[string]int{}
		for _, p := range related {
			if object.PodActive(p) {
				onNode[object.String(p, "spec", "nodeName")]++
			}
		}
		ranks := make([]int, len(out))
		for i, p := range out {
			ranks[i] = onNode[object.String(p, "spec", "nodeName")]
		}
		r := Ranked{Pods: out, Ranks: ranks, Now: now}
		r.keys = make([]rankKey, len(out))
		for i, p := range out {
			r.keys[i] = keyOf(p)
		}
		sort.Sort(r)
	}
	return out[:diff]
}

// rankKey is what Less reads of a Pod, read once.
type rankKey struct {
	node               string
	phase              int
	ready              bool
	cost               int64
	readyTime, created time.Time
	restarts, sidecar  int64
	uid                string
}

func keyOf(p Object) rankKey {
	k := rankKey{node: object.String(p, "spec", "nodeName"), phase: phaseOrdinal[object.Phase(p)], ready: object.PodReady(p),
		cost: deletionCost(p), readyTime: object.PodReadyTime(p),
		created: object.Time(object.Map(p, "metadata")["creationTimestamp"]), uid: object.UID(p)}
	k.restarts, k.sidecar = restarts(p)
	return k
}

// Ranked sorts Pods in the order the controller deletes them (ActivePodsWithRanks):
// unassigned before assigned, Pending before Unknown before Running, not ready before
// ready, lower pod-deletion-cost first, more co-located siblings first, ready for less
// time first (in powers of two of the age against Now), more container restarts
// first, newer first (again in powers of two), then uid.
type Ranked struct {
	Pods  []Object
	Ranks []int
	// Now is the reference time of the logarithmic comparisons; zero compares times
	// exactly.
	Now time.Time
	// keys, when set, are the Pods' fields Less reads, parsed once.
	keys []rankKey
}

func (s Ranked) Len() int { return len(s.Pods) }
func (s Ranked) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Ranks[i], s.Ranks[j] = s.Ranks[j], s.Ranks[i]
	if s.keys != nil {
		s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
	}
}

var phaseOrdinal = map[string]int{"Pending": 0, "Unknown": 1, "Running": 2}

func (s Ranked) Less(i, j int) bool {
	var a, b rankKey
	if s.keys != nil {
		a, b = s.keys[i], s.keys[j]
	} else {
		a, b = keyOf(s.Pods[i]), keyOf(s.Pods[j])
	}
	if a.node != b.node && (a.node == "" || b.node == "") {
		return a.node == ""
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	if a.ready != b.ready {
		return !a.ready
	}
	if a.cost != b.cost {
		return a.cost < b.cost
	}
	if s.Ranks[i] != s.Ranks[j] {
		return s.Ranks[i] > s.Ranks[j]
	}
	if a.ready && b.ready && !a.readyTime.Equal(b.readyTime) {
		if s.Now.IsZero() || a.readyTime.IsZero() || b.readyTime.IsZero() {
			return afterOrZero(a.readyTime, b.readyTime)
		}
		if d := logRankDiff(a.readyTime, b.readyTime, s.Now); d != 0 {
			return d < 0
		}
		return a.uid < b.uid
	}
	if a.restarts != b.restarts {
		return a.restarts > b.restarts
	}
	if a.sidecar != b.sidecar {
		return a.sidecar > b.sidecar
	}
	if !a.created.Equal(b.created) {
		if s.Now.IsZero() || a.created.IsZero() || b.created.IsZero() {
			return afterOrZero(a.created, b.created)
		}
		if d := logRankDiff(a.created, b.created, s.Now); d != 0 {
			return d < 0
		}
		return a.uid < b.uid
	}
	return false
}

func afterOrZero(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero()
	}
	return a.After(b)
}

func logRankDiff(a, b, now time.Time) int64 {
	r := func(t time.Time) int64 {
		if d := now.Sub(t); d > 0 {
			return int64(math.Log2(float64(d)))
		}
		return -1
	}
	return r(a) - r(b)
}

func deletionCost(pod Object) int64 {
	v, ok := object.Map(pod, "metadata", "annotations")[DeletionCostAnnotation].(string)
	if !ok || v == "" {
		return 0
	}
	if !(v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9')) {
		return 0
	}
	i, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return i
}

func restarts(pod Object) (regular, sidecar int64) {
	for _, x := range object.List(pod, "status", "containerStatuses") {
		c, _ := x.(map[string]any)
		n, _ := object.Int(c, "restartCount")
		regular = max(regular, n)
	}
	sidecars := map[string]bool{}
	for _, x := range object.List(pod, "spec", "initContainers") {
		c, _ := x.(map[string]any)
		if object.String(c, "restartPolicy") == "Always" {
			sidecars[object.String(c, "name")] = true
		}
	}
	for _, x := range object.List(pod, "status", "initContainerStatuses") {
		c, _ := x.(map[string]any)
		if sidecars[object.String(c, "name")] {
			n, _ := object.Int(c, "restartCount")
			sidecar = max(sidecar, n)
		}
	}
	return
}

// status is calculateStatus.
func status(rs Object, active []Object, terminating int64, manageErr error, now time.Time) Object {
	st := object.Copy(object.Map(rs, "status"))
	if st == nil {
		st = Object{}
	}
	tmplLabels := object.StringMap(object.Map(rs, "spec", "template", "metadata", "labels"))
	tmplSel := labels.FromSet(tmplLabels)
	minReady, _ := object.Int(rs, "spec", "minReadySeconds")
	var full, ready, avail int64
	for _, p := range active {
		if tmplSel.MatchesObject(p) {
			full++
		}
		if object.PodReady(p) {
			ready++
			if object.PodAvailable(p, minReady, now) {
				avail++
			}
		}
	}
	failure := object.Condition(rs, "ReplicaFailure")
	if manageErr != nil && failure == nil {
		want, _ := object.Int(rs, "spec", "replicas")
		reason := ""
		if d := len(active) - int(want); d < 0 {
			reason = "FailedCreate"
		} else if d > 0 {
			reason = "FailedDelete"
		}
		conds := withoutCondition(object.List(st, "conditions"), "ReplicaFailure")
		st["conditions"] = append(conds, Object{"type": "ReplicaFailure", "status": "True",
			"lastTransitionTime": object.FormatTime(now), "reason": reason, "message": manageErr.Error()})
	} else if manageErr == nil && failure != nil {
		if conds := withoutCondition(object.List(st, "conditions"), "ReplicaFailure"); len(conds) > 0 {
			st["conditions"] = conds
		} else {
			delete(st, "conditions")
		}
	}
	st["replicas"] = int64(len(active))
	st["fullyLabeledReplicas"] = full
	st["readyReplicas"] = ready
	st["availableReplicas"] = avail
	st["terminatingReplicas"] = terminating
	return st
}

func withoutCondition(conds []any, t string) []any {
	var out []any
	for _, c := range conds {
		if m, _ := c.(map[string]any); object.String(m, "type") != t {
			out = append(out, c)
		}
	}
	return out
}

// statusChanged is updateReplicaSetStatus's steady-state test.
func statusChanged(rs, st Object) bool {
	old := object.Map(rs, "status")
	for _, k := range []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"} {
		a, _ := object.Int(old, k)
		b, _ := object.Int(st, k)
		if a != b {
			return true
		}
	}
	ot, hasOld := object.Int(old, "terminatingReplicas")
	nt, _ := object.Int(st, "terminatingReplicas")
	if !hasOld || ot != nt {
		return true
	}
	og, _ := object.Int(old, "observedGeneration")
	if object.Generation(rs) != og {
		return true
	}
	return !conditionsEqual(object.List(old, "conditions"), object.List(st, "conditions"))
}

func conditionsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ma, _ := a[i].(map[string]any)
		mb, _ := b[i].(map[string]any)
		for _, k := range []string{"type", "status", "reason", "message", "lastTransitionTime"} {
			if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
				return false
			}
		}
	}
	return true
}
