package cluster

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/writepath/writepath/registry"
)

// crdCleanupFinalizer is the finalizer a CRD's DELETE adds (apiextensions-apiserver's REST
// Delete): the CRD stays, Terminating, until its finalizer controller removed every instance.
const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// finalizeCRDs runs apiextensions-apiserver's CRD finalizer controller (pkg/controller/finalizer)
// over the CRDs a write marked for deletion and those still waiting for their instances: each
// gets the Terminating condition InstanceDeletionInProgress, its instances are deleted (one
// deletecollection per namespace, as the apiserver's loopback client), and once none remains the
// condition says InstanceDeletionCompleted and the finalizer is removed by a status update, which
// deletes the CRD. Instances held by finalizers of their own keep the CRD terminating until a
// later write lets them go, as the controller waits and requeues. c.mu is held.
func (c *Cluster) finalizeCRDs(ctx context.Context, writes []registry.Write, now time.Time) error {
	for _, wr := range writes {
		if wr.Delete || wr.Resource.Group != "apiextensions.k8s.io" || wr.Resource.Resource != "customresourcedefinitions" {
			continue
		}
		if deleting(wr.Object, crdCleanupFinalizer) {
			if c.terminatingCRDs == nil {
				c.terminatingCRDs = map[string]bool{}
			}
			c.terminatingCRDs[wr.Name] = true
		}
	}
	for name := range c.terminatingCRDs {
		done, err := c.finalizeCRD(ctx, name, now)
		if err != nil {
			return err
		}
		if done {
			delete(c.terminatingCRDs, name)
		}
	}
	return nil
}

// finalizeCRD is one sync of the CRD finalizer for name; done once the CRD needs it no more.
func (c *Cluster) finalizeCRD(ctx context.Context, name string, now time.Time) (bool, error) {
	key := Key{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: name}
	cur, err := c.store.Get(ctx, key)
	if err != nil {
		return true, nil // gone
	}
	crd := cur.Value
	if !deleting(crd, crdCleanupFinalizer) {
		return true, nil
	}
	statusPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name + "/status"
	crd, changed := withCRDCondition(crd, "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress", now)
	if changed {
		resp, err := c.requestResponse(ctx, now, apiserverUser, apiserverAgent, "PUT", statusPath, "application/json", crd)
		if err != nil {
			return false, err
		}
		if resp.Code >= 300 {
			return false, fmt.Errorf("finalizing %s: %d %s", name, resp.Code, resp.Body)
		}
		crd = resp.Object
	}
	reason, message := "NeverEstablished", "resource was never established"
	if crdConditionTrue(crd, "Established") {
		remaining, err := c.deleteCRDInstances(ctx, crd, now)
		if err != nil {
			return false, err
		}
		if remaining > 0 {
			return false, nil // instances with finalizers: the controller waits for them
		}
		reason, message = "InstanceDeletionCompleted", "removed all instances"
	}
	crd, _ = withCRDCondition(crd, "False", reason, message, now)
	crd = finalizerRemoved(crd, crdCleanupFinalizer)
	resp, err := c.requestResponse(ctx, now, apiserverUser, apiserverAgent, "PUT", statusPath, "application/json", crd)
	if err != nil {
		return false, err
	}
	if resp.Code == http.StatusConflict {
		return false, nil
	}
	if resp.Code >= 300 {
		return false, fmt.Errorf("finalizing %s: %d %s", name, resp.Code, resp.Body)
	}
	return true, nil
}

// deleteCRDInstances deletes a CRD's custom resources, a deletecollection per namespace holding
// some (deleteInstances), and answers how many remain.
func (c *Cluster) deleteCRDInstances(ctx context.Context, crd map[string]any, now time.Time) (int, error) {
	spec, _ := crd["spec"].(map[string]any)
	group, _ := spec["group"].(string)
	names, _ := spec["names"].(map[string]any)
	plural, _ := names["plural"].(string)
	version := storageVersionOf(crd)
	if group == "" || plural == "" || version == "" {
		return 0, nil
	}
	prefix := Prefix{Group: group, Resource: plural}
	l, err := c.store.List(ctx, ListRequest{Prefix: prefix})
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, o := range l.Items {
		ns := o.Key.Namespace
		if seen[ns] {
			continue
		}
		seen[ns] = true
		path := "/apis/" + group + "/" + version + "/" + plural
		if ns != "" {
			path = "/apis/" + group + "/" + version + "/namespaces/" + ns + "/" + plural
		}
		if _, err := c.requestResponse(ctx, now, apiserverUser, apiserverAgent, "DELETE", path, "", nil); err != nil {
			return 0, err
		}
	}
	if len(l.Items) == 0 {
		return 0, nil
	}
	l, err = c.store.List(ctx, ListRequest{Prefix: prefix})
	if err != nil {
		return 0, err
	}
	return len(l.Items), nil
}

func storageVersionOf(crd map[string]any) string {
	spec, _ := crd["spec"].(map[string]any)
	vs, _ := spec["versions"].([]any)
	for _, x := range vs {
		if v, ok := x.(map[string]any); ok && v["storage"] == true {
			name, _ := v["name"].(string)
			return name
		}
	}
	return ""
}

func crdConditionTrue(crd map[string]any, typ string) bool {
	st, _ := crd["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, x := range conds {
		if m, ok := x.(map[string]any); ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// withCRDCondition is SetCRDCondition for the Terminating condition on a copy of crd: the
// transition time moves only when the status does; changed says whether anything did.
func withCRDCondition(crd map[string]any, condStatus, reason, message string, now time.Time) (map[string]any, bool) {
	out := make(map[string]any, len(crd))
	for k, v := range crd {
		out[k] = v
	}
	st := map[string]any{}
	if old, ok := crd["status"].(map[string]any); ok {
		for k, v := range old {
			st[k] = v
		}
	}
	conds, _ := st["conditions"].([]any)
	list := make([]any, 0, len(conds)+1)
	found, changed := false, false
	for _, x := range conds {
		m, ok := x.(map[string]any)
		if !ok || m["type"] != "Terminating" {
			list = append(list, x)
			continue
		}
		found = true
		nm := make(map[string]any, len(m))
		for k, v := range m {
			nm[k] = v
		}
		if m["status"] != condStatus || m["lastTransitionTime"] == nil {
			nm["lastTransitionTime"] = now.UTC().Format(time.RFC3339)
		}
		nm["status"], nm["reason"], nm["message"] = condStatus, reason, message
		changed = changed || m["status"] != condStatus || m["reason"] != reason || m["message"] != message
		list = append(list, nm)
	}
	if !found {
		list = append(list, map[string]any{"type": "Terminating", "status": condStatus, "lastTransitionTime": now.UTC().Format(time.RFC3339),
			"reason": reason, "message": message})
		changed = true
	}
	st["conditions"] = list
	out["status"] = st
	return out, changed
}

// finalizerRemoved is a copy of obj (its top level and metadata) without finalizer f.
func finalizerRemoved(obj map[string]any, f string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md, _ := obj["metadata"].(map[string]any)
	nm := make(map[string]any, len(md))
	for k, v := range md {
		nm[k] = v
	}
	fs, _ := md["finalizers"].([]any)
	var rest []any
	for _, x := range fs {
		if x != f {
			rest = append(rest, x)
		}
	}
	if len(rest) == 0 {
		delete(nm, "finalizers")
	} else {
		nm["finalizers"] = rest
	}
	out["metadata"] = nm
	return out
}
