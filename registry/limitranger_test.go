package registry_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

const (
	lrPods   = "/api/v1/namespaces/demo/pods"
	lrRanges = "/api/v1/namespaces/demo/limitranges"
	lrClaims = "/api/v1/namespaces/demo/persistentvolumeclaims"
)

// limitRange is a LimitRange's JSON with these spec.limits items.
func limitRange(name string, items ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "LimitRange", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"limits": items}})
	return string(b)
}

// lrPod is a Pod's JSON with these containers and init containers (name: resources).
func lrPod(name string, containers, inits []any, extraSpec map[string]any) string {
	spec := map[string]any{"automountServiceAccountToken": false, "containers": containers}
	if inits != nil {
		spec["initContainers"] = inits
	}
	for k, v := range extraSpec {
		spec[k] = v
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec})
	return string(b)
}

func ctr(name string, resources map[string]any) map[string]any {
	c := map[string]any{"name": name, "image": "x"}
	if resources != nil {
		c["resources"] = resources
	}
	return c
}

func rl(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func resourcesOf(t *testing.T, r registry.Response, key string, i int) any {
	t.Helper()
	cs, _ := specOf(r)[key].([]any)
	require.Greater(t, len(cs), i, r.Object)
	return cs[i].(map[string]any)["resources"]
}

// TestLimitRangerDefaults: a Pod's containers and init containers get the namespace's
// LimitRange defaults where they set no limit or request (the LimitRange's own defaulting gave
// defaultRequest from default, default from max and defaultRequest from min), with the
// kubernetes.io/limit-ranger annotation naming what was set, replacing the client's.
func TestLimitRangerDefaults(t *testing.T) {
	do := pluginWorld(t)
	r := do("POST", lrRanges, "application/json", limitRange("lr", map[string]any{"type": "Container",
		"default": rl("cpu", "500m", "memory", "256Mi"), "defaultRequest": rl("cpu", "0.1")}))
	require.Equal(t, 201, r.Code, r.Object)

	r = do("POST", lrPods, "application/json", lrPod("p", []any{
		ctr("a", nil),
		ctr("b", map[string]any{"limits": rl("cpu", "1")}), // requests.cpu defaults to the limit
	}, []any{ctr("i", map[string]any{"requests": rl("memory", "1Mi")})}, nil))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, map[string]any{"limits": rl("cpu", "500m", "memory", "256Mi"), "requests": rl("cpu", "100m", "memory", "256Mi")}, resourcesOf(t, r, "containers", 0))
	assert.Equal(t, map[string]any{"limits": rl("cpu", "1", "memory", "256Mi"), "requests": rl("cpu", "1", "memory", "256Mi")}, resourcesOf(t, r, "containers", 1))
	assert.Equal(t, map[string]any{"limits": rl("cpu", "500m", "memory", "256Mi"), "requests": rl("cpu", "100m", "memory", "1Mi")}, resourcesOf(t, r, "initContainers", 0))
	ann := r.Object["metadata"].(map[string]any)["annotations"].(map[string]any)
	assert.Equal(t, "LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; "+
		"memory request for container b; memory limit for container b; cpu request for init container i; cpu, memory limit for init container i",
		ann["kubernetes.io/limit-ranger"])

	// Nothing to set: no annotation, the client's kept; a LimitRange later by name overwrites
	// the annotation of an earlier one, and an earlier one's defaults win.
	r = do("POST", lrPods, "application/json", lrPod("full", []any{ctr("a", map[string]any{"limits": rl("cpu", "1", "memory", "1Gi")})}, nil, nil))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Nil(t, r.Object["metadata"].(map[string]any)["annotations"])

	r = do("POST", lrRanges, "application/json", limitRange("zz", map[string]any{"type": "Container",
		"default": rl("cpu", "2", "ephemeral-storage", "1Gi")}))
	require.Equal(t, 201, r.Code, r.Object)
	body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"two","annotations":{"kubernetes.io/limit-ranger":"mine"}},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"a","image":"x"}]}}`
	r = do("POST", lrPods, "application/json", body)
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, map[string]any{"limits": rl("cpu", "500m", "memory", "256Mi", "ephemeral-storage", "1Gi"),
		"requests": rl("cpu", "100m", "memory", "256Mi", "ephemeral-storage", "1Gi")}, resourcesOf(t, r, "containers", 0))
	ann = r.Object["metadata"].(map[string]any)["annotations"].(map[string]any)
	assert.Equal(t, "LimitRanger plugin set: ephemeral-storage request for container a; ephemeral-storage limit for container a", ann["kubernetes.io/limit-ranger"])
}

// TestLimitRangerValidate: min, max and maxLimitRequestRatio of Container and Pod items, with
// the plugin's messages in one 403 (brackets for several, each once), and the first LimitRange
// by name with a violation is the one reported.
func TestLimitRangerValidate(t *testing.T) {
	container := func(kv ...any) map[string]any {
		m := map[string]any{"type": "Container"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	podItem := func(kv ...any) map[string]any {
		m := container(kv...)
		m["type"] = "Pod"
		return m
	}
	for _, tc := range []struct {
		name         string
		items        []map[string]any
		pod          string
		code         int
		message      string
		wantResource map[string]any
	}{
		{name: "brief", items: []map[string]any{container("min", rl("cpu", "100m"), "max", rl("memory", "1Gi"))},
			pod:  lrPod("p", []any{ctr("c", map[string]any{"requests": rl("cpu", "50m", "memory", "100Mi"), "limits": rl("memory", "2Gi")})}, nil, nil),
			code: 403, message: `pods "p" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]`},
		{name: "min limit", items: []map[string]any{container("min", rl("memory", "100Mi"))},
			pod:  lrPod("minlimit", []any{ctr("c", map[string]any{"requests": rl("memory", "100Mi"), "limits": rl("memory", "100Mi")}), ctr("d", map[string]any{"requests": rl("memory", "100Mi", "cpu", "1")})}, nil, nil),
			code: 201},
		{name: "max without limit", items: []map[string]any{container("max", rl("cpu", "1"))},
			pod:  lrPod("maxreq", []any{ctr("c", map[string]any{"requests": rl("cpu", "2")})}, nil, nil),
			code: 403, message: `pods "maxreq" is forbidden: maximum cpu usage per Container is 1.  No limit is specified`},
		{name: "ratio", items: []map[string]any{container("maxLimitRequestRatio", rl("cpu", "4"))},
			pod:  lrPod("ratio", []any{ctr("c", map[string]any{"limits": rl("cpu", "1"), "requests": rl("cpu", "0.2")})}, nil, nil),
			code: 403, message: `pods "ratio" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 5.000000`},
		{name: "ratio without limit", items: []map[string]any{container("maxLimitRequestRatio", rl("memory", "1500m"))},
			pod:  lrPod("nolimit", []any{ctr("c", map[string]any{"requests": rl("memory", "1Gi")})}, nil, nil),
			code: 403, message: `pods "nolimit" is forbidden: memory max limit to request ratio per Container is 1500m, but no limit is specified or limit is 0`},
		{name: "same violation twice once", items: []map[string]any{container("min", rl("cpu", "100m"))},
			pod: lrPod("twice", []any{
				ctr("c", map[string]any{"requests": rl("cpu", "10m")}), ctr("d", map[string]any{"requests": rl("cpu", "10m")})}, nil, nil),
			code: 403, message: `pods "twice" is forbidden: minimum cpu usage per Container is 100m, but request is 10m`},
		{name: "init containers checked", items: []map[string]any{container("min", rl("cpu", "100m"))},
			pod:  lrPod("initmin", []any{ctr("c", nil)}, []any{ctr("i", map[string]any{"requests": rl("cpu", "20m")})}, nil),
			code: 403, message: `pods "initmin" is forbidden: [minimum cpu usage per Container is 100m.  No request is specified, minimum cpu usage per Container is 100m, but request is 20m]`},
		{name: "pod sum", items: []map[string]any{podItem("max", rl("cpu", "2"))},
			pod: lrPod("sum", []any{
				ctr("c", map[string]any{"limits": rl("cpu", "800m")}), ctr("d", map[string]any{"limits": rl("cpu", "1.5")})}, nil, nil),
			code: 403, message: `pods "sum" is forbidden: maximum cpu usage per Pod is 2, but limit is 2300m`},
		{name: "pod min no request", items: []map[string]any{podItem("min", rl("memory", "16Mi"))},
			pod:  lrPod("podmin", []any{ctr("c", nil)}, nil, nil),
			code: 403, message: `pods "podmin" is forbidden: minimum memory usage per Pod is 16Mi.  No request is specified`},
		{name: "init containers at their maximum", items: []map[string]any{podItem("max", rl("cpu", "2"))},
			pod: lrPod("init", []any{ctr("c", map[string]any{"limits": rl("cpu", "1")})},
				[]any{ctr("i", map[string]any{"limits": rl("cpu", "1800m")}), ctr("j", map[string]any{"limits": rl("cpu", "1")})}, nil),
			code: 201, wantResource: map[string]any{"limits": rl("cpu", "1800m"), "requests": rl("cpu", "1800m")}},
		{name: "restartable init containers add up", items: []map[string]any{podItem("max", rl("cpu", "2"))},
			pod: lrPod("sidecar", []any{ctr("c", map[string]any{"limits": rl("cpu", "1")})},
				[]any{map[string]any{"name": "s", "image": "x", "restartPolicy": "Always", "resources": map[string]any{"limits": rl("cpu", "1500m")}}}, nil),
			code: 403, message: `pods "sidecar" is forbidden: maximum cpu usage per Pod is 2, but limit is 2500m`},
		{name: "pod-level resources override the sums", items: []map[string]any{podItem("max", rl("cpu", "2"))},
			pod: lrPod("podlevel", []any{
				ctr("c", map[string]any{"limits": rl("cpu", "800m")}), ctr("d", map[string]any{"limits": rl("cpu", "1")})}, nil,
				map[string]any{"resources": map[string]any{"limits": rl("cpu", "1900m", "memory", "2Gi")}}),
			code: 201},
		{name: "pod ratio", items: []map[string]any{podItem("maxLimitRequestRatio", rl("cpu", "2"))},
			pod: lrPod("podratio", []any{
				ctr("c", map[string]any{"limits": rl("cpu", "1"), "requests": rl("cpu", "100m")}), ctr("d", map[string]any{"limits": rl("cpu", "1"), "requests": rl("cpu", "900m")})}, nil, nil),
			code: 201},
		{name: "several resources by name", items: []map[string]any{container("min", rl("memory", "1Mi", "cpu", "1m", "ephemeral-storage", "1"))},
			pod:  lrPod("several", []any{ctr("c", nil)}, nil, nil),
			code: 403, message: `pods "several" is forbidden: [minimum cpu usage per Container is 1m.  No request is specified, minimum ephemeral-storage usage per Container is 1.  No request is specified, minimum memory usage per Container is 1Mi.  No request is specified]`},
	} {
		// Stored as given, not defaulted (a LimitRange created through the API gets
		// defaultRequest from min).
		w, err := registry.NewStatic([]map[string]any{{"apiVersion": "v1", "kind": "LimitRange",
			"metadata": map[string]any{"name": "lr", "namespace": "demo", "uid": "u", "resourceVersion": "1"},
			"spec":     map[string]any{"limits": anyList(tc.items)}}}, registry.StaticOptions{ImplicitNamespaces: true})
		require.NoError(t, err)
		r := handleIn(t, w, "POST", lrPods, "application/json", tc.pod)
		require.Equal(t, tc.code, r.Code, "%s: %v", tc.name, r.Object)
		if tc.code == 403 {
			assert.Equal(t, tc.message, r.Object["message"], tc.name)
			assert.Equal(t, "Forbidden", r.Object["reason"], tc.name)
		}
		if tc.wantResource != nil {
			assert.Equal(t, tc.wantResource, resourcesOf(t, r, "initContainers", 0), tc.name)
		}
	}

	// The first LimitRange by name with a violation answers; a later one is not asked.
	do := pluginWorld(t)
	for _, lr := range []string{
		limitRange("b", map[string]any{"type": "Container", "min": rl("cpu", "1")}),
		limitRange("a", map[string]any{"type": "Container", "min": rl("cpu", "100m")}),
	} {
		r := do("POST", lrRanges, "application/json", lr)
		require.Equal(t, 201, r.Code, r.Object)
	}
	r := do("POST", lrPods, "application/json", lrPod("first", []any{ctr("c", map[string]any{"requests": rl("cpu", "50m")})}, nil, nil))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "first" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`, r.Object["message"])
	r = do("POST", lrPods, "application/json", lrPod("second", []any{ctr("c", map[string]any{"requests": rl("cpu", "500m")})}, nil, nil))
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "second" is forbidden: minimum cpu usage per Container is 1, but request is 500m`, r.Object["message"])
}

func anyList(items []map[string]any) []any {
	out := make([]any, len(items))
	for i, x := range items {
		out[i] = x
	}
	return out
}

func handleIn(t *testing.T, w *registry.Static, method, path, ct, body string) registry.Response {
	t.Helper()
	resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: ct, Body: []byte(body)})
	require.NoError(t, err)
	require.NoError(t, w.Apply(writes))
	return resp
}

// TestLimitRangerUpdates: a Pod's update is not checked, its pods/resize is (and defaulted,
// without the annotation, which the resize strategy resets after admission);
// a claim's create and update are, unless the stored claim is being deleted.
func TestLimitRangerUpdates(t *testing.T) {
	do := pluginWorld(t)
	r := do("POST", lrPods, "application/json", lrPod("p", []any{ctr("c", map[string]any{"limits": rl("cpu", "500m", "memory", "64Mi")})}, nil, nil))
	require.Equal(t, 201, r.Code, r.Object)
	r = do("POST", lrPods, "application/json", lrPod("q", []any{ctr("c", map[string]any{"requests": rl("cpu", "700m")})}, nil, nil))
	require.Equal(t, 201, r.Code, r.Object)
	claim := `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"small"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"500Mi"}}}}`
	r = do("POST", lrClaims, "application/json", claim)
	require.Equal(t, 201, r.Code, r.Object)
	r = do("POST", lrRanges, "application/json", limitRange("lr",
		map[string]any{"type": "Container", "min": rl("cpu", "600m"), "max": rl("cpu", "2")},
		map[string]any{"type": "PersistentVolumeClaim", "min": rl("storage", "1Gi"), "max": rl("storage", "10Gi")}))
	require.Equal(t, 201, r.Code, r.Object)

	r = do("PATCH", lrPods+"/p", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	assert.Equal(t, 200, r.Code, "a Pod update is not checked: %v", r.Object)

	r = do("PATCH", lrPods+"/p/resize", "application/merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"3","memory":"64Mi"},"requests":{"cpu":"3","memory":"64Mi"}}}]}}`)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `pods "p" is forbidden: maximum cpu usage per Container is 2, but limit is 3`, r.Object["message"])

	// A resize is defaulted too (the LimitRange's default cpu limit, from its max), but the
	// resize strategy, after admission, keeps the stored annotations.
	r = do("PATCH", lrPods+"/q/resize", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"800m"}}}]}}`)
	require.Equal(t, 200, r.Code, r.Object)
	assert.Equal(t, map[string]any{"limits": rl("cpu", "2"), "requests": rl("cpu", "800m")}, resourcesOf(t, r, "containers", 0))
	assert.Nil(t, r.Object["metadata"].(map[string]any)["annotations"])

	r = do("PATCH", lrClaims+"/small", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`)
	require.Equal(t, 403, r.Code, r.Object)
	assert.Equal(t, `persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`, r.Object["message"])

	for _, tc := range []struct{ name, requests, message string }{
		{"big", `{"storage":"11Gi"}`, `persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi`},
	} {
		r = do("POST", lrClaims, "application/json", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"`+tc.name+`"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":`+tc.requests+`,"limits":{"storage":"1Gi"}}}}`)
		require.Equal(t, 403, r.Code, r.Object)
		assert.Equal(t, tc.message, r.Object["message"], tc.name)
	}

	// Deleted (the pvc-protection finalizer holds it): an update is no longer checked.
	r = do("DELETE", lrClaims+"/small", "", "")
	require.Equal(t, 200, r.Code, r.Object)
	r = do("PATCH", lrClaims+"/small", "application/merge-patch+json", `{"metadata":{"labels":{"c":"d"}}}`)
	assert.Equal(t, 200, r.Code, r.Object)
}

