package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/deployment"
	"github.com/writepath/writepath/controllers/replicaset"
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
// the controllers' requests do. Called with c.mu held.
func (c *Cluster) settleWorkloads(ctx context.Context, now time.Time) (bool, error) {
	if !c.has("apps", "deployments") && !c.has("apps", "replicasets") {
		return false, nil
	}
	any := false
	for round := 0; round < maxWorkloadRounds; round++ {
		wrote := false
		deployments, err := c.listAll(ctx, "apps", "deployments")
		if err != nil {
			return false, err
		}
		for _, d := range deployments {
			ns := metaString(d, "namespace")
			rss, pods, err := c.namespaceWorkloads(ctx, ns)
			if err != nil {
				return false, err
			}
			res, err := deployment.Sync(deployment.Input{Deployment: d, ReplicaSets: rss, Pods: pods}, deployment.Options{Now: now})
			if err != nil {
				continue // a Deployment the controller cannot read: it logs and moves on
			}
			c.syncWritten = map[string]string{}
			for _, a := range res.Actions {
				ok, err := c.applyDeploymentAction(ctx, now, a)
				if err != nil {
					return false, err
				}
				if !ok {
					break // refused: the controller requeues and syncs again from fresh state
				}
				wrote = true
			}
		}
		replicaSets, err := c.listAll(ctx, "apps", "replicasets")
		if err != nil {
			return false, err
		}
		for _, rs := range replicaSets {
			ns := metaString(rs, "namespace")
			rss, pods, err := c.namespaceWorkloads(ctx, ns)
			if err != nil {
				return false, err
			}
			uid := metaString(rs, "uid")
			res, err := replicaset.Sync(replicaset.Input{ReplicaSet: rs, Pods: pods, ReplicaSets: rss, Expectations: c.expectations[uid]},
				replicaset.Options{Now: now})
			if err != nil {
				continue
			}
			c.syncWritten = map[string]string{}
			for _, a := range res.Actions {
				ok, err := c.applyReplicaSetAction(ctx, now, a)
				if err != nil {
					return false, err
				}
				if !ok {
					break
				}
				wrote = true
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
		}
		kicked, err := c.kubelet(ctx, now)
		if err != nil {
			return false, err
		}
		if kicked {
			wrote = true
		}
		if !wrote {
			return any, nil
		}
		any = true
	}
	return any, fmt.Errorf("the Deployment and ReplicaSet controllers did not settle in %d rounds", maxWorkloadRounds)
}

func (c *Cluster) has(group, resource string) bool {
	_, ok := c.resources[resourceKey{group, resource}]
	return ok
}

// values lists the objects under a prefix, at the current revision, in key order.
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

func (c *Cluster) listAll(ctx context.Context, group, resource string) ([]map[string]any, error) {
	return c.values(ctx, Prefix{Group: group, Resource: resource})
}

func (c *Cluster) namespaceWorkloads(ctx context.Context, ns string) (rss, pods []map[string]any, err error) {
	if rss, err = c.values(ctx, Prefix{Group: "apps", Resource: "replicasets", Namespace: ns}); err != nil {
		return nil, nil, err
	}
	if pods, err = c.values(ctx, Prefix{Resource: "pods", Namespace: ns}); err != nil {
		return nil, nil, err
	}
	return rss, pods, nil
}

// controllerRequest sends one controller write through the request path and stores it, without
// running the garbage collector (settleLocked runs it once the workloads settle). ok is false
// when the API refused it.
func (c *Cluster) controllerRequest(ctx context.Context, now time.Time, method, path, contentType string, body any) (bool, error) {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return false, err
		}
	}
	req := registry.Request{Method: method, Path: path, ContentType: contentType, Body: b, User: controllerUser, UserAgent: controllerAgent, Now: now}
	resp, writes, err := registry.Handle(ctx, &world{ctx: ctx, c: c}, req)
	if err != nil {
		return false, err
	}
	for _, wr := range writes {
		if err := c.commit(ctx, wr); err != nil {
			return false, err
		}
	}
	if resp.Code < 300 && method != "DELETE" {
		if rv := metaString(resp.Object, "resourceVersion"); rv != "" {
			c.syncWritten[strings.TrimSuffix(path, "/status")] = rv
		}
	}
	return resp.Code < 300, nil
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

