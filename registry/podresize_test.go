package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

const resizePods = "/api/v1/namespaces/demo/pods"

// resizeNode is a stored Node with these labels, status.allocatable and declared features.
func resizeNode(name string, labels map[string]any, allocatable map[string]any, declared ...any) map[string]any {
	md := map[string]any{"name": name, "uid": "u-" + name, "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z"}
	if labels != nil {
		md["labels"] = labels
	}
	st := map[string]any{}
	if allocatable != nil {
		st["allocatable"] = allocatable
		st["capacity"] = allocatable
	}
	if declared != nil {
		st["declaredFeatures"] = declared
	}
	return map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": md, "status": st}
}

// boundPod is a Pod's JSON on node with one container and, when init is non-nil, one init
// container (a sidecar when sidecar), each with requests and limits equal (Guaranteed).
func boundPod(name, node string, cpu, mem string, init map[string]any, extraSpec map[string]any) string {
	res := map[string]any{"requests": rl("cpu", cpu, "memory", mem), "limits": rl("cpu", cpu, "memory", mem)}
	spec := map[string]any{"nodeName": node, "automountServiceAccountToken": false,
		"containers": []any{map[string]any{"name": "c", "image": "x", "resources": res}}}
	if init != nil {
		spec["initContainers"] = []any{init}
	}
	for k, v := range extraSpec {
		spec[k] = v
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec})
	return string(b)
}

// resizeBody is a strategic merge patch setting container c's cpu requests and limits.
func resizeBody(key, ctr, cpu string) string {
	b, _ := json.Marshal(map[string]any{"spec": map[string]any{key: []any{map[string]any{"name": ctr,
		"resources": map[string]any{"requests": rl("cpu", cpu), "limits": rl("cpu", cpu)}}}}})
	return string(b)
}

func causesOf(r registry.Response) []any {
	d, _ := r.Object["details"].(map[string]any)
	c, _ := d["causes"].([]any)
	return c
}

