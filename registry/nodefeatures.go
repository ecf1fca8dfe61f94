package registry

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
	"github.com/writepath/writepath/status"
)

// NodeDeclaredFeatureValidator (k8s.io/kubernetes plugin/pkg/admission/nodedeclaredfeatures),
// default on in 1.37 (its NodeDeclaredFeatures feature is GA), validating, after
// PodTopologyLabels and before PodResizeValidator (podresize.go) in AllOrderedPlugins. On an
// update of a Pod, its main resource or pods/resize, bound to a Node (spec.nodeName) whose
// generation the update changes, it infers the node features the update needs
// (component-helpers nodedeclaredfeatures DefaultFramework.InferForPodUpdate over the features
// registered in v0.37.2, none of which has a MaxVersion that version 1.37 passes), and when it
// needs some, reads the Node through World and refuses with 403 unless the Node's
// status.declaredFeatures lists every one: `pod update requires features A, B which are not
// available on node "n"` (the missing ones in name order), or `node "n" not found`.
//
// Of the nine registered features only three infer anything for an update:
//
//   - InPlacePodLevelResourcesVerticalScaling: spec.resources differs, by equality.Semantic
//     (an absent spec.resources differs from an empty one; quantities by value);
//   - InPlacePodVerticalScalingInitContainers: the resources of an init container that is no
//     sidecar differ by reflect.DeepEqual (quantities by representation: "1" and "1000m"
//     differ; a stored empty list reads as none, as kube-apiserver's protobuf storage keeps it);
//   - InPlacePodVerticalScalingMemoryBackedVolumes: a memory-backed emptyDir's sizeLimit,
//     set before and after, changes value (with as many volumes before as after).
//
// DRANodeAllocatableResources, DRAOptionalNodeOperations, ExtendWebSocketsToKubelet,
// RestartAllContainersOnContainerExits, UserNamespacesHostNetworkSupport and
// VolumeBindMountOptions infer nothing for an update. The plugin's ResourceSlice branch (devices
// with nodeAllocatableResources on Nodes not declaring DRANodeAllocatableResources) runs only
// with the DRANodeAllocatableResources feature, alpha and off in 1.37, so it refuses nothing
// and is not modelled.
//
// Compared with the reference plugin by conformance/defaults/podresize, and replayed from
// kube-apiserver 1.37 in testdata/cluster/scenarios/pod-resize.yaml.

// declaredFeatures are the names of nodedeclaredfeatures/features.AllFeatures, sorted as the
// framework sorts them (its FeatureSet bits and the order it lists unmet ones in).
var declaredFeatures = []string{
	"DRANodeAllocatableResources",
	"DRAOptionalNodeOperations",
	"ExtendWebSocketsToKubelet",
	"InPlacePodLevelResourcesVerticalScaling",
	"InPlacePodVerticalScalingInitContainers",
	"InPlacePodVerticalScalingMemoryBackedVolumes",
	"RestartAllContainersOnContainerExits",
	"UserNamespacesHostNetworkSupport",
	"VolumeBindMountOptions",
}

// inferForUpdate are the features' InferForUpdate rules that can say yes, by feature name.
var inferForUpdate = map[string]func(oldSpec, newSpec map[string]any, spelled []map[string]any) bool{
	"InPlacePodLevelResourcesVerticalScaling":      podLevelResourcesResized,
	"InPlacePodVerticalScalingInitContainers":      initContainerResized,
	"InPlacePodVerticalScalingMemoryBackedVolumes": memoryVolumeResized,
}

