package registry

import (
	"fmt"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// podCreateDefaults is what two of kube-apiserver's default admission plugins add to a Pod on
// create, before the webhooks (plugin/pkg/admission/priority and
// plugin/pkg/admission/defaulttolerationseconds; recorded: pod/create). The ServiceAccount
// plugin is not modelled here.
//   - Priority: a Pod without priorityClassName gets the globalDefault PriorityClass's name,
//     value and preemptionPolicy, or priority 0 and PreemptLowerPriority when there is none; a
//     named class gives its value and policy, and a missing one is a 403.
//   - DefaultTolerationSeconds: NoExecute tolerations of node.kubernetes.io/not-ready and
//     unreachable for 300 seconds, unless the Pod tolerates those taints already.
func (h *handler) podCreateDefaults(obj map[string]any) (map[string]any, error) {
	obj, err := value.DeepCopyMap(obj)
	if err != nil {
		return nil, err
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return obj, nil
	}
	pcs, err := h.w.List(h.ctx, schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}, "")
	if err != nil {
		return nil, worldError(err, "List")
	}
	name, _ := spec["priorityClassName"].(string)
	var class map[string]any
	for _, pc := range pcs {
		if name == "" && pc["globalDefault"] == true || name != "" && metaString(pc, "name") == name {
			class = pc
			break
		}
	}
	switch {
	case class != nil:
		if name == "" {
			spec["priorityClassName"] = metaString(class, "name")
		}
		spec["priority"] = class["value"]
		if p, ok := class["preemptionPolicy"].(string); ok {
			spec["preemptionPolicy"] = p
		}
	case name != "" && name != "system-node-critical" && name != "system-cluster-critical":
		return nil, status.Forbidden(h.ep.groupResource(), metaString(obj, "name"), fmt.Errorf("no PriorityClass with name %s was found", name))
	case name == "":
		spec["priority"] = int64(0)
	}
	if _, ok := spec["preemptionPolicy"]; !ok {
		spec["preemptionPolicy"] = "PreemptLowerPriority"
	}
	tols, _ := spec["tolerations"].([]any)
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"} {
		if !toleratesNoExecute(tols, key) {
			tols = append(tols, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": int64(300)})
		}
	}
	if len(tols) > 0 {
		spec["tolerations"] = tols
	}
	return obj, nil
}

// toleratesNoExecute reports whether a toleration tolerates the NoExecute taint key (the
// plugin's check: empty effect or NoExecute, and the key itself or an Exists with no key).
func toleratesNoExecute(tols []any, key string) bool {
	for _, t := range tols {
		m, _ := t.(map[string]any)
		effect, _ := m["effect"].(string)
		if effect != "" && effect != "NoExecute" {
			continue
		}
		k, _ := m["key"].(string)
		op, _ := m["operator"].(string)
		if k == key || k == "" && op == "Exists" {
			return true
		}
	}
	return false
}
