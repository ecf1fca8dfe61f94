package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	jsonpatchv5 "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
)

// Patch benchmarks (issue 4), writepath side by side with the code the
// apiserver and kubectl run. Sub-benchmarks are impl=writepath and
// impl=reference (and impl=v5 for raw github.com/evanphx/json-patch/v5);
// compare with `benchstat -col /impl`.
//
// The reference is timed on what it needs per call: StrategicMergeMapPatch
// mutates its inputs, so it gets a fresh copy of the live object (the
// apiserver builds one with ToUnstructured) and decodes the patch bytes (as
// the apiserver does). writepath takes the live object and the patch bytes
// and never mutates them.

func readObject(b *testing.B, parts ...string) map[string]any {
	data, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, parts...)...))
	require.NoError(b, err)
	obj, err := codec.DecodeObject(data)
	require.NoError(b, err)
	return obj
}

func copyExact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyExact(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = copyExact(e)
		}
		return s
	}
	return v
}

func builtinMeta(b *testing.B, gvk schema.GroupVersionKind) merge.Meta {
	k, err := schema.Builtin(gvk)
	require.NoError(b, err)
	m, err := merge.KindMeta(k)
	require.NoError(b, err)
	return m
}

const podSMP = `{"metadata":{"labels":{"version":"2.3.2"},"$deleteFromPrimitiveList/finalizers":["example.com/cleanup"]},` +
	`"spec":{"containers":[{"name":"app","image":"shop/web:2.3.2","env":[{"name":"FEATURE_X","value":"on"},{"name":"DB_PORT","$patch":"delete"}]},` +
	`{"name":"proxy","resources":{"limits":{"memory":"128Mi"}}}],"$setElementOrder/containers":[{"name":"app"},{"name":"proxy"}]}}`

func BenchmarkPatchStrategicPod(b *testing.B) {
	pod := readObject(b, "testdata", "patch", "bench", "pod.yaml")
	meta := builtinMeta(b, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	p := []byte(podSMP)
	want, err := merge.ApplyStrategic(pod, p, meta, merge.Options{})
	require.NoError(b, err)
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := merge.ApplyStrategic(pod, p, meta, merge.Options{FieldValidation: merge.FieldValidationIgnore}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the apiserver's strategicPatchObject runs: the typed live object
	// converted with ToUnstructured, the patch decoded, the merge.
	typed := &corev1.Pod{}
	require.NoError(b, json.Unmarshal(mustMarshal(b, pod), typed))
	b.Run("impl=reference-apiserver-path", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			orig, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
			if err != nil {
				b.Fatal(err)
			}
			var pm map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(p, &pm); err != nil {
				b.Fatal(err)
			}
			if _, err := strategicpatch.StrategicMergeMapPatch(orig, pm, &corev1.Pod{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var pm map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(p, &pm); err != nil {
				b.Fatal(err)
			}
			res, err := strategicpatch.StrategicMergeMapPatch(copyExact(pod).(map[string]any), pm, &corev1.Pod{})
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				require.Equal(b, want.Object, map[string]any(res))
			}
		}
	})
}

func BenchmarkPatchThreeWayDeployment(b *testing.B) {
	live := readObject(b, "testdata", "codec", "bench", "deployment.yaml")
	meta := builtinMeta(b, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	// last-applied: the live object without status and server fields; the new
	// config changes the image, the replicas and one env var.
	original := copyExact(live).(map[string]any)
	delete(original, "status")
	md := original["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "annotations"} {
		delete(md, k)
	}
	modified := copyExact(original).(map[string]any)
	modified["spec"].(map[string]any)["replicas"] = int64(5)
	modified["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "release": "2"}
	oj, mj, cj := mustMarshal(b, original), mustMarshal(b, modified), mustMarshal(b, live)
	want, err := merge.CreateThreeWayStrategic(original, modified, live, meta, true)
	require.NoError(b, err)
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := merge.CreateThreeWayStrategic(original, modified, live, meta, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		lookup, err := strategicpatch.NewPatchMetaFromStruct(&appsv1Deployment)
		require.NoError(b, err)
		for i := 0; i < b.N; i++ {
			p, err := strategicpatch.CreateThreeWayMergePatch(oj, mj, cj, lookup, true)
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				require.Equal(b, string(want), string(p))
			}
		}
	})
}

func mustMarshal(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	require.NoError(b, err)
	return out
}

const deploymentJSONPatch = `[{"op":"replace","path":"/spec/replicas","value":5},` +
	`{"op":"add","path":"/metadata/labels/release","value":"2"},` +
	`{"op":"test","path":"/metadata/name","value":"web"},` +
	`{"op":"add","path":"/spec/template/spec/containers/0/env","value":[{"name":"FEATURE_X","value":"on"}]},` +
	`{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.27.3"}]`

// BenchmarkPatchJSONPatch: writepath's ApplyJSONPatch (object in, object out)
// against raw json-patch v4 and v5 (bytes in, bytes out: decode the patch,
// apply to the object's JSON), and against the apiserver's whole path (encode
// the object, v4, decode the result).
func BenchmarkPatchJSONPatch(b *testing.B) {
	obj := readObject(b, "testdata", "codec", "bench", "deployment.yaml")
	obj["metadata"].(map[string]any)["name"] = "web"
	doc := mustMarshal(b, obj)
	p := []byte(deploymentJSONPatch)
	if _, err := patch.ApplyJSONPatch(obj, p, patch.Options{}); err != nil {
		b.Fatal(err)
	}
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := patch.ApplyJSONPatch(obj, p, patch.Options{FieldValidation: patch.FieldValidationIgnore}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ops, err := jsonpatch.DecodePatch(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ops.Apply(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=v5", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ops, err := jsonpatchv5.DecodePatch(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ops.Apply(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reference-apiserver-path", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			d, err := json.Marshal(obj)
			if err != nil {
				b.Fatal(err)
			}
			ops, err := jsonpatch.DecodePatch(p)
			if err != nil {
				b.Fatal(err)
			}
			out, err := ops.Apply(d)
			if err != nil {
				b.Fatal(err)
			}
			var res map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(out, &res); err != nil {
				b.Fatal(err)
			}
		}
	})
}

const deploymentMergePatch = `{"metadata":{"labels":{"release":"2","tier":null}},"spec":{"replicas":5,"template":{"metadata":{"annotations":null}}}}`

func BenchmarkPatchMergePatch(b *testing.B) {
	obj := readObject(b, "testdata", "codec", "bench", "deployment.yaml")
	doc := mustMarshal(b, obj)
	p := []byte(deploymentMergePatch)
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := merge.ApplyMergePatch(obj, p, merge.Options{FieldValidation: merge.FieldValidationIgnore}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonpatch.MergePatch(doc, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=v5", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonpatchv5.MergePatch(doc, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var appsv1Deployment appsv1.Deployment