var podKind = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// nodeFeaturesValidate is the plugin's Validate (name: the request's, for the 403).
func (h *handler) nodeFeaturesValidate(op admission.Operation, obj, old map[string]any, name string) error {
	nodeName, ok := h.boundPodUpdate(op, obj, old, "", "resize")
	if !ok || h.pluginDisabled("NodeDeclaredFeatureValidator") {
		return nil
	}
	required := requiredNodeFeatures(old, obj, h.initResources)
	if len(required) == 0 {
		return nil
	}
	gr := h.ep.groupResource()
	node, err := h.w.Get(h.ctx, nodesResource, "", nodeName)
	if err != nil {
		return worldError(err, "Get(nodes)")
	}
	if node == nil {
		return status.Forbidden(gr, name, fmt.Errorf("node %q not found", nodeName))
	}
	st, _ := node["status"].(map[string]any)
	declared := mapDeclaredFeatures(stringsOf(st["declaredFeatures"]))
	var missing []string
	for _, f := range required {
		if !declared[f] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return status.Forbidden(gr, name, fmt.Errorf("pod update requires features %s which are not available on node %q",
			strings.Join(missing, ", "), metaString(node, "name")))
	}
	return nil
}

// requiredNodeFeatures is InferForPodUpdate: the features, in name order, that the update of
// old to obj needs (spelled: obj's init containers' resources as the request spelled them).
func requiredNodeFeatures(old, obj map[string]any, spelled []map[string]any) []string {
	oldSpec, _ := old["spec"].(map[string]any)
	newSpec, _ := obj["spec"].(map[string]any)
	var out []string
	for _, f := range declaredFeatures {
		if infer := inferForUpdate[f]; infer != nil && infer(oldSpec, newSpec, spelled) {
			out = append(out, f)
		}
	}
	return out
}

// mapDeclaredFeatures is FeatureMapper.TryMap: a merge of the Node's list, which it takes to be
// sorted (Node validation makes it so), with the registered names; unknown names are skipped.
func mapDeclaredFeatures(list []string) map[string]bool {
	out := map[string]bool{}
	for i, j := 0, 0; i < len(list) && j < len(declaredFeatures); {
		switch {
		case list[i] == declaredFeatures[j]:
			out[list[i]] = true
			i++
			j++
		case list[i] < declaredFeatures[j]:
			i++
		default:
			j++
		}
	}
	return out
}

// podLevelResourcesResized is the PodLevelResourcesResize feature's InferForUpdate: neither
// spec has spec.resources, or they are semantically equal.
func podLevelResourcesResized(oldSpec, newSpec map[string]any, _ []map[string]any) bool {
	o, n := oldSpec["resources"], newSpec["resources"]
	if o == nil && n == nil {
		return false
	}
	return !validation.SemanticEqual(podKind, o, n, "spec", "resources")
}

// initContainerResized is the NonSidecarInitContainerResize feature's InferForUpdate: an init
// container of the old spec that is no sidecar has resources that reflect.DeepEqual tells from
// the new spec's init container at its index, whose quantities are read as spelled says where
// it holds them with the same values. The update validation before admission keeps the init
// containers' number.
func initContainerResized(oldSpec, newSpec map[string]any, spelled []map[string]any) bool {
	oldInit, newInit := listOfMaps(oldSpec["initContainers"]), listOfMaps(newSpec["initContainers"])
	for i, c := range oldInit {
		if c["restartPolicy"] == "Always" || i >= len(newInit) {
			continue
		}
		o, _ := c["resources"].(map[string]any)
		n, _ := newInit[i]["resources"].(map[string]any)
		var raw map[string]any
		if i < len(spelled) {
			raw = spelled[i]
		}
		if !reflectEqualResources(o, respelled(n, raw)) {
			return true
		}
	}
	return false
}

