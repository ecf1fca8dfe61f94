package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
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
// Both sides get the same inputs (the decoded live object and the patch
// bytes) and do the same work: decode the patch, merge, and leave a fresh
// result with the live object untouched. StrategicMergeMapPatch modifies the
// map it merges into, so impl=reference merges into runtime.DeepCopyJSON of
// the live object (impl=reference-apiserver-path: into ToUnstructured of the
// typed object, as the apiserver's handler does); writepath copies
// internally. impl=copy-only is that deep copy alone: the floor of any
// implementation that returns a fresh object (the no-aliasing invariant),
// about half of impl=reference on the Pod (TestPatchCPUTime).

func readObject(tb testing.TB, parts ...string) map[string]any {
	data, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, parts...)...))
	require.NoError(tb, err)
	obj, err := codec.DecodeObject(data)
	require.NoError(tb, err)
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

func builtinMeta(tb testing.TB, gvk schema.GroupVersionKind) merge.Meta {
	k, err := schema.Builtin(gvk)
	require.NoError(tb, err)
	m, err := merge.KindMeta(k)
	require.NoError(tb, err)
	return m
}

const podSMP = `{"metadata":{"labels":{"version":"2.3.2"},"$deleteFromPrimitiveList/finalizers":["example.com/cleanup"]},` +
	`"spec":{"containers":[{"name":"app","image":"shop/web:2.3.2","env":[{"name":"FEATURE_X","value":"on"},{"name":"DB_PORT","$patch":"delete"}]},` +
	`{"name":"proxy","resources":{"limits":{"memory":"128Mi"}}}],"$setElementOrder/containers":[{"name":"app"},{"name":"proxy"}]}}`

// patchImpls returns the implementations compared by a patch benchmark, each
// one call of the operation on the same inputs, after checking once that they
// agree.
type patchImpls struct {
	names []string
	fns   map[string]func() error
}

func (p *patchImpls) add(name string, fn func() error) {
	p.names = append(p.names, name)
	p.fns[name] = fn
}

