package cluster

import (
	"context"
	"net/url"
	"time"
)

// The storage protection controllers of kube-controller-manager (pvc-protection, pv-protection,
// vac-protection): the StorageObjectInUseProtection admission plugin gives every created
// PersistentVolumeClaim, PersistentVolume and VolumeAttributesClass a protection finalizer, and
// these controllers remove it once the object is being deleted and nothing uses it, so that its
// deletion completes:
//   - a claim no Pod that has not finished (phase other than Succeeded and Failed) mounts, by a
//     persistentVolumeClaim volume or as a generic ephemeral volume (<pod>-<volume>);
//   - a volume not Bound;
//   - a class no claim (spec.volumeAttributesClassName, status.currentVolumeAttributesClassName)
//     and no volume names.
//
// Each release is an update by the controller (the object without the finalizer), through the
// request path like the workload controllers' writes.

const (
	pvcProtection = "kubernetes.io/pvc-protection"
	pvProtection  = "kubernetes.io/pv-protection"
	vacProtection = "kubernetes.io/vac-protection"
)

// settleProtection runs the three controllers once; acted says whether one released an object.
func (c *Cluster) settleProtection(ctx context.Context, now time.Time) (bool, error) {
	if !c.has("", "persistentvolumeclaims") && !c.has("", "persistentvolumes") && !c.has("storage.k8s.io", "volumeattributesclasses") {
		return false, nil
	}
	claims, err := c.values(ctx, Prefix{Resource: "persistentvolumeclaims"})
	if err != nil {
		return false, err
	}
	volumes, err := c.values(ctx, Prefix{Resource: "persistentvolumes"})
	if err != nil {
		return false, err
	}
	var classes []map[string]any
	if c.has("storage.k8s.io", "volumeattributesclasses") {
		if classes, err = c.values(ctx, Prefix{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}); err != nil {
			return false, err
		}
	}
	var pods []map[string]any
	for _, pvc := range claims {
		if deleting(pvc, pvcProtection) {
			if pods, err = c.values(ctx, Prefix{Resource: "pods"}); err != nil {
				return false, err
			}
			break
		}
	}
	inUse := map[string]bool{} // namespace/claim
	for _, p := range pods {
		if ph := stringAt(p, "status", "phase"); ph == "Succeeded" || ph == "Failed" {
			continue
		}
		ns, name := metaString(p, "namespace"), metaString(p, "name")
		vols, _ := mapAt(p, "spec")["volumes"].([]any)
		for _, v := range vols {
			vm, _ := v.(map[string]any)
			if claim := stringAt(vm, "persistentVolumeClaim", "claimName"); claim != "" {
				inUse[ns+"/"+claim] = true
			}
			if _, ok := vm["ephemeral"].(map[string]any); ok {
				vn, _ := vm["name"].(string)
				inUse[ns+"/"+name+"-"+vn] = true
			}
		}
	}
	acted := false
	release := func(path string, obj map[string]any, finalizer string) error {
		ok, err := c.controllerRequest(ctx, now, "PUT", path, "application/json", withoutFinalizer(obj, finalizer))
		acted = acted || ok
		return err
	}
	for _, pvc := range claims {
		ns, name := metaString(pvc, "namespace"), metaString(pvc, "name")
		if deleting(pvc, pvcProtection) && !inUse[ns+"/"+name] {
			if err := release("/api/v1/namespaces/"+url.PathEscape(ns)+"/persistentvolumeclaims/"+url.PathEscape(name), pvc, pvcProtection); err != nil {
				return acted, err
			}
		}
	}
	for _, pv := range volumes {
		if deleting(pv, pvProtection) && stringAt(pv, "status", "phase") != "Bound" {
			if err := release("/api/v1/persistentvolumes/"+url.PathEscape(metaString(pv, "name")), pv, pvProtection); err != nil {
				return acted, err
			}
		}
	}
	for _, vac := range classes {
		if !deleting(vac, vacProtection) {
			continue
		}
		name, used := metaString(vac, "name"), false
		for _, pvc := range claims {
			used = used || stringAt(pvc, "spec", "volumeAttributesClassName") == name || stringAt(pvc, "status", "currentVolumeAttributesClassName") == name
		}
		for _, pv := range volumes {
			used = used || stringAt(pv, "spec", "volumeAttributesClassName") == name
		}
		if !used {
			if err := release("/apis/storage.k8s.io/v1/volumeattributesclasses/"+url.PathEscape(name), vac, vacProtection); err != nil {
				return acted, err
			}
		}
	}
	return acted, nil
}

// deleting reports whether obj is being deleted and still holds finalizer.
func deleting(obj map[string]any, finalizer string) bool {
	md := mapAt(obj, "metadata")
	if md["deletionTimestamp"] == nil {
		return false
	}
	fs, _ := md["finalizers"].([]any)
	for _, f := range fs {
		if f == finalizer {
			return true
		}
	}
	return false
}

// withoutFinalizer is obj (a copy of the stored object) with finalizer removed.
func withoutFinalizer(obj map[string]any, finalizer string) map[string]any {
	md := mapAt(obj, "metadata")
	fs, _ := md["finalizers"].([]any)
	var kept []any
	for _, f := range fs {
		if f != finalizer {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		delete(md, "finalizers")
	} else {
		md["finalizers"] = kept
	}
	return obj
}

func mapAt(obj map[string]any, key string) map[string]any {
	m, _ := obj[key].(map[string]any)
	return m
}

func stringAt(obj map[string]any, path ...string) string {
	m := obj
	for _, k := range path[:len(path)-1] {
		m = mapAt(m, k)
	}
	s, _ := m[path[len(path)-1]].(string)
	return s
}