// FuzzLimitRanger sends Pod creates, pods/resize patches and claim creates into a namespace
// holding random LimitRanges (stored as given, any shape): Handle never panics, never modifies
// the request or the world's objects, and answers with a status.
func FuzzLimitRanger(f *testing.F) {
	seeds := []struct {
		which        uint8
		ranges, spec string
	}{
		{0, `[{"limits":[{"type":"Container","default":{"cpu":"1"},"defaultRequest":{"cpu":"100m"},"min":{"cpu":"10m"},"max":{"cpu":"2"},"maxLimitRequestRatio":{"cpu":"10"}}]}]`,
			`{"containers":[{"name":"c","image":"x"}],"initContainers":[{"name":"i","image":"x","restartPolicy":"Always","resources":{"limits":{"cpu":"3"}}}]}`},
		{0, `[{"limits":[{"type":"Pod","min":{"memory":"1Mi"},"max":{"cpu":"9223372036854775807"},"maxLimitRequestRatio":{"memory":"1e18"}}]},{"limits":[{"type":"Container","default":{"memory":1}}]}]`,
			`{"resources":{"limits":{"cpu":"1"}},"containers":[{"name":"c","image":"x","resources":{"limits":{"memory":"8Ei"}}}]}`},
		{1, `[{"limits":[{"type":"Container","max":{"cpu":"1"},"default":{"memory":"1Gi"}}]}]`,
			`{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"2"}}}]}`},
		{2, `[{"limits":[{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"},"max":{"storage":"1Ti","cpu":"1"}}]}]`,
			`{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"0.5Gi"}}}`},
		{0, `[{"limits":"x"},{"limits":[1,{"type":"Container","min":["1"],"default":{"cpu":"junk"}}]}]`, `{"containers":[{"name":"c","image":"x","resources":[]}]}`},
	}
	for _, s := range seeds {
		f.Add(s.which, s.ranges, s.spec)
	}
	f.Fuzz(func(t *testing.T, which uint8, ranges, spec string) {
		var specs []any
		if json.Unmarshal([]byte(ranges), &specs) != nil {
			return
		}
		var objSpec any
		if json.Unmarshal([]byte(spec), &objSpec) != nil {
			return
		}
		objs := []map[string]any{}
		for i, s := range specs {
			objs = append(objs, value.FromGoMap(map[string]any{"apiVersion": "v1", "kind": "LimitRange",
				"metadata": map[string]any{"name": "lr" + strconv.Itoa(i), "namespace": "demo", "uid": "u" + strconv.Itoa(i), "resourceVersion": "1"},
				"spec":     s}))
		}
		var method, path, ct string
		var body []byte
		switch which % 3 {
		case 0:
			method, path, ct = "POST", lrPods, "application/json"
			body, _ = json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": objSpec})
		case 1:
			objs = append(objs, map[string]any{"apiVersion": "v1", "kind": "Pod",
				"metadata": map[string]any{"name": "p", "namespace": "demo", "uid": "up", "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z"},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x"}}}})
			method, path, ct = "PATCH", lrPods+"/p/resize", "application/merge-patch+json"
			body, _ = json.Marshal(map[string]any{"spec": objSpec})
		default:
			method, path, ct = "POST", lrClaims, "application/json"
			body, _ = json.Marshal(map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "c"}, "spec": objSpec})
		}
		w, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true})
		if err != nil {
			return
		}
		before, err := value.DeepCopy(toAnyList(w.Objects()))
		require.NoError(t, err)
		bodyCopy := append([]byte(nil), body...)
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: ct, Body: body, Now: now})
		if err != nil {
			require.Equal(t, 500, resp.Code)
		}
		require.NotZero(t, resp.Code)
		require.Equal(t, bodyCopy, body, "the body was modified")
		require.True(t, value.Equal(before, toAnyList(w.Objects())), "the world's objects were modified")
		if resp.Code >= 400 {
			require.Empty(t, writes)
		}
	})
}
