package apply_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

func testPod(mutate func(spec, md map[string]any)) map[string]any {
	spec := map[string]any{
		"containers": []any{
			map[string]any{"name": "c", "image": "i", "resources": map[string]any{"requests": map[string]any{"cpu": "100m"}}},
		},
		"initContainers": []any{map[string]any{"name": "i", "image": "i"}},
	}
	md := map[string]any{"name": "p", "generation": int64(1)}
	if mutate != nil {
		mutate(spec, md)
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": map[string]any{"qosClass": "Burstable"}}
}

// TestPodResizeValidation covers the checks the recorded cluster could not show (a static pod,
// pod-level resources removed, a non-sidecar init container with a RestartContainer policy,
// changed volumes), with the apiserver's paths and messages (ValidatePodResize, 1.37).
func TestPodResizeValidation(t *testing.T) {
	cases := []struct {
		name      string
		live, obj map[string]any
		want      []string
	}{
		{"static pod", testPod(func(_, md map[string]any) {
			md["annotations"] = map[string]any{"kubernetes.io/config.mirror": "x"}
		}), testPod(nil), []string{"[]: Forbidden: static pods cannot be resized"}},
		{"pod-level removed", testPod(func(spec, _ map[string]any) {
			spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "1"}}
		}), testPod(nil), []string{"spec.resources: Forbidden: pod-level resources cannot be removed"}},
		{"pod-level request removed", testPod(func(spec, _ map[string]any) {
			spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}}
		}), testPod(func(spec, _ map[string]any) {
			spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "2"}}
		}), []string{"spec.resources.requests: Forbidden: pod-level resource requests cannot be removed"}},
		{"pod-level non-cpu", testPod(func(spec, _ map[string]any) {
			spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "1"}}
		}), testPod(func(spec, _ map[string]any) {
			spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "1", "hugepages-2Mi": "2Mi"}}
		}), []string{
			// ValidatePodSpec first: a hugepages request needs a limit.
			"spec.resources.limits: Required value: Limit must be set for non overcommitable resources",
			"spec: Forbidden: only cpu and memory resources are mutable at pod-level",
		}},
		{"request above limit", testPod(nil), testPod(func(spec, _ map[string]any) {
			spec["containers"].([]any)[0].(map[string]any)["resources"] = map[string]any{
				"requests": map[string]any{"cpu": "0.3"}, "limits": map[string]any{"cpu": "200m"}}
		}), []string{
			`spec.containers[0].resources.requests: Invalid value: "300m": must be less than or equal to cpu limit of 200m`,
		}},
		{"init RestartContainer", testPod(nil), testPod(func(spec, _ map[string]any) {
			spec["initContainers"] = []any{map[string]any{"name": "i", "image": "i",
				"resources":    map[string]any{"requests": map[string]any{"cpu": "10m"}},
				"resizePolicy": []any{map[string]any{"resourceName": "cpu", "restartPolicy": "RestartContainer"}}}}
		}), []string{
			// ValidatePodSpec first: the stored pod has no such policy.
			`spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must not be set to 'RestartContainer' for non-sidecar initContainers`,
			"spec.initContainers[0]: Forbidden: only cpu and memory resources for init or sidecar containers are mutable",
			"spec.initContainers[0]: Forbidden: non-sidecar init containers with a resize policy of RestartContainer cannot be resized",
		}},
		{"volumes", testPod(nil), testPod(func(spec, _ map[string]any) {
			spec["volumes"] = []any{map[string]any{"name": "v", "emptyDir": map[string]any{"medium": "Memory"}}}
		}), []string{"spec.volumes: Forbidden: volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"}},
		{"equal quantities", testPod(nil), testPod(func(spec, _ map[string]any) {
			spec["containers"].([]any)[0].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"cpu": "0.1"}}
		}), nil},
		{"renamed init", testPod(nil), testPod(func(spec, _ map[string]any) {
			spec["initContainers"] = []any{map[string]any{"name": "j", "image": "i"}}
		}), []string{"spec.initContainers[0].name: Forbidden: initContainers may not be renamed or reordered on resize"}},
	}
	for _, c := range cases {
		var got []string
		for _, e := range apply.ValidatePodResize(c.obj, c.live) {
			got = append(got, e.Error())
		}
		assert.Equal(t, c.want, got, c.name)
	}
}

