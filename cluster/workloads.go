package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/deployment"
	"github.com/writepath/writepath/controllers/replicaset"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

// Kubelet says what the stand-in kubelet does with Pods: a cluster has no scheduler and no
// kubelet, so something must decide when a Pod runs for a Deployment to roll out.
type Kubelet int

const (
	// PodsReady marks every Pod Running and Ready as soon as the controllers created it.
	PodsReady Kubelet = iota
	// PodsPending leaves Pods Pending (a rollout then waits; SetPodReady marks one).
	PodsPending
	// PodsReadyAfterStep marks a Pod Ready once the clock has moved past its creation
	// (FakeClock.Step, then Settle).
	PodsReadyAfterStep
)

// controllerUser is the user the controllers write as: kube-controller-manager's own
// credentials, whose User-Agent makes "kube-controller-manager" the field manager.
var controllerUser = registry.User{Name: "system:kube-controller-manager", Groups: []string{"system:authenticated"}}

const controllerAgent = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/writepath"

// maxWorkloadRounds bounds one settle of the Deployment and ReplicaSet controllers.
const maxWorkloadRounds = 1000

// settleWorkloads runs the Deployment controller, the ReplicaSet controller and the stand-in
// kubelet until a round writes nothing, each write going through the request path (registry) as
// the controllers' requests do. A round syncs the queued Deployments, then the queued
// ReplicaSets, each in key order, then starts the Pods the kubelet would start; every key is
// queued when the index is built, when the clock has moved since the last settle, and when
// resync is set (Settle). Called with c.mu held.
//
// The result is that of syncing every Deployment and ReplicaSet in every round: a sync is a
// function of the objects it reads, the clock and the ReplicaSet's expectations, so one whose
// input no write has touched since it last ran writes what it wrote then: nothing, unless the
// API refused it (those are queued again for the next round, or the next settle).
func (c *Cluster) settleWorkloads(ctx context.Context, now time.Time, resync bool) (bool, error) {
	if c.noWorkloads || !c.has("apps", "deployments") && !c.has("apps", "replicasets") {
		return false, nil
	}
	rev, err := c.store.Revision(ctx)
	if err != nil {
		return false, err
	}
	ix := c.index
	if ix.rev != rev {
		if err := c.buildIndex(ctx, rev); err != nil {
			return false, err
		}
	} else if resync || !now.Equal(c.settledAt) {
		ix.queueAll()
	}
	c.settledAt = now
	c.pruneExpectations()
	any := false
	for round := 0; round < maxWorkloadRounds; round++ {
		if c.syncEverything {
			ix.queueAll()
		}
		wrote := false
		var refused []Key
		err := ix.drain(deploymentsPrefix, func(k Key) error {
			d, err := c.sharedGet(ctx, k)
			if err != nil || d == nil {
				return err
			}
			rss, pods, err := c.deploymentInputs(ctx, k, d)
			if err != nil {
				return err
			}
			res, err := deployment.Sync(deployment.Input{Deployment: d, ReplicaSets: rss, Pods: pods}, deployment.Options{Now: now})
			if err != nil {
				refused = append(refused, k) // a Deployment the controller cannot read: it logs and requeues
				return nil
			}
			c.syncWritten = map[string]string{}
			var evs []controllerEvent
			writes := 0 // the sync's writes so far (Options.Refuse is asked once for each)
			afterRefusal := false
			for i := 0; i < len(res.Actions); i++ {
				a := res.Actions[i]
				if a.Type == deployment.ActionEvent {
					evs = append(evs, deploymentEvent(d, a.Event))
					continue
				}
				if a.Err != "" {
					// A write the API refused, in the sync that went on from the refusal (below):
					// not sent again; its Event reports the refusal.
					writes++
					if a.Event != nil {
						evs = append(evs, deploymentEvent(d, a.Event))
					}
					continue
				}
				before, err := c.store.Revision(ctx)
				if err != nil {
					return err
				}
				resp, err := c.applyDeploymentAction(ctx, now, a)
				if err != nil {
					return err
				}
				writes++
				if resp.Code >= 300 {
					refused = append(refused, k) // the controller requeues and syncs again from fresh state
					if a.Type != deployment.ActionCreateReplicaSet {
						break
					}
					// getNewReplicaSet goes on from a refused create (the Progressing condition
					// ReplicaSetCreateError, the FailedRSCreate Event, or a hash collision's
					// collisionCount): the same sync again, told the API's answer to that write,
					// gives what follows it. The writes before it are the same, accepted again.
					again, err := deployment.Sync(deployment.Input{Deployment: d, ReplicaSets: rss, Pods: pods},
						deployment.Options{Now: now, Refuse: refuseWrite(writes-1, resp)})
					if err != nil || len(again.Actions) <= i || again.Actions[i].Type != a.Type || again.Actions[i].Name != a.Name {
						break // not the same sync: leave it to the next one
					}
					res.Actions, afterRefusal = again.Actions, true
					i-- // the refused create again, now with its Err (and Event)
					writes--
					continue
				}
				if afterRefusal {
					// What follows a refusal is written whatever it changes (the status update
					// the controller sends each time): only a stored change is work done, or a
					// create the API keeps refusing would sync forever.
					after, err := c.store.Revision(ctx)
					if err != nil {
						return err
					}
					wrote = wrote || after != before
				} else {
					wrote = true
				}
				if a.Event != nil {
					evs = append(evs, deploymentEvent(d, a.Event)) // recorded once the write succeeded
				}
			}
			return c.recordEvents(ctx, now, c.deploymentEvents, evs)
		})
		if err != nil {
			return false, err
		}
		err = ix.drain(replicaSetsPrefix, func(k Key) error {
			rs, err := c.sharedGet(ctx, k)
			if err != nil || rs == nil {
				return err
			}
			uid := metaString(rs, "uid")
			in, err := c.replicaSetInput(ctx, k, rs, c.syncEverything)
			if err != nil {
				return err
			}
			in.Expectations = c.expectations[uid]
			res, err := replicaset.Sync(in, replicaset.Options{Now: now})
			if err != nil {
				refused = append(refused, k)
				return nil
			}
			if deletes(res) && controllerUID(rs) != "" && !c.syncEverything {
				// Which Pods go first depends on the Pods every sibling ReplicaSet selects,
				// whoever controls them: the sync runs again over the namespace's Pods.
				if in, err = c.replicaSetInput(ctx, k, rs, true); err != nil {
					return err
				}
				in.Expectations = c.expectations[uid]
				if res, err = replicaset.Sync(in, replicaset.Options{Now: now}); err != nil {
					refused = append(refused, k)
					return nil
				}
			}
			c.syncWritten = map[string]string{}
			var evs []controllerEvent
			for _, a := range res.Actions {
				resp, err := c.applyReplicaSetAction(ctx, now, a)
				if err != nil {
					return err
				}
				if ev, ok := replicaSetEvent(rs, a, resp); ok {
					evs = append(evs, ev)
				}
				if resp.Code >= 300 {
					refused = append(refused, k)
					break
				}
				wrote = true
			}
			if err := c.recordEvents(ctx, now, c.replicaSetEvents, evs); err != nil {
				return err
			}
			// The store is the informer: every create and delete is observed at once, and the
			// controller lowers its expectations for the ones it skipped or was refused.
			exp := res.Expectations
			for _, a := range res.Actions {
				switch a.Type {
				case replicaset.ActionCreate:
					exp = exp.CreationObserved()
				case replicaset.ActionDelete:
					exp = exp.DeletionObserved(a.Namespace + "/" + a.Name)
				}
			}
			c.expectations[uid] = exp
			return nil
		})
		if err != nil {
			return false, err
		}
		kicked, err := c.kubelet(ctx, now)
		if err != nil {
			return false, err
		}
		if kicked {
			wrote = true
		}
		for _, k := range refused {
			ix.enqueue(k) // the next round when this one wrote, else the next settle
		}
		if !wrote {
			return any, nil
		}
		any = true
	}
	return any, fmt.Errorf("the Deployment and ReplicaSet controllers did not settle in %d rounds", maxWorkloadRounds)
}