// TestPodResizeValidator: a resize of a bound Pod is refused on a missing Node, on a Node
// labelled for another OS (cause UnsupportedPlatform) and when the requests, init containers
// and overhead counted, exceed the Node's allocatable cpu or memory (cause NodeCapacity, cpu in
// millicores and memory in bytes); it passes within them, on a Node without the OS label, and
// for an unbound Pod; an update that changes no generation is not checked.
func TestPodResizeValidator(t *testing.T) {
	do := pluginWorld(t,
		resizeNode("small", map[string]any{"kubernetes.io/os": "linux"}, rl("cpu", "2", "memory", "1Gi")),
		resizeNode("win", map[string]any{"kubernetes.io/os": "windows"}, rl("cpu", "8", "memory", "8Gi")),
		resizeNode("nolabel", nil, rl("cpu", "4", "memory", "4Gi")),
	)
	for _, p := range []string{
		boundPod("on-small", "small", "1", "512Mi", nil, nil),
		boundPod("on-win", "win", "1", "512Mi", nil, nil),
		boundPod("on-nolabel", "nolabel", "1", "512Mi", nil, nil),
		boundPod("on-missing", "gone", "1", "512Mi", nil, nil),
		boundPod("unbound", "", "1", "512Mi", nil, nil),
		boundPod("with-init", "small", "500m", "512Mi", map[string]any{"name": "i", "image": "x", "restartPolicy": "Always",
			"resources": map[string]any{"requests": rl("cpu", "1", "memory", "128Mi"), "limits": rl("cpu", "1", "memory", "128Mi")}}, nil),
	} {
		r := do("POST", resizePods, "application/json", p)
		require.Equal(t, 201, r.Code, r.Object)
	}
	smp := "application/strategic-merge-patch+json"

	r := do("PATCH", resizePods+"/on-small/resize", smp, resizeBody("containers", "c", "1500m"))
	assert.Equal(t, 200, r.Code, r.Object)

	r = do("PATCH", resizePods+"/on-small/resize", smp, resizeBody("containers", "c", "3"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "on-small" is forbidden: node didn't have enough allocatable resources: cpu, requested: 3000, allocatable: 2000`, r.Object["message"])
	assert.Equal(t, []any{map[string]any{"reason": "NodeCapacity"}}, causesOf(r))

	// Both resources over: memory in bytes.
	body := `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2500m","memory":"2Gi"},"limits":{"cpu":"2500m","memory":"2Gi"}}}]}}`
	r = do("PATCH", resizePods+"/on-small/resize", smp, body)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "on-small" is forbidden: node didn't have enough allocatable resources: cpu, requested: 2500, allocatable: 2000; memory, requested: 2147483648, allocatable: 1073741824`, r.Object["message"])

	// The sidecar's 1 cpu counts: 1500m + 1 > 2.
	r = do("PATCH", resizePods+"/with-init/resize", smp, resizeBody("containers", "c", "1500m"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "with-init" is forbidden: node didn't have enough allocatable resources: cpu, requested: 2500, allocatable: 2000`, r.Object["message"])

	r = do("PATCH", resizePods+"/on-win/resize", smp, resizeBody("containers", "c", "2"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "on-win" is forbidden: pod resize is only supported on linux nodes, node "win" is "windows"`, r.Object["message"])
	assert.Equal(t, []any{map[string]any{"reason": "UnsupportedPlatform"}}, causesOf(r))

	r = do("PATCH", resizePods+"/on-nolabel/resize", smp, resizeBody("containers", "c", "2"))
	assert.Equal(t, 200, r.Code, r.Object)

	r = do("PATCH", resizePods+"/on-missing/resize", smp, resizeBody("containers", "c", "2"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "on-missing" is forbidden: node "gone" not found`, r.Object["message"])
	assert.Empty(t, causesOf(r))

	r = do("PATCH", resizePods+"/unbound/resize", smp, resizeBody("containers", "c", "64"))
	assert.Equal(t, 200, r.Code, r.Object)

	// The same values again: no spec change, no generation change, no check (the Pod on the
	// missing Node is resized to what it has).
	r = do("PATCH", resizePods+"/on-missing/resize", smp, resizeBody("containers", "c", "1"))
	assert.Equal(t, 200, r.Code, r.Object)
	// A label update of the Pod itself is no resize.
	r = do("PATCH", resizePods+"/on-win", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	assert.Equal(t, 200, r.Code, r.Object)
}

// TestNodeDeclaredFeatureValidator: a resize of a bound Pod's pod-level resources needs
// InPlacePodLevelResourcesVerticalScaling declared by its Node, of a non-sidecar init
// container's InPlacePodVerticalScalingInitContainers (a sidecar's nothing, nor a container's);
// the refusal names every missing feature in name order; a quantity spelled otherwise counts
// as a change of the init container (recorded: pod-resize/prz-features); a Node declaring them, or an update
// needing none, passes; a Pod on a missing Node is refused only when it needs a feature.
func TestNodeDeclaredFeatureValidator(t *testing.T) {
	alloc := rl("cpu", "16", "memory", "16Gi")
	do := pluginWorld(t,
		resizeNode("bare", nil, alloc),
		resizeNode("full", nil, alloc, "InPlacePodLevelResourcesVerticalScaling", "InPlacePodVerticalScalingInitContainers", "Unknown"),
		resizeNode("half", nil, alloc, "InPlacePodVerticalScalingInitContainers"),
	)
	init := func(sidecar bool) map[string]any {
		c := map[string]any{"name": "i", "image": "x", "resources": map[string]any{"requests": rl("cpu", "1", "memory", "128Mi"), "limits": rl("cpu", "1", "memory", "128Mi")}}
		if sidecar {
			c["restartPolicy"] = "Always"
		}
		return c
	}
	podLevel := map[string]any{"resources": map[string]any{"requests": rl("cpu", "4", "memory", "1Gi"), "limits": rl("cpu", "4", "memory", "1Gi")}}
	for _, p := range []string{
		boundPod("init-bare", "bare", "1", "512Mi", init(false), nil),
		boundPod("init-half", "half", "1", "512Mi", init(false), nil),
		boundPod("sidecar-bare", "bare", "1", "512Mi", init(true), nil),
		boundPod("pl-bare", "bare", "1", "512Mi", init(false), podLevel),
		boundPod("pl-full", "full", "1", "512Mi", init(false), podLevel),
		boundPod("pl-half", "half", "1", "512Mi", nil, podLevel),
		boundPod("gone", "missing", "1", "512Mi", init(false), nil),
	} {
		r := do("POST", resizePods, "application/json", p)
		require.Equal(t, 201, r.Code, r.Object)
	}
	smp := "application/strategic-merge-patch+json"

	r := do("PATCH", resizePods+"/init-bare/resize", smp, resizeBody("initContainers", "i", "2"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "init-bare" is forbidden: pod update requires features InPlacePodVerticalScalingInitContainers which are not available on node "bare"`, r.Object["message"])
	assert.Empty(t, causesOf(r))

	r = do("PATCH", resizePods+"/init-half/resize", smp, resizeBody("initContainers", "i", "2"))
	assert.Equal(t, 200, r.Code, r.Object)
	r = do("PATCH", resizePods+"/sidecar-bare/resize", smp, resizeBody("initContainers", "i", "2"))
	assert.Equal(t, 200, r.Code, r.Object)
	r = do("PATCH", resizePods+"/init-bare/resize", smp, resizeBody("containers", "c", "2"))
	assert.Equal(t, 200, r.Code, r.Object)

	// The init container's cpu spelled otherwise ("1000m" for "1"): reflect.DeepEqual tells them
	// apart once the generation changes (here by the container's resize), not alone.
	r = do("PATCH", resizePods+"/init-bare/resize", smp, resizeBody("initContainers", "i", "1000m"))
	assert.Equal(t, 200, r.Code, r.Object)
	respell := `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1500m"}}}],"initContainers":[{"name":"i","resources":{"requests":{"cpu":"1000m"},"limits":{"cpu":"1000m"}}}]}}`
	r = do("PATCH", resizePods+"/init-bare/resize", smp, respell)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "init-bare" is forbidden: pod update requires features InPlacePodVerticalScalingInitContainers which are not available on node "bare"`, r.Object["message"])

	both := `{"spec":{"resources":{"requests":{"cpu":"5"},"limits":{"cpu":"5"}},"initContainers":[{"name":"i","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}`
	r = do("PATCH", resizePods+"/pl-bare/resize", smp, both)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "pl-bare" is forbidden: pod update requires features InPlacePodLevelResourcesVerticalScaling, InPlacePodVerticalScalingInitContainers which are not available on node "bare"`, r.Object["message"])
	r = do("PATCH", resizePods+"/pl-full/resize", smp, both)
	assert.Equal(t, 200, r.Code, r.Object)
	r = do("PATCH", resizePods+"/pl-half/resize", smp, `{"spec":{"resources":{"requests":{"cpu":"5"},"limits":{"cpu":"5"}}}}`)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "pl-half" is forbidden: pod update requires features InPlacePodLevelResourcesVerticalScaling which are not available on node "half"`, r.Object["message"])

	// A container's resize on a missing Node needs no feature: PodResizeValidator refuses it.
	r = do("PATCH", resizePods+"/gone/resize", smp, resizeBody("containers", "c", "2"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "gone" is forbidden: node "missing" not found`, r.Object["message"])
	r = do("PATCH", resizePods+"/gone/resize", smp, resizeBody("initContainers", "i", "2"))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "gone" is forbidden: node "missing" not found`, r.Object["message"])
}
