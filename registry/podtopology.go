package registry

import (
	"github.com/writepath/writepath/schema"
)

// PodTopologyLabels (plugin/pkg/admission/podtopologylabels), default on in 1.37 with its
// PodTopologyLabelsAdmission feature (beta, on): a Pod created with spec.nodeName, or a Binding
// of a Pod to a Node (target.kind "Node"), gets the Node's topology.kubernetes.io/zone and
// topology.kubernetes.io/region labels, over labels of the same keys; a Node that does not
// exist gives none. The binding REST then copies the Binding's labels onto the Pod.

var nodesResource = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// topologyLabelKeys are the plugin's default configuration's labels.
var topologyLabelKeys = []string{"topology.kubernetes.io/zone", "topology.kubernetes.io/region"}

// podTopologyLabels is the plugin's Admit on a Pod create: obj (the handler's own) gets the
// labels of the Node spec.nodeName names.
func (h *handler) podTopologyLabels(obj map[string]any) error {
	spec, _ := obj["spec"].(map[string]any)
	node, _ := spec["nodeName"].(string)
	if node == "" {
		return nil
	}
	return h.copyTopologyLabels(obj, node)
}

// bindingTopologyLabels is the plugin's Admit on a pods/binding create: binding (the handler's
// own) gets the labels of its target Node.
func (h *handler) bindingTopologyLabels(binding map[string]any) error {
	target, _ := binding["target"].(map[string]any)
	if kind, _ := target["kind"].(string); kind != "Node" {
		return nil
	}
	node, _ := target["name"].(string)
	return h.copyTopologyLabels(binding, node)
}

// copyTopologyLabels merges node's topology labels into obj's labels (a fresh map).
func (h *handler) copyTopologyLabels(obj map[string]any, node string) error {
	if h.pluginDisabled("PodTopologyLabels") {
		return nil
	}
	n, err := h.w.Get(h.ctx, nodesResource, "", node)
	if err != nil {
		return worldError(err, "Get(nodes)")
	}
	if n == nil {
		return nil
	}
	nodeLabels, _ := metaOf(n)["labels"].(map[string]any)
	var found map[string]any
	for _, k := range topologyLabelKeys {
		if v, ok := nodeLabels[k].(string); ok {
			if found == nil {
				found = map[string]any{}
			}
			found[k] = v
		}
	}
	if found == nil {
		return nil
	}
	md := ownMeta(obj)
	old, _ := md["labels"].(map[string]any)
	md["labels"] = overlay(old, found)
	return nil
}
