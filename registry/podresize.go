package registry

import (
	"fmt"
	"strings"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/podresources"
	"github.com/writepath/writepath/status"
)

// PodResizeValidator (k8s.io/kubernetes plugin/pkg/admission/podresize), default on in 1.37
// (its InPlacePodVerticalScaling feature is GA), validating, last of the built-in plugins in
// AllOrderedPlugins, after NodeDeclaredFeatureValidator (nodefeatures.go). On an update of
// pods/resize of a Pod bound to a Node (spec.nodeName) whose generation the update changes
// (the Pod strategy bumps it when the spec changes), it reads that Node through World, as the
// plugin reads its informer's lister, and refuses with 403 when:
//
//   - the Node does not exist: `node "n" not found`;
//   - its kubernetes.io/os label is there and not "linux": `pod resize is only supported on
//     linux nodes, node "n" is "windows"`, with a cause of type UnsupportedPlatform (no message,
//     no field);
//   - the Pod's requests (resource.PodRequests without the status resources: containers, init
//     containers and sidecars, pod-level requests, overhead; internal/podresources) exceed the
//     Node's status.allocatable cpu or memory (an absent one is 0): `node didn't have enough
//     allocatable resources: cpu, requested: 3000, allocatable: 2000; memory, requested: ...`
//     (cpu in millicores, memory in bytes rounded up), with a cause of type NodeCapacity.
//
// Compared with the reference plugin by conformance/defaults/podresize, and replayed from
// kube-apiserver 1.37 in testdata/cluster/scenarios/pod-resize.yaml.

// The cause types the plugin appends to its 403 (podresize.ReasonNodeCapacity and
// ReasonUnsupportedPlatform).
const (
	causeNodeCapacity        status.CauseType = "NodeCapacity"
	causeUnsupportedPlatform status.CauseType = "UnsupportedPlatform"
)

// osLabel is corev1.LabelOSStable.
const osLabel = "kubernetes.io/os"

// boundPodUpdate reports whether an update is one the two node plugins look at: a Pod's (its
// main resource or one of subs) bound to a Node, whose generation changes; it returns the
// Node's name.
func (h *handler) boundPodUpdate(op admission.Operation, obj, old map[string]any, subs ...string) (string, bool) {
	if op != admission.Update || h.ep.crd != nil || obj == nil || old == nil || h.ep.groupResource() != (status.GroupResource{Resource: "pods"}) {
		return "", false
	}
	sub := false
	for _, s := range subs {
		sub = sub || h.ep.Subresource == s
	}
	if !sub {
		return "", false
	}
	spec, _ := obj["spec"].(map[string]any)
	node, _ := spec["nodeName"].(string)
	if node == "" || generationOf(old) == generationOf(obj) {
		return "", false
	}
	return node, true
}

// generationOf is metadata.generation (0 when absent).
func generationOf(o map[string]any) int64 {
	switch g := metaOf(o)["generation"].(type) {
	case int64:
		return g
	case float64:
		return int64(g)
	}
	return 0
}

// podResizeValidate is the plugin's Validate (name: the request's, for the 403).
func (h *handler) podResizeValidate(op admission.Operation, obj, old map[string]any, name string) error {
	nodeName, ok := h.boundPodUpdate(op, obj, old, "resize")
	if !ok || h.pluginDisabled("PodResizeValidator") {
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
	refuse := func(msg string, cause status.CauseType) error {
		e := status.Forbidden(gr, name, fmt.Errorf("%s", msg))
		e.Details.Causes = append(e.Details.Causes, status.Cause{Type: cause})
		return e
	}
	labels, _ := metaOf(node)["labels"].(map[string]any)
	if v, ok := labels[osLabel]; ok && v != "linux" {
		s, _ := v.(string)
		return refuse(fmt.Sprintf("pod resize is only supported on linux nodes, node %q is %q", metaString(node, "name"), s), causeUnsupportedPlatform)
	}
	requests, err := podresources.Requests(obj, podresources.Options{})
	if err != nil {
		return status.InternalError(fmt.Errorf("pod resize: %w", err))
	}
	st, _ := node["status"].(map[string]any)
	allocatable := podresources.ReadList(st["allocatable"])
	var msgs []string
	if req, alloc := requests["cpu"], allocatable["cpu"]; req.Cmp(alloc) > 0 {
		msgs = append(msgs, fmt.Sprintf("cpu, requested: %d, allocatable: %d", req.ScaledValue(-3), alloc.ScaledValue(-3)))
	}
	if req, alloc := requests["memory"], allocatable["memory"]; req.Cmp(alloc) > 0 {
		msgs = append(msgs, fmt.Sprintf("memory, requested: %d, allocatable: %d", req.ScaledValue(0), alloc.ScaledValue(0)))
	}
	if len(msgs) > 0 {
		return refuse("node didn't have enough allocatable resources: "+strings.Join(msgs, "; "), causeNodeCapacity)
	}
	return nil
}
