package deployment

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordedWithReplicaSets are the recordings from the real 1.37 control plane that hold
// ReplicaSets kube-controller-manager created for Deployments (testdata/README.md says how
// each was recorded).
var recordedWithReplicaSets = []string{
	"../../testdata/controllers/rollout-recreate.json",
	"../../testdata/controllers/rollout-rolling.json",
	"../../testdata/registry/recorded/deployment.json",
	"../../testdata/gc/recorded/deployment.json",
	"../../testdata/cluster/scenarios/recorded/kubectl.json",
	"../../testdata/cluster/scenarios/recorded/workloads.json",
	"../../testdata/cluster/scenarios/recorded/gc.json",
	"../../testdata/cluster/scenarios/recorded/subresources.json",
}

// TestComputeHashRecorded: for every ReplicaSet a Deployment owns in the recordings, the
// pod-template-hash the real controller gave it is ComputeHash of its template without that
// label (the Deployment's template when the controller created it) and the Deployment's
// collisionCount (none in these recordings), and the name is ReplicaSetName.
func TestComputeHashRecorded(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range recordedWithReplicaSets {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		require.NoError(t, dec.Decode(&v))
		var rss []Object
		collectReplicaSets(v, &rss)
		for _, rs := range rss {
			owner := controllerOwner(rs)
			tmpl, _ := rs["spec"].(map[string]any)["template"].(map[string]any)
			want := stringAt(tmpl, "metadata", "labels", PodTemplateHashLabel)
			if owner == "" || want == "" {
				continue
			}
			key := filepath.Base(path) + " " + stringAt(rs, "metadata", "name")
			if seen[key] {
				continue
			}
			seen[key] = true
			got := ComputeHash(templateWithoutHash(tmpl), nil)
			assert.Equal(t, want, got, "%s: pod-template-hash", key)
			assert.Equal(t, stringAt(rs, "metadata", "name"), ReplicaSetName(owner, got), "%s: name", key)
		}
	}
	require.NotEmpty(t, seen, "no recorded ReplicaSets found")
	t.Logf("%d recorded ReplicaSets", len(seen))
}

// collectReplicaSets finds ReplicaSet objects anywhere in a recording, JSON bodies held as
// strings included.
func collectReplicaSets(v any, out *[]Object) {
	switch x := v.(type) {
	case map[string]any:
		if x["kind"] == "ReplicaSet" {
			if spec, ok := x["spec"].(map[string]any); ok && spec["template"] != nil {
				*out = append(*out, Object(numbersToInt64(x).(map[string]any)))
			}
		}
		for _, e := range x {
			collectReplicaSets(e, out)
		}
	case []any:
		for _, e := range x {
			collectReplicaSets(e, out)
		}
	case string:
		if strings.HasPrefix(x, "{") && strings.Contains(x, `"ReplicaSet"`) {
			dec := json.NewDecoder(strings.NewReader(x))
			dec.UseNumber()
			var b any
			if dec.Decode(&b) == nil {
				collectReplicaSets(b, out)
			}
		}
	}
}

