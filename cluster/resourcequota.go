package cluster

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/writepath/writepath/controllers/resourcequota"
	"github.com/writepath/writepath/internal/quantity"
	"github.com/writepath/writepath/schema"
)

// The resource quota controller of kube-controller-manager (pkg/controller/resourcequota):
// each ResourceQuota's status gets hard = spec.hard and used = the namespace's usage of each
// hard resource (controllers/resourcequota.Sync), written by PUT .../resourcequotas/NAME/status
// as kube-controller-manager. It syncs a quota when the real one does: when the quota is
// created or its spec.hard changes (its informer's add and update handlers), when an object a
// quota of its namespace tracks is deleted, or a Pod, Service or PersistentVolumeClaim changes
// as the quota monitor's update filter says (a Pod leaving the quota's charge or its
// Terminating scope or changing its status resources, a Service changing between NodePort,
// LoadBalancer and other types, any claim update), and every quota on Settle (the controller's
// full resync). Creates are charged by the ResourceQuota admission plugin (registry), not
// here: a create the apiserver refuses after admission leaves its charge until one of these
// syncs.

// quotaController is the controller's queue and what its handlers remember of the objects.
type quotaController struct {
	// queue holds the quotas to sync.
	queue map[Key]bool
	// replenish holds the namespaces and resources whose quotas are to be synced
	// (replenishQuota), resolved against the quotas at settle time.
	replenish map[[3]string]bool
	// hard is each quota's spec.hard as last observed (the update handler compares it).
	hard map[Key]string
	// filtered is, for each Pod, Service and claim, what the update filter compares.
	filtered map[Key]string
}

func newQuotaController() *quotaController {
	return &quotaController{queue: map[Key]bool{}, replenish: map[[3]string]bool{}, hard: map[Key]string{}, filtered: map[Key]string{}}
}

func (q *quotaController) pending() bool { return len(q.queue) > 0 || len(q.replenish) > 0 }

// observeQuota is the controller's event handlers on a stored write of k (value nil: deleted).
func (c *Cluster) observeQuota(k Key, value map[string]any) {
	q := c.quotas
	if c.noQuota || k.Namespace == "" {
		return
	}
	if k.Group == "" && k.Resource == "resourcequotas" {
		if value == nil {
			delete(q.hard, k)
			delete(q.queue, k) // the sync would find it gone
			return
		}
		spec, _ := value["spec"].(map[string]any)
		b, _ := json.Marshal(canonicalHard(spec["hard"]))
		if old, ok := q.hard[k]; !ok || old != string(b) {
			q.queue[k] = true
		}
		q.hard[k] = string(b)
		// a quota is also a resourcequotas object counted by quotas
	}
	if resourcequota.Ignored(k.Group, k.Resource) {
		return
	}
	if value == nil {
		delete(q.filtered, k)
		q.replenish[[3]string{k.Namespace, k.Group, k.Resource}] = true
		return
	}
	var sig string
	switch k.Group + "/" + k.Resource {
	case "/pods":
		sig = podFilterState(value, c.clock.Now())
	case "/services":
		spec, _ := value["spec"].(map[string]any)
		switch t, _ := spec["type"].(string); t {
		case "NodePort", "LoadBalancer":
			sig = t
		}
	case "/persistentvolumeclaims":
		// RequiresQuotaReplenish is always true (it compares two new pointers): every update.
		if _, seen := q.filtered[k]; seen {
			q.replenish[[3]string{k.Namespace, k.Group, k.Resource}] = true
		}
		q.filtered[k] = ""
		return
	default:
		return
	}
	if old, seen := q.filtered[k]; seen && old != sig {
		q.replenish[[3]string{k.Namespace, k.Group, k.Resource}] = true
	}
	q.filtered[k] = sig
}

// canonicalHard is spec.hard with each value as quantities compare (quota.Equals).
func canonicalHard(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		str, _ := x.(string)
		if q, err := quantity.Parse(str); err == nil {
			str = q.Canonical()
		}
		out[k] = str
	}
	return out
}

