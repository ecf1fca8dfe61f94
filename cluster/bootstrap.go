package cluster

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// bootstrapData is what kube-apiserver 1.37 creates by itself when it starts on an empty etcd,
// recorded from the real server by testdata/cluster/bootstrap/record (its doc comment has the
// command): the objects in the order it stored them, without uids, resourceVersions and
// creation times.
//
//go:embed data/bootstrap.json.gz
var bootstrapData []byte

var bootstrapObjects = sync.OnceValues(func() ([]map[string]any, error) {
	raw, err := codec.Gunzip(bootstrapData)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Objects []json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(doc.Objects))
	for i, o := range doc.Objects {
		if out[i], err = codec.DecodeObject(o); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// Bootstrap creates what kube-apiserver 1.37 creates by itself when it starts (its post-start
// hooks), as a real server on an empty etcd has it before any client writes:
//
//   - the system namespaces (SystemNamespaces), each with its "default" ServiceAccount when the
//     service account controller runs;
//   - the default/kubernetes Service (https 443 to target port 6443, the real server's
//     --secure-port default), the first address of the service network as its cluster IP, that
//     address's IPAddress and the "kubernetes" ServiceCIDR of the service network;
//   - the PriorityClasses system-node-critical and system-cluster-critical;
//   - API Priority and Fairness' mandatory and suggested FlowSchemas and
//     PriorityLevelConfigurations (with the status its configuration controller writes);
//   - kube-aggregator's local APIServices, one per served built-in group version, Available;
//   - the RBAC bootstrap policy: ClusterRoles, ClusterRoleBindings, and the Roles and
//     RoleBindings of kube-system and kube-public;
//   - kube-system's kube-apiserver-legacy-service-account-token-tracking ConfigMap.
//
// The objects are the real server's (cluster/data/bootstrap.json.gz), stored in its order with
// the cluster's uids, revisions and clock: their creation times, managedFields times and
// conditions' transition times are now. An object that exists already (a store shared with
// another server, a second call) is left as it is. Not created: the apiserver's identity Lease
// in kube-system (renewed every 10 s by the real server) and the APIServices kube-aggregator
// adds for custom resources' group versions.
func (c *Cluster) Bootstrap(ctx context.Context) error {
	objs, err := bootstrapObjects()
	if err != nil {
		return fmt.Errorf("cluster: the embedded bootstrap objects: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now().UTC()
	ts := now.Format(time.RFC3339)
	w := &world{ctx: ctx, c: c, reads: c.store}
	sn := registry.DefaultServiceNetwork()
	kubernetesIP := sn.ClusterIPRange.Masked().Addr().Next()
	var namespaces []registry.Write
	owned, _ := c.store.(sharedReader)
	for _, tmpl := range objs {
		// The templates are never modified: an object is a copy of the maps its changes reach,
		// sharing the rest with them, which an owned write may keep (sharedReader.writeOwned).
		obj := shallowCopy(tmpl)
		gvk, err := schema.FromAPIVersionAndKind(str(obj["apiVersion"]), str(obj["kind"]))
		if err != nil {
			return err
		}
		k, err := schema.Builtin(gvk)
		if err != nil {
			return err
		}
		md := shallowCopy(mapOf(obj["metadata"]))
		obj["metadata"] = md
		ns, name := str(md["namespace"]), str(md["name"])
		switch gvk.Kind {
		case "Service":
			spec := shallowCopy(mapOf(obj["spec"]))
			spec["clusterIP"] = kubernetesIP.String()
			spec["clusterIPs"] = []any{kubernetesIP.String()}
			obj["spec"] = spec
		case "IPAddress":
			name = kubernetesIP.String()
			md["name"] = name
		case "ServiceCIDR":
			spec := shallowCopy(mapOf(obj["spec"]))
			spec["cidrs"] = []any{sn.ClusterIPRange.Masked().String()}
			obj["spec"] = spec
		case "ConfigMap":
			if data, ok := obj["data"].(map[string]any); ok {
				if _, ok := data["since"]; ok {
					data = shallowCopy(data)
					data["since"] = now.Format(time.DateOnly)
					obj["data"] = data
				}
			}
		}
		md["uid"] = w.NewUID()
		md["creationTimestamp"] = ts
		if mfs := listOf(md["managedFields"]); mfs != nil {
			out := make([]any, len(mfs))
			for i, e := range mfs {
				m := shallowCopy(mapOf(e))
				m["time"] = ts
				out[i] = m
			}
			md["managedFields"] = out
		}
		if st, ok := obj["status"].(map[string]any); ok {
			if conds := listOf(st["conditions"]); conds != nil {
				st = shallowCopy(st)
				out := make([]any, len(conds))
				for i, e := range conds {
					m := shallowCopy(mapOf(e))
					if m["lastTransitionTime"] != nil {
						m["lastTransitionTime"] = ts
					}
					out[i] = m
				}
				st["conditions"] = out
				obj["status"] = st
			}
		}
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: k.Resource}
		sw := Write{Key: storeKey(gvr, ns, name), Value: obj}
		var rev int64
		if owned != nil {
			rev, err = owned.writeOwned(sw)
		} else {
			rev, err = c.store.Write(ctx, sw) // a copy
		}
		if err == nil {
			c.observe(sw.Key, sw.Value, rev)
		}
		var conflict *ConflictError
		switch {
		case errors.As(err, &conflict) && conflict.Exists():
			continue
		case err != nil:
			return fmt.Errorf("cluster: bootstrap %s %q: %w", gvk.Kind, name, err)
		}
		c.resources[resourceKey{gvr.Group, gvr.Resource}] = struct{}{}
		if gvk.Kind == "Namespace" {
			namespaces = append(namespaces, registry.Write{Resource: gvr, Name: name, Object: obj})
		}
	}
	return c.serviceAccountsAfter(ctx, namespaces, now)
}

func str(v any) string { s, _ := v.(string); return s }

func mapOf(v any) map[string]any { m, _ := v.(map[string]any); return m }

// shallowCopy is a new map with m's entries (nil for nil).
func shallowCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func listOf(v any) []any { l, _ := v.([]any); return l }