func (p *patchImpls) bench(b *testing.B) {
	for _, name := range p.names {
		fn := p.fns[name]
		b.Run("impl="+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func strategicPodImpls(tb testing.TB) *patchImpls {
	pod := readObject(tb, "testdata", "patch", "bench", "pod.yaml")
	meta := builtinMeta(tb, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	p := []byte(podSMP)
	want, err := merge.ApplyStrategic(pod, p, meta, merge.Options{})
	require.NoError(tb, err)
	impls := &patchImpls{fns: map[string]func() error{}}
	// writepath: the live object and the patch bytes in, a fresh object out
	// (both arguments left untouched).
	impls.add("writepath", func() error {
		_, err := merge.ApplyStrategic(pod, p, meta, merge.Options{FieldValidation: schema.FieldValidationIgnore})
		return err
	})
	// What the apiserver's strategicPatchObject runs: the typed live object
	// converted with ToUnstructured, the patch decoded, the merge.
	typed := &corev1.Pod{}
	require.NoError(tb, json.Unmarshal(mustMarshal(tb, pod), typed))
	impls.add("reference-apiserver-path", func() error {
		orig, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			return err
		}
		var pm map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(p, &pm); err != nil {
			return err
		}
		_, err = strategicpatch.StrategicMergeMapPatch(orig, pm, &corev1.Pod{})
		return err
	})
	// The bare library on the same inputs as writepath's: it modifies the
	// object it merges into, so it merges into a deep copy of the live object
	// (runtime.DeepCopyJSON, what a caller of the library uses), and it
	// decodes the same patch bytes.
	impls.add("reference", func() error {
		var pm map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(p, &pm); err != nil {
			return err
		}
		_, err := strategicpatch.StrategicMergeMapPatch(runtime.DeepCopyJSON(pod), pm, &corev1.Pod{})
		return err
	})
	// Not a patch: one deep copy of the live object, the least any
	// implementation that returns a fresh object and leaves its input
	// untouched does (writepath's invariant, the reference's copy above).
	impls.add("copy-only", func() error {
		runtime.DeepCopyJSON(pod)
		return nil
	})
	var pm map[string]any
	require.NoError(tb, kjson.UnmarshalCaseSensitivePreserveInts(p, &pm))
	res, err := strategicpatch.StrategicMergeMapPatch(runtime.DeepCopyJSON(pod), pm, &corev1.Pod{})
	require.NoError(tb, err)
	require.Equal(tb, map[string]any(res), want.Object)
	return impls
}

func BenchmarkPatchStrategicPod(b *testing.B) { strategicPodImpls(b).bench(b) }

func threeWayDeploymentImpls(tb testing.TB) *patchImpls {
	live := readObject(tb, "testdata", "codec", "bench", "deployment.yaml")
	meta := builtinMeta(tb, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
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
	oj, mj, cj := mustMarshal(tb, original), mustMarshal(tb, modified), mustMarshal(tb, live)
	want, err := merge.CreateThreeWayStrategic(original, modified, live, meta, true)
	require.NoError(tb, err)
	lookup, err := strategicpatch.NewPatchMetaFromStruct(&appsv1Deployment)
	require.NoError(tb, err)
	got, err := strategicpatch.CreateThreeWayMergePatch(oj, mj, cj, lookup, true)
	require.NoError(tb, err)
	require.Equal(tb, string(want), string(got))
	impls := &patchImpls{fns: map[string]func() error{}}
	impls.add("writepath", func() error {
		_, err := merge.CreateThreeWayStrategic(original, modified, live, meta, true)
		return err
	})
	impls.add("reference", func() error {
		_, err := strategicpatch.CreateThreeWayMergePatch(oj, mj, cj, lookup, true)
		return err
	})
	return impls
}

func BenchmarkPatchThreeWayDeployment(b *testing.B) { threeWayDeploymentImpls(b).bench(b) }

// TestPatchCPUTime measures the process CPU time (user+system, GC included)
// per call of each implementation of the strategic benchmarks, interleaved
// over rounds: on a shared, loaded machine it is far steadier than wall time.
// Run with WRITEPATH_CPUBENCH=1; it never asserts timings.
func TestPatchCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	for _, c := range []struct {
		name  string
		impls *patchImpls
	}{
		{"StrategicPod", strategicPodImpls(t)},
		{"ThreeWayDeployment", threeWayDeploymentImpls(t)},
	} {
		const rounds, perRound = 21, 1000
		samples := map[string][]float64{}
		for r := 0; r < rounds; r++ {
			for _, name := range c.impls.names {
				fn := c.impls.fns[name]
				goruntime.GC()
				start := cpuTime()
				for i := 0; i < perRound; i++ {
					if err := fn(); err != nil {
						t.Fatal(err)
					}
				}
				samples[name] = append(samples[name], float64(cpuTime()-start)/perRound/1e3)
			}
		}
		med := map[string]float64{}
		for _, name := range c.impls.names {
			s := samples[name]
			sort.Float64s(s)
			med[name] = s[len(s)/2]
			t.Logf("%s %-26s median %6.2f µs CPU/op (min %.2f, max %.2f, %d rounds x %d)", c.name, name, med[name], s[0], s[len(s)-1], rounds, perRound)
		}
		for _, name := range c.impls.names[1:] {
			t.Logf("%s writepath/%s = %.2f", c.name, name, med["writepath"]/med[name])
		}
	}
}

func mustMarshal(tb testing.TB, v any) []byte {
	out, err := json.Marshal(v)
	require.NoError(tb, err)
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
			if _, err := patch.ApplyJSONPatch(obj, p, patch.Options{FieldValidation: schema.FieldValidationIgnore}); err != nil {
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
			if _, err := merge.ApplyMergePatch(obj, p, merge.Options{FieldValidation: schema.FieldValidationIgnore}); err != nil {
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