// numbersToInt64 turns json.Number into int64 (float64 when not an integer), as the object
// model holds numbers.
func numbersToInt64(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = numbersToInt64(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = numbersToInt64(e)
		}
		return l
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func controllerOwner(o Object) string {
	refs, _ := o["metadata"].(map[string]any)["ownerReferences"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if m["kind"] == "Deployment" && m["controller"] == true {
			s, _ := m["name"].(string)
			return s
		}
	}
	return ""
}

func stringAt(m map[string]any, keys ...string) string {
	for i, k := range keys {
		if i == len(keys)-1 {
			s, _ := m[k].(string)
			return s
		}
		m, _ = m[k].(map[string]any)
	}
	return ""
}

// TestComputeHashCollisionCount: the collision count changes the hash (its 8 bytes follow the
// dump), and none differs from 0.
func TestComputeHashCollisionCount(t *testing.T) {
	tmpl := Object{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	zero, one := int64(0), int64(1)
	h, h0, h1 := ComputeHash(tmpl, nil), ComputeHash(tmpl, &zero), ComputeHash(tmpl, &one)
	assert.NotEqual(t, h, h0)
	assert.NotEqual(t, h0, h1)
	assert.Equal(t, h, ComputeHash(tmpl, nil), "deterministic")
}

// TestTemplateDumpShape pins the dump's form on a small template: every field of the typed
// PodTemplateSpec in Go order with its type, nil pointers, lists and maps as <nil>, map keys
// sorted, list elements and map values without their type, quantities with their internals.
func TestTemplateDumpShape(t *testing.T) {
	d, err := TemplateDump(Object{"metadata": map[string]any{"labels": map[string]any{"b": "1", "a": "2"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c",
			"resources": map[string]any{"limits": map[string]any{"cpu": "100m"}}}}}})
	require.NoError(t, err)
	for _, want := range []string{
		"(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) ",
		"CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> ",
		"Labels:(map[string]string)map[a:2 b:1] Annotations:(map[string]string)<nil> ",
		"Containers:([]v1.Container)[{Name:(string)c Image:(string) Command:([]string)<nil> ",
		"Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)100 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)100m Format:(resource.Format)DecimalSI}] Requests:(v1.ResourceList)<nil>",
	} {
		assert.Contains(t, d, want)
	}
}

// TestTemplateDumpNotMutating: ComputeHash and TemplateDump leave their input as it was.
func TestTemplateDumpNotMutating(t *testing.T) {
	tmpl := Object{"metadata": map[string]any{"labels": map[string]any{"app": "web"}, "creationTimestamp": "2024-01-02T03:04:05Z"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "ports": []any{}, "livenessProbe": map[string]any{"httpGet": map[string]any{"port": int64(80)}}}}}}
	before, _ := json.Marshal(tmpl)
	_ = ComputeHash(tmpl, nil)
	_, _ = TemplateDump(tmpl)
	after, _ := json.Marshal(tmpl)
	assert.JSONEq(t, string(before), string(after))
}

// TestGeneratedShapesUpToDate regenerates data/podtemplatespec.json.gz with
// internal/gen/spewshapes and fails if the committed file differs.
func TestGeneratedShapesUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not found: cannot run internal/gen/spewshapes to check data/ is up to date")
	}
	cmd := exec.Command(goBin, "run", "-C", "../../internal/gen", "./spewshapes", "-verify", "-out", "../../controllers/deployment/data")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "data/podtemplatespec.json.gz is stale or the generator failed:\n%s", out)
}

func BenchmarkComputeHash(b *testing.B) {
	small := Object{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1",
			"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
			"resources": map[string]any{}}},
			"restartPolicy": "Always", "terminationGracePeriodSeconds": int64(30), "dnsPolicy": "ClusterFirst",
			"securityContext": map[string]any{}, "schedulerName": "default-scheduler"}}
	large := Object{"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "frontend"},
		"annotations": map[string]any{"a": "b"}}, "spec": map[string]any{}}
	var containers []any
	for _, name := range []string{"app", "sidecar", "proxy"} {
		containers = append(containers, map[string]any{"name": name, "image": "registry/" + name + ":1.2.3",
			"args": []any{"--port=8080", "--v=2"}, "env": []any{map[string]any{"name": "A", "value": "1"},
				map[string]any{"name": "B", "valueFrom": map[string]any{"fieldRef": map[string]any{"apiVersion": "v1", "fieldPath": "metadata.name"}}}},
			"ports":     []any{map[string]any{"containerPort": int64(8080), "protocol": "TCP", "name": "http"}},
			"resources": map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "512Mi"}, "requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
			"livenessProbe": map[string]any{"httpGet": map[string]any{"path": "/healthz", "port": "http", "scheme": "HTTP"},
				"periodSeconds": int64(10), "timeoutSeconds": int64(1), "successThreshold": int64(1), "failureThreshold": int64(3)},
			"volumeMounts":    []any{map[string]any{"name": "data", "mountPath": "/data"}},
			"securityContext": map[string]any{"runAsNonRoot": true, "capabilities": map[string]any{"drop": []any{"ALL"}}},
			"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"})
	}
	large["spec"].(map[string]any)["containers"] = containers
	large["spec"].(map[string]any)["volumes"] = []any{map[string]any{"name": "data", "emptyDir": map[string]any{"sizeLimit": "1Gi"}},
		map[string]any{"name": "cfg", "configMap": map[string]any{"name": "cfg", "defaultMode": int64(420)}}}
	for _, c := range []struct {
		name string
		tmpl Object
	}{{"template=small", small}, {"template=large", large}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ComputeHash(c.tmpl, nil)
			}
		})
	}
}