// pruneExpectations forgets the expectations of ReplicaSets no longer stored, as the
// controller's delete handler does (DeleteExpectations): a long-lived cluster keeps entries
// only for the ReplicaSets it holds. The index must be current.
func (c *Cluster) pruneExpectations() {
	for uid := range c.expectations {
		if k, ok := c.index.byUID[uid]; !ok || resourcePrefix(k) != replicaSetsPrefix {
			delete(c.expectations, uid)
		}
	}
}

func deletes(res replicaset.Result) bool {
	for _, a := range res.Actions {
		if a.Type == replicaset.ActionDelete {
			return true
		}
	}
	return false
}

func (c *Cluster) has(group, resource string) bool {
	_, ok := c.resources[resourceKey{group, resource}]
	return ok
}

// values lists the objects under a prefix, at the current revision, in key order: copies, for
// callers that may keep or change them.
func (c *Cluster) values(ctx context.Context, p Prefix) ([]map[string]any, error) {
	l, err := c.store.List(ctx, ListRequest{Prefix: p})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(l.Items))
	for i, o := range l.Items {
		out[i] = o.Value
	}
	return out, nil
}

// sharedValues lists the objects under a prefix in key order without copying them where the
// store allows it: the caller reads them and never modifies them.
func (c *Cluster) sharedValues(ctx context.Context, p Prefix) ([]Object, error) {
	if s, ok := c.store.(sharedReader); ok {
		return s.listShared(p), nil
	}
	l, err := c.store.List(ctx, ListRequest{Prefix: p})
	return l.Items, err
}

