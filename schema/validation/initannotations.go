package validation

import "github.com/writepath/writepath/schema"

// InitContainerAnnotations are the legacy alpha and beta init container annotations (replaced by
// spec.initContainers in 1.8) that the Pod strategy and every strategy holding a pod template
// delete (podutil.DropInitContainerAnnotations, from DropDisabledPodFields and
// DropDisabledTemplateFields) on create and update.
var InitContainerAnnotations = []string{
	"pod.beta.kubernetes.io/init-containers",
	"pod.alpha.kubernetes.io/init-containers",
	"pod.beta.kubernetes.io/init-container-statuses",
	"pod.alpha.kubernetes.io/init-container-statuses",
}

// podMetadataPath is where gvk's kind holds the metadata whose annotations its strategy drops
// the init container annotations from (a Pod's own, or its pod template's), and whether the
// strategy of subresource sub does it too (the Pod's status, ephemeralcontainers and resize
// strategies call DropDisabledPodFields; the workloads' status strategies keep the stored
// spec). nil for other kinds.
func podMetadataPath(gvk schema.GroupVersionKind, sub string) []string {
	switch (groupKind{gvk.Group, gvk.Kind}) {
	case groupKind{"", "Pod"}:
		if sub == "" || sub == "status" || sub == "ephemeralcontainers" || sub == "resize" {
			return []string{"metadata"}
		}
		return nil
	case groupKind{"", "PodTemplate"}:
		if sub == "" {
			return []string{"template", "metadata"}
		}
	case groupKind{"apps", "Deployment"}, groupKind{"apps", "ReplicaSet"}, groupKind{"apps", "DaemonSet"},
		groupKind{"apps", "StatefulSet"}, groupKind{"batch", "Job"}, groupKind{"", "ReplicationController"}:
		if sub == "" {
			return []string{"spec", "template", "metadata"}
		}
	case groupKind{"batch", "CronJob"}:
		if sub == "" {
			return []string{"spec", "jobTemplate", "spec", "template", "metadata"}
		}
	}
	return nil
}

// dropInitContainerAnnotations returns obj without the init container annotations at gvk's pod
// metadata: obj itself when it holds none, else a copy along the path (obj is not modified).
func dropInitContainerAnnotations(gvk schema.GroupVersionKind, obj map[string]any, sub string) map[string]any {
	path := podMetadataPath(gvk, sub)
	if path == nil {
		return obj
	}
	var drop func(m map[string]any, path []string) (map[string]any, bool)
	drop = func(m map[string]any, path []string) (map[string]any, bool) {
		next, _ := m[path[0]].(map[string]any)
		if next == nil {
			return m, false
		}
		var changed map[string]any
		if len(path) > 1 {
			c, ok := drop(next, path[1:])
			if !ok {
				return m, false
			}
			changed = c
		} else {
			ann, _ := next["annotations"].(map[string]any)
			found := false
			for _, k := range InitContainerAnnotations {
				if _, ok := ann[k]; ok {
					found = true
				}
			}
			if !found {
				return m, false
			}
			na := make(map[string]any, len(ann))
			for k, v := range ann {
				na[k] = v
			}
			for _, k := range InitContainerAnnotations {
				delete(na, k)
			}
			changed = copyMap(next)
			changed["annotations"] = na
		}
		out := copyMap(m)
		out[path[0]] = changed
		return out, true
	}
	out, _ := drop(obj, path)
	return out
}