func (c *Cluster) applyDeploymentAction(ctx context.Context, now time.Time, a deployment.Action) (bool, error) {
	const smp = "application/strategic-merge-patch+json"
	switch a.Type {
	case deployment.ActionAdoptReplicaSet, deployment.ActionReleaseReplicaSet:
		return c.controllerRequest(ctx, now, "PATCH", rsPath(a.Namespace, a.Name), smp, a.Patch)
	case deployment.ActionCreateReplicaSet:
		return c.controllerRequest(ctx, now, "POST", rsPath(a.Namespace, ""), "application/json", a.Object)
	case deployment.ActionUpdateReplicaSet:
		return c.controllerRequest(ctx, now, "PUT", rsPath(a.Namespace, a.Name), "application/json", c.chained(rsPath(a.Namespace, a.Name), a.Object))
	case deployment.ActionDeleteReplicaSet:
		return c.controllerRequest(ctx, now, "DELETE", rsPath(a.Namespace, a.Name), "", nil)
	case deployment.ActionUpdateStatus, deployment.ActionUpdate:
		path := "/apis/apps/v1/namespaces/" + a.Namespace + "/deployments/" + a.Name
		obj := c.chained(path, a.Object)
		if a.Type == deployment.ActionUpdateStatus {
			path += "/status"
		}
		return c.controllerRequest(ctx, now, "PUT", path, "application/json", obj)
	}
	return false, nil // Events are not stored (see doc.go)
}

func podPath(ns, name string) string {
	p := "/api/v1/namespaces/" + ns + "/pods"
	if name != "" {
		p += "/" + name
	}
	return p
}

func (c *Cluster) applyReplicaSetAction(ctx context.Context, now time.Time, a replicaset.Action) (bool, error) {
	switch a.Type {
	case replicaset.ActionAdopt, replicaset.ActionRelease:
		return c.controllerRequest(ctx, now, "PATCH", podPath(a.Namespace, a.Name), "application/strategic-merge-patch+json", a.Patch)
	case replicaset.ActionCreate:
		return c.controllerRequest(ctx, now, "POST", podPath(a.Namespace, ""), "application/json", a.Object)
	case replicaset.ActionDelete:
		return c.controllerRequest(ctx, now, "DELETE", podPath(a.Namespace, a.Name), "", nil)
	case replicaset.ActionUpdateStatus:
		return c.controllerRequest(ctx, now, "PUT", rsPath(a.Namespace, a.Name)+"/status", "application/json", c.chained(rsPath(a.Namespace, a.Name), a.Object))
	}
	return false, nil
}

// kubelet is the stand-in kubelet: it writes Running and Ready to the status of the Pods its
// mode says are running now. A Pod being deleted is removed at once (grace period elapsed).
func (c *Cluster) kubelet(ctx context.Context, now time.Time) (bool, error) {
	if c.kubeletMode == PodsPending || !c.has("", "pods") {
		return false, nil
	}
	pods, err := c.listAll(ctx, "", "pods")
	if err != nil {
		return false, err
	}
	sort.SliceStable(pods, func(i, j int) bool { return metaString(pods[i], "name") < metaString(pods[j], "name") })
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

// markReady writes the status a kubelet writes for a started Pod: Running, Ready, its
// containers ready and started.
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
	upd := make(map[string]any, len(p))
	for k, v := range p {
		upd[k] = v
	}
	st := map[string]any{"phase": "Running", "startTime": ts, "hostIP": "127.0.0.1", "podIP": "10.0.0.1",
		"conditions":        []any{cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")},
		"containerStatuses": statuses}
	if old, _ := p["status"].(map[string]any); old["qosClass"] != nil {
		st["qosClass"] = old["qosClass"] // set on create, immutable
	}
	upd["status"] = st
	return c.controllerRequest(ctx, now, "PUT", podPath(metaString(p, "namespace"), metaString(p, "name"))+"/status", "application/json", upd)
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
	return c.settleLocked(ctx, now)
}