// reflectEqualResources is reflect.DeepEqual of two core.ResourceRequirements, the stored one
// (old: an empty list there is none, as protobuf storage decodes it) and the request's: limits
// and requests nil or not, of the same names, with identical quantities; claims nil or not,
// the same names and requests in order.
func reflectEqualResources(old, obj map[string]any) bool {
	for _, k := range []string{"limits", "requests"} {
		o, oOK := old[k].(map[string]any)
		n, nOK := obj[k].(map[string]any)
		if oOK && len(o) == 0 {
			oOK = false
		}
		if oOK != nOK || len(o) != len(n) {
			return false
		}
		for name, ov := range o {
			nv, ok := n[name]
			if !ok || !identicalQuantity(ov, nv) {
				return false
			}
		}
	}
	o, oOK := old["claims"].([]any)
	n, nOK := obj["claims"].([]any)
	if oOK && len(o) == 0 {
		oOK = false
	}
	if oOK != nOK || len(o) != len(n) {
		return false
	}
	for i := range o {
		oc, _ := o[i].(map[string]any)
		nc, _ := n[i].(map[string]any)
		if metaStringOf(oc, "name") != metaStringOf(nc, "name") || metaStringOf(oc, "request") != metaStringOf(nc, "request") {
			return false
		}
	}
	return true
}

// respelled is resources (the request's, with quantities written canonically) with each
// quantity as raw (the same resources as the request spelled them) wrote it, where raw holds
// the same value: a request defaulted from a limit (SetDefaults_Pod copies the limit) as the
// limit was spelled.
func respelled(resources, raw map[string]any) map[string]any {
	if raw == nil || resources == nil {
		return resources
	}
	out := copyTop(resources)
	rawLimits, _ := raw["limits"].(map[string]any)
	for _, k := range []string{"limits", "requests"} {
		list, ok := resources[k].(map[string]any)
		if !ok {
			continue
		}
		rawList, _ := raw[k].(map[string]any)
		fresh := make(map[string]any, len(list))
		for name, v := range list {
			fresh[name] = v
			r, ok := rawList[name]
			if !ok && k == "requests" {
				r, ok = rawLimits[name]
			}
			if !ok {
				continue
			}
			q, qOK := parseQuantityValue(v)
			rq, rOK := parseQuantityValue(r)
			if qOK && rOK && q.Cmp(rq) == 0 {
				fresh[name] = r
			}
		}
		out[k] = fresh
	}
	return out
}

// noteInitResources records, before the typed round trip, a Pod's init containers' resources
// as the decoded object spells them (handler.initResources).
func (h *handler) noteInitResources(obj map[string]any) {
	if h.ep.crd != nil || h.ep.gvk.Group != "" || h.ep.gvk.Kind != "Pod" {
		return
	}
	spec, _ := obj["spec"].(map[string]any)
	inits, _ := spec["initContainers"].([]any)
	h.initResources = make([]map[string]any, len(inits))
	for i, c := range inits {
		m, _ := c.(map[string]any)
		h.initResources[i], _ = m["resources"].(map[string]any)
	}
}

func metaStringOf(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// identicalQuantity is reflect.DeepEqual of the two quantities the values decode to.
func identicalQuantity(a, b any) bool {
	qa, aOK := parseQuantityValue(a)
	qb, bOK := parseQuantityValue(b)
	if !aOK || !bOK {
		return aOK == bOK
	}
	return qa.Identical(qb)
}

// memoryVolumeResized is the MemoryBackedVolumesResize feature's InferForUpdate: with as many
// volumes before as after, a volume of the same name at the same index that is a memory-backed
// emptyDir with a sizeLimit before and after whose value changes.
func memoryVolumeResized(oldSpec, newSpec map[string]any, _ []map[string]any) bool {
	oldVols, newVols := listOfMaps(oldSpec["volumes"]), listOfMaps(newSpec["volumes"])
	if len(oldVols) != len(newVols) {
		return false
	}
	for i, nv := range newVols {
		ov := oldVols[i]
		if nv["name"] != ov["name"] {
			continue
		}
		nd, _ := nv["emptyDir"].(map[string]any)
		od, _ := ov["emptyDir"].(map[string]any)
		if nd == nil || nd["medium"] != "Memory" {
			continue
		}
		ns, nOK := parseQuantityValue(nd["sizeLimit"])
		os, oOK := parseQuantityValue(od["sizeLimit"])
		if !nOK || !oOK {
			continue
		}
		if ns.Cmp(os) != 0 {
			return true
		}
	}
	return false
}