// podFilterState is what DefaultUpdateFilter compares of a Pod: its Terminating scope, whether
// it is charged (QuotaV1Pod) and its containers' status resources.
func podFilterState(pod map[string]any, now time.Time) string {
	var b strings.Builder
	if resourcequota.Terminating(pod) {
		b.WriteString("T")
	}
	if resourcequota.Chargeable(pod, now) {
		b.WriteString("C")
	}
	st, _ := pod["status"].(map[string]any)
	for _, key := range []string{"containerStatuses", "initContainerStatuses"} {
		list, _ := st[key].([]any)
		for _, x := range list {
			cs, _ := x.(map[string]any)
			if r, ok := cs["resources"]; ok {
				name, _ := cs["name"].(string)
				j, _ := json.Marshal(r)
				b.WriteString("|" + key + "/" + name + "=" + string(j))
			}
		}
	}
	return b.String()
}

// settleQuotas runs the controller over its queue: the quotas queued, those of the namespaces
// whose tracked objects changed, every quota on resync; in key order. It reports whether it
// wrote. Called with c.mu held.
func (c *Cluster) settleQuotas(ctx context.Context, now time.Time, resync bool) (bool, error) {
	q := c.quotas
	if c.noQuota {
		return false, nil
	}
	if !resync && !q.pending() {
		return false, nil
	}
	all, err := c.sharedValues(ctx, Prefix{Resource: "resourcequotas"})
	if err != nil {
		return false, err
	}
	for _, o := range all {
		if resync {
			q.queue[o.Key] = true
			continue
		}
		st, _ := o.Value["status"].(map[string]any)
		hard, _ := st["hard"].(map[string]any)
		for r := range q.replenish {
			if r[0] != o.Key.Namespace {
				continue
			}
			names := make([]string, 0, len(hard))
			for n := range hard {
				names = append(names, n)
			}
			if len(resourcequota.MatchingResources(r[1], r[2], names)) > 0 {
				q.queue[o.Key] = true
				break
			}
		}
	}
	q.replenish = map[[3]string]bool{}
	if len(q.queue) == 0 {
		return false, nil
	}
	keys := make([]Key, 0, len(q.queue))
	for k := range q.queue {
		keys = append(keys, k)
	}
	q.queue = map[Key]bool{}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	resources, err := c.quotableResources(ctx)
	if err != nil {
		return false, err
	}
	wrote := false
	for _, k := range keys {
		quota, err := c.sharedGet(ctx, k)
		if err != nil {
			return false, err
		}
		if quota == nil {
			continue
		}
		ns := k.Namespace
		res, _ := resourcequota.Sync(resourcequota.Input{Quota: quota, Resources: resources,
			Objects: func(r schema.GroupVersionResource) ([]map[string]any, error) {
				return c.sharedNamespace(ctx, storePrefix(r, ns))
			}}, resourcequota.Options{Now: now})
		// An evaluator's error leaves its resources as they were; the controller writes the rest
		// and would requeue with backoff: here the next sync does.
		if res.Quota == nil {
			continue
		}
		c.syncWritten = map[string]string{}
		ok, err := c.controllerRequest(ctx, now, "PUT", "/api/v1/namespaces/"+ns+"/resourcequotas/"+k.Name+"/status", "application/json", res.Quota)
		if err != nil {
			return false, err
		}
		wrote = wrote || ok
	}
	return wrote, nil
}

// quotableResources are the namespaced resources the cluster serves with the create, list,
// watch and delete verbs (GetQuotableResources): the built-in ones served by default and the
// CRDs' (the quota monitor counts these).
func (c *Cluster) quotableResources(ctx context.Context) ([]schema.GroupVersionResource, error) {
	var out []schema.GroupVersionResource
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]bool{}
	for _, k := range kinds {
		if !k.ServedByDefault || !k.Namespaced || k.Resource == "" || !hasVerbs(k.Verbs, "create", "list", "watch", "delete") {
			continue
		}
		if key := [2]string{k.GVK.Group, k.Resource}; !seen[key] {
			seen[key] = true
			out = append(out, schema.GroupVersionResource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: k.Resource})
		}
	}
	crds, err := c.sharedValues(ctx, Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"})
	if err != nil {
		return nil, err
	}
	for _, o := range crds {
		crd := c.crds.parse(o.Key.Name, o)
		if crd == nil || crd.Scope != "Namespaced" {
			continue
		}
		if key := [2]string{crd.Group, crd.Names.Plural}; !seen[key] {
			seen[key] = true
			out = append(out, schema.GroupVersionResource{Group: crd.Group, Resource: crd.Names.Plural})
		}
	}
	return out, nil
}

func hasVerbs(verbs []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, v := range verbs {
			if v == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