// sharedNamespace is sharedValues' objects.
func (c *Cluster) sharedNamespace(ctx context.Context, p Prefix) ([]map[string]any, error) {
	objs, err := c.sharedValues(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = o.Value
	}
	return out, nil
}

// sharedGet reads one object as sharedValues does (nil when missing).
func (c *Cluster) sharedGet(ctx context.Context, k Key) (map[string]any, error) {
	objs, err := c.sharedGetAll(ctx, []Key{k})
	if err != nil {
		return nil, err
	}
	return objs[0], nil
}

// sharedGetAll reads objects as sharedValues does, leaving out missing ones.
func (c *Cluster) sharedGetAll(ctx context.Context, keys []Key) ([]map[string]any, error) {
	var objs []map[string]any
	if s, ok := c.store.(sharedReader); ok {
		objs = s.getShared(keys)
	} else {
		objs = make([]map[string]any, len(keys))
		for i, k := range keys {
			o, err := c.store.Get(ctx, k)
			var nf *NotFoundError
			if errors.As(err, &nf) {
				continue
			}
			if err != nil {
				return nil, err
			}
			objs[i] = o.Value
		}
	}
	if len(keys) == 1 {
		return objs, nil
	}
	out := objs[:0]
	for _, o := range objs {
		if o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// deploymentInputs reads what a Deployment's sync can act on: the ReplicaSets of its namespace
// that it controls or that have no controller (it may adopt them), and, unless it rolls out by
// RollingUpdate (which reads no Pod), the Pods those ReplicaSets control; each in key order.
// The others of the namespace the sync would skip.
func (c *Cluster) deploymentInputs(ctx context.Context, k Key, d map[string]any) (rss, pods []map[string]any, err error) {
	ix := c.index
	if c.syncEverything {
		if rss, err = c.sharedNamespace(ctx, Prefix{Group: "apps", Resource: "replicasets", Namespace: k.Namespace}); err != nil {
			return nil, nil, err
		}
		pods, err = c.sharedNamespace(ctx, Prefix{Resource: "pods", Namespace: k.Namespace})
		return rss, pods, err
	}
	var rsKeys keyList
	for rk := range ix.controlled[metaString(d, "uid")] {
		if nsPrefix(rk) == nsPrefix(Key{Group: "apps", Resource: "replicasets", Namespace: k.Namespace}) {
			rsKeys = append(rsKeys, rk)
		}
	}
	for rk := range ix.orphans[Prefix{Group: "apps", Resource: "replicasets", Namespace: k.Namespace}] {
		rsKeys = append(rsKeys, rk)
	}
	if rss, err = c.sharedGetAll(ctx, rsKeys.sorted()); err != nil {
		return nil, nil, err
	}
	spec, _ := d["spec"].(map[string]any)
	strategy, _ := spec["strategy"].(map[string]any)
	if strategy["type"] == "RollingUpdate" {
		return rss, nil, nil
	}
	var podKeys keyList
	for _, rs := range rss {
		for pk := range ix.controlled[metaString(rs, "uid")] {
			if nsPrefix(pk) == nsPrefix(Key{Resource: "pods", Namespace: k.Namespace}) {
				podKeys = append(podKeys, pk)
			}
		}
	}
	pods, err = c.sharedGetAll(ctx, podKeys.sorted())
	return rss, pods, err
}

// replicaSetInput reads what a ReplicaSet's sync can act on: the Pods of its namespace it
// controls or that have no controller (all of the namespace's when all is set), and the
// ReplicaSets with the same controller (its siblings, which rank Pods for deletion); each in key
// order.
func (c *Cluster) replicaSetInput(ctx context.Context, k Key, rs map[string]any, all bool) (replicaset.Input, error) {
	ix := c.index
	in := replicaset.Input{ReplicaSet: rs}
	podsNS := Prefix{Resource: "pods", Namespace: k.Namespace}
	if c.syncEverything {
		var err error
		if in.Pods, err = c.sharedNamespace(ctx, podsNS); err != nil {
			return in, err
		}
		in.ReplicaSets, err = c.sharedNamespace(ctx, nsPrefix(k))
		return in, err
	}
	if all {
		var err error
		if in.Pods, err = c.sharedNamespace(ctx, podsNS); err != nil {
			return in, err
		}
	} else {
		var podKeys keyList
		for pk := range ix.controlled[metaString(rs, "uid")] {
			if nsPrefix(pk) == podsNS {
				podKeys = append(podKeys, pk)
			}
		}
		for pk := range ix.orphans[podsNS] {
			podKeys = append(podKeys, pk)
		}
		pods, err := c.sharedGetAll(ctx, podKeys.sorted())
		if err != nil {
			return in, err
		}
		in.Pods = pods
	}
	if ctrl := controllerUID(rs); ctrl != "" {
		rsNS := nsPrefix(k)
		var sibKeys keyList
		for sk := range ix.controlled[ctrl] {
			if nsPrefix(sk) == rsNS {
				sibKeys = append(sibKeys, sk)
			}
		}
		sibs, err := c.sharedGetAll(ctx, sibKeys.sorted())
		if err != nil {
			return in, err
		}
		in.ReplicaSets = sibs
	}
	return in, nil
}

// controllerRequest sends one controller write through the request path and stores it, without
// running the garbage collector (settleLocked runs it once the workloads settle). ok is false
// when the API refused it.
func (c *Cluster) controllerRequest(ctx context.Context, now time.Time, method, path, contentType string, body any) (bool, error) {
	return c.requestAs(ctx, now, controllerUser, controllerAgent, method, path, contentType, body)
}

// requestAs is controllerRequest as another user (the kubelet's).
func (c *Cluster) requestAs(ctx context.Context, now time.Time, user registry.User, agent, method, path, contentType string, body any) (bool, error) {
	resp, err := c.requestResponse(ctx, now, user, agent, method, path, contentType, body)
	return err == nil && resp.Code < 300, err
}

// requestResponse is requestAs with the API's answer (its Object; the body is not encoded).
func (c *Cluster) requestResponse(ctx context.Context, now time.Time, user registry.User, agent, method, path, contentType string, body any) (registry.Response, error) {
	var b []byte
	if body != nil {
		var err error
		// codec writes the JSON encoding/json writes for the object model (fieldsV1 keys in
		// the apiserver's order), faster; a value of another Go type goes through encoding/json.
		if b, err = codec.EncodeJSON(body); err != nil {
			if b, err = json.Marshal(body); err != nil {
				return registry.Response{}, err
			}
		}
	}
	req := registry.Request{Method: method, Path: path, ContentType: contentType, Body: b, User: user, UserAgent: agent, Now: now, ObjectOnly: true}
	resp, _, stored, err := c.handle(ctx, req, nil) // c.mu is held: the store's own reads
	for _, st := range stored {
		c.observe(st.Key, st.Value, st.rev)
		c.resources[resourceKey{st.Key.Group, st.Key.Resource}] = struct{}{}
	}
	if err != nil {
		return registry.Response{}, err
	}
	if resp.Code < 300 && method != "DELETE" && c.syncWritten != nil {
		if rv := metaString(resp.Object, "resourceVersion"); rv != "" {
			c.syncWritten[strings.TrimSuffix(path, "/status")] = rv
		}
	}
	return resp, nil
}

// chained is a controller's object for a PUT: a sync that already wrote the object goes on
// from what the API answered it, as the real controllers use the returned object, so the
// second write of one sync carries the first's resourceVersion.
func (c *Cluster) chained(path string, obj map[string]any) map[string]any {
	rv, ok := c.syncWritten[strings.TrimSuffix(path, "/status")]
	if !ok {
		return obj
	}
	return withResourceVersion(obj, rv)
}

func rsPath(ns, name string) string {
	p := "/apis/apps/v1/namespaces/" + ns + "/replicasets"
	if name != "" {
		p += "/" + name
	}
	return p
}

// applyDeploymentAction sends a's request and returns the API's answer.
func (c *Cluster) applyDeploymentAction(ctx context.Context, now time.Time, a deployment.Action) (registry.Response, error) {
	const smp = "application/strategic-merge-patch+json"
	req := func(method, path, contentType string, body any) (registry.Response, error) {
		return c.requestResponse(ctx, now, controllerUser, controllerAgent, method, path, contentType, body)
	}
	switch a.Type {
	case deployment.ActionAdoptReplicaSet, deployment.ActionReleaseReplicaSet:
		return req("PATCH", rsPath(a.Namespace, a.Name), smp, a.Patch)
	case deployment.ActionCreateReplicaSet:
		return req("POST", rsPath(a.Namespace, ""), "application/json", a.Object)
	case deployment.ActionUpdateReplicaSet:
		return req("PUT", rsPath(a.Namespace, a.Name), "application/json", c.chained(rsPath(a.Namespace, a.Name), a.Object))
	case deployment.ActionDeleteReplicaSet:
		return req("DELETE", rsPath(a.Namespace, a.Name), "", nil)
	case deployment.ActionUpdateStatus, deployment.ActionUpdate:
		path := "/apis/apps/v1/namespaces/" + a.Namespace + "/deployments/" + a.Name
		obj := c.chained(path, a.Object)
		if a.Type == deployment.ActionUpdateStatus {
			path += "/status"
		}
		return req("PUT", path, "application/json", obj)
	}
	return registry.Response{}, fmt.Errorf("the Deployment controller's action %q has no request", a.Type)
}

// refuseWrite is a deployment.Options.Refuse that accepts every write but the n-th (from 0),
// which it refuses with the API's answer st (a metav1.Status).
func refuseWrite(n int, resp registry.Response) func(deployment.Action) error {
	i := 0
	return func(deployment.Action) error {
		i++
		if i-1 != n {
			return nil
		}
		return apiRefusal{resp.Object, int32(resp.Code)}
	}
}

// apiRefusal is a refusal as client-go returns it (errors.StatusError): its text is the
// Status's message; it tells its code and the NamespaceTerminating cause.
type apiRefusal struct {
	status map[string]any
	code   int32
}

func (e apiRefusal) Error() string { msg, _ := e.status["message"].(string); return msg }

func (e apiRefusal) StatusCode() int32 { return e.code }

func (e apiRefusal) NamespaceTerminating() bool { return namespaceTerminatingCause(e.status) }

// deploymentEvent is an Event the Deployment controller records on d, the Deployment its
// sync read.
func deploymentEvent(d map[string]any, e *deployment.Event) controllerEvent {
	return controllerEvent{kind: "Deployment", apiVersion: "apps/v1", object: d, typ: e.Type, reason: e.Reason, message: e.Message}
}

// replicaSetEvent is the Event the ReplicaSet controller's pod control records for a
// create or delete of a Pod of rs, as the API answered it (RealPodControl): the created
// Pod's generated name, or the API's refusal (none for a Pod already gone, or a create the
// namespace's termination refused).
func replicaSetEvent(rs map[string]any, a replicaset.Action, resp registry.Response) (controllerEvent, bool) {
	ev := controllerEvent{kind: "ReplicaSet", apiVersion: "apps/v1", object: rs}
	failed := resp.Code >= 300
	msg, _ := resp.Object["message"].(string)
	switch {
	case a.Type == replicaset.ActionCreate && !failed:
		ev.typ, ev.reason, ev.message = "Normal", "SuccessfulCreate", "Created pod: "+metaString(resp.Object, "name")
	case a.Type == replicaset.ActionCreate && !namespaceTerminatingCause(resp.Object):
		ev.typ, ev.reason, ev.message = "Warning", "FailedCreate", "Error creating: "+msg
	case a.Type == replicaset.ActionDelete && !failed:
		ev.typ, ev.reason, ev.message = "Normal", "SuccessfulDelete", "Deleted pod: "+a.Name
	case a.Type == replicaset.ActionDelete && resp.Code != 404:
		ev.typ, ev.reason, ev.message = "Warning", "FailedDelete", "Error deleting: "+msg
	default:
		return ev, false
	}
	return ev, true
}

// namespaceTerminatingCause is apierrors.HasStatusCause(err, NamespaceTerminatingCause).
func namespaceTerminatingCause(st map[string]any) bool {
	details, _ := st["details"].(map[string]any)
	causes, _ := details["causes"].([]any)
	for _, x := range causes {
		if m, ok := x.(map[string]any); ok && m["reason"] == "NamespaceTerminating" {
			return true
		}
	}
	return false
}

func podPath(ns, name string) string {
	p := "/api/v1/namespaces/" + ns + "/pods"
	if name != "" {
		p += "/" + name
	}
	return p
}

// applyReplicaSetAction sends a's request and returns the API's answer.
func (c *Cluster) applyReplicaSetAction(ctx context.Context, now time.Time, a replicaset.Action) (registry.Response, error) {
	req := func(method, path, contentType string, body any) (registry.Response, error) {
		return c.requestResponse(ctx, now, controllerUser, controllerAgent, method, path, contentType, body)
	}
	switch a.Type {
	case replicaset.ActionAdopt, replicaset.ActionRelease:
		return req("PATCH", podPath(a.Namespace, a.Name), "application/strategic-merge-patch+json", a.Patch)
	case replicaset.ActionCreate:
		return req("POST", podPath(a.Namespace, ""), "application/json", a.Object)
	case replicaset.ActionDelete:
		return req("DELETE", podPath(a.Namespace, a.Name), "", nil)
	case replicaset.ActionUpdateStatus:
		return req("PUT", rsPath(a.Namespace, a.Name)+"/status", "application/json", c.chained(rsPath(a.Namespace, a.Name), a.Object))
	}
	return registry.Response{}, fmt.Errorf("the ReplicaSet controller's action %q has no request", a.Type)
}

// kubelet is the stand-in kubelet: it writes Running and Ready to the status of the Pods its
// mode says are running now, in name order. A Pod being deleted is removed at once (grace period
// elapsed).
func (c *Cluster) kubelet(ctx context.Context, now time.Time) (bool, error) {
	if c.kubeletMode == PodsPending || !c.has("", "pods") {
		return false, nil
	}
	keys := make([]Key, 0, len(c.index.unready))
	for k := range c.index.unready {
		keys = append(keys, k)
	}
	if c.syncEverything {
		all, err := c.sharedValues(ctx, podsPrefix)
		if err != nil {
			return false, err
		}
		keys = keys[:0]
		for _, o := range all {
			keys = append(keys, o.Key)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Name != keys[j].Name {
			return keys[i].Name < keys[j].Name
		}
		return sortKey(keys[i]) < sortKey(keys[j])
	})
	pods, err := c.sharedGetAll(ctx, keys)
	if err != nil {
		return false, err
	}
	wrote := false
	for _, p := range pods {
		if podReady(p) || metaString(p, "deletionTimestamp") != "" {
			continue
		}
		if c.kubeletMode == PodsReadyAfterStep {
			created, err := time.Parse(time.RFC3339, metaString(p, "creationTimestamp"))
			if err != nil || !now.After(created) {
				continue
			}
		}
		ok, err := c.markReady(ctx, now, p)
		if err != nil {
			return false, err
		}
		wrote = wrote || ok
	}
	return wrote, nil
}

func podReady(p map[string]any) bool {
	st, _ := p["status"].(map[string]any)
	if st["phase"] != "Running" {
		return false
	}
	conds, _ := st["conditions"].([]any)
	for _, x := range conds {
		if m, ok := x.(map[string]any); ok && m["type"] == "Ready" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// kubeletUser is the stand-in kubelet's credentials: a node's, whose User-Agent makes "kubelet"
// the field manager of the Pods' status, as on a real node. The cluster has no Nodes; the node
// name is the stand-in's own.
var kubeletUser = registry.User{Name: "system:node:writepath-kubelet", Groups: []string{"system:nodes", "system:authenticated"}}

const kubeletAgent = "kubelet/v1.37.2 (linux/amd64) kubernetes/writepath"

// markReady writes the status a kubelet writes for a started Pod: Running, Ready, its
// containers ready and started. Like the kubelet's status manager it sends a strategic merge
// patch of the status (with the Pod's uid as precondition) to pods/status.
func (c *Cluster) markReady(ctx context.Context, now time.Time, p map[string]any) (bool, error) {
	ts := now.UTC().Format(time.RFC3339)
	spec, _ := p["spec"].(map[string]any)
	var statuses []any
	containers, _ := spec["containers"].([]any)
	for _, x := range containers {
		ctr, _ := x.(map[string]any)
		statuses = append(statuses, map[string]any{"name": ctr["name"], "image": ctr["image"], "imageID": "", "ready": true,
			"restartCount": int64(0), "started": true, "state": map[string]any{"running": map[string]any{"startedAt": ts}}})
	}
	cond := func(t string) map[string]any {
		return map[string]any{"type": t, "status": "True", "lastProbeTime": nil, "lastTransitionTime": ts}
	}
	st := map[string]any{"phase": "Running", "startTime": ts, "hostIP": "127.0.0.1", "podIP": "10.0.0.1",
		"conditions":        []any{cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")},
		"containerStatuses": statuses}
	patch := map[string]any{"metadata": map[string]any{"uid": metaString(p, "uid")}, "status": st}
	return c.requestAs(ctx, now, kubeletUser, kubeletAgent, "PATCH", podPath(metaString(p, "namespace"), metaString(p, "name"))+"/status",
		"application/strategic-merge-patch+json", patch)
}

// SetPodReady marks one Pod Running and Ready, as its kubelet would, then settles the
// controllers. It is the way to run Pods one by one with PodsPending.
func (c *Cluster) SetPodReady(ctx context.Context, namespace, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, err := c.store.Get(ctx, Key{Resource: "pods", Namespace: namespace, Name: name})
	if err != nil {
		return err
	}
	now := c.clock.Now()
	ok, err := c.markReady(ctx, now, o.Value)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the Pod's status update was refused")
	}
	return c.settleLocked(ctx, now, false)
}