func TestPodEphemeralValidation(t *testing.T) {
	eph := func(cs ...map[string]any) func(spec, md map[string]any) {
		return func(spec, _ map[string]any) {
			l := []any{}
			for _, c := range cs {
				l = append(l, c)
			}
			spec["ephemeralContainers"] = l
		}
	}
	dbg := map[string]any{"name": "dbg", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}
	cases := []struct {
		name      string
		live, obj map[string]any
		want      []string
	}{
		{"static pod", testPod(func(spec, md map[string]any) {
			md["annotations"] = map[string]any{"kubernetes.io/config.mirror": "x"}
		}), testPod(eph(dbg)), []string{"[]: Forbidden: static pods do not support ephemeral containers"}},
		{"added", testPod(nil), testPod(eph(dbg)), nil},
		{"missing policies", testPod(nil), testPod(eph(map[string]any{"name": "x", "image": "busybox"})), []string{
			"spec.ephemeralContainers[0].terminationMessagePolicy: Required value",
			"spec.ephemeralContainers[0].imagePullPolicy: Required value",
		}},
		{"removed", testPod(eph(dbg)), testPod(nil), []string{`spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed` + "\n"}},
	}
	for _, c := range cases {
		var got []string
		for _, e := range apply.ValidatePodEphemeralContainersUpdate(c.obj, c.live) {
			got = append(got, e.Error())
		}
		assert.Equal(t, c.want, got, c.name)
	}
	// The error a request gets: a 422 naming the pod, each error a cause.
	err := apply.StrategyValidation(podGVK, "ephemeralcontainers")(testPod(nil), testPod(eph(dbg)))
	var se *status.Error
	require.True(t, errors.As(err, &se))
	assert.Equal(t, 422, se.StatusCode())
	var fe *field.Error
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "spec.ephemeralContainers", fe.Field)
	assert.Nil(t, apply.StrategyValidation(podGVK, "status"), "no validation modelled for pods/status")
}

// FuzzPodStrategy: the resize and ephemeral-container strategies (reset then validation) never
// panic and never change the stored pod, on pods derived from the recorded ones.
func FuzzPodStrategy(f *testing.F) {
	files, err := filepath.Glob("../testdata/apply/recorded/pod*/*.json")
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		var st struct {
			Body     string          `json:"body"`
			Response json.RawMessage `json:"response"`
		}
		require.NoError(f, json.Unmarshal(data, &st))
		f.Add([]byte(st.Body), []byte(st.Response), true)
		f.Add([]byte(st.Response), []byte(st.Body), false)
	}
	f.Fuzz(func(t *testing.T, objData, liveData []byte, resize bool) {
		var obj, live map[string]any
		if sigsjson.UnmarshalCaseSensitivePreserveInts(objData, &obj) != nil || sigsjson.UnmarshalCaseSensitivePreserveInts(liveData, &live) != nil || live == nil || obj == nil {
			return
		}
		sub := "ephemeralcontainers"
		if resize {
			sub = "resize"
		}
		var liveBefore map[string]any
		require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(liveData, &liveBefore))
		apply.StrategyReset(podGVK, sub)(obj, live)
		err := apply.StrategyValidation(podGVK, sub)(obj, live)
		if err != nil {
			var se *status.Error
			require.True(t, errors.As(err, &se))
			assert.Equal(t, 422, se.StatusCode())
		}
		assert.Equal(t, liveBefore, live, "the stored pod changed")
	})
}
