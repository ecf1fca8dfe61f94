package bench

import (
	"context"
	"os"
	goruntime "runtime"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
)

// The registry benchmarks of issue 15: a strategic merge PATCH and a server-side apply of a
// Deployment answered by registry.Handle (the whole request path: routing, options, decode,
// patch or merge, typed round trip, defaults, field manager, admission phases, concurrency,
// generation, ObjectMeta and Deployment validation, storage fields, response encoding), against
// the sum of the k8s.io library calls kube-apiserver's handler chain makes for the same request:
// the storage decode of the live object, the patch handler's steps (ToUnstructured,
// StrategicMergeMapPatch, FromUnstructuredWithValidation) or the apply patcher's (the YAML body,
// FieldManager.Apply), the field manager on typed objects with client-go's scheme, the storage
// encode and the response encode. The reference leaves out what this module cannot import
// (k8s.io/kubernetes: the scheme's defaulting, the internal conversion, the Deployment strategy's
// validation) and the filters (authn/authz, audit, admission plugins with nothing configured),
// so it is cheaper than the real chain: the ratio is conservative.

var registryNow = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)

type registryImpls struct {
	names []string
	fns   map[string]func() error
}

func (r *registryImpls) add(name string, fn func() error) {
	r.names = append(r.names, name)
	r.fns[name] = fn
}

func deploymentSerializer() *serjson.Serializer {
	return serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, serjson.SerializerOptions{})
}

var deploymentGVK = k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

func typedFieldManager(tb testing.TB) *managedfields.FieldManager {
	tc := applyconfigurations.NewTypeConverter(scheme.Scheme)
	fm, err := managedfields.NewDefaultFieldManager(tc, scheme.Scheme, scheme.Scheme, scheme.Scheme, deploymentGVK, deploymentGVK.GroupVersion(), "", nil)
	require.NoError(tb, err)
	return fm
}

const registryStrategicPatch = `{"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"web","image":"registry.k8s.io/nginx-slim:0.29"}]}}}}`

func strategicRegistryImpls(tb testing.TB) *registryImpls {
	live := readObject(tb, "testdata", "codec", "bench", "deployment.yaml")
	w, err := registry.NewStatic([]map[string]any{live}, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(tb, err)
	md := live["metadata"].(map[string]any)
	path := "/apis/apps/v1/namespaces/" + md["namespace"].(string) + "/deployments/" + md["name"].(string)
	req := registry.Request{Method: "PATCH", Path: path + "?fieldManager=kubectl-patch", ContentType: registry.StrategicPatch,
		Body: []byte(registryStrategicPatch), Now: registryNow}
	resp, _, err := registry.Handle(context.Background(), w, req)
	require.NoError(tb, err)
	require.Equal(tb, 200, resp.Code, string(resp.Body))

	ser := deploymentSerializer()
	stored, err := codec.EncodeJSON(live)
	require.NoError(tb, err)
	fm := typedFieldManager(tb)
	reference := func() error {
		// storage: the live object decoded from etcd's bytes
		obj, _, err := ser.Decode(stored, &deploymentGVK, &appsv1.Deployment{})
		if err != nil {
			return err
		}
		current := obj.(*appsv1.Deployment)
		// patch.go strategicPatchObject / applyPatchToObject
		originalMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(current)
		if err != nil {
			return err
		}
		patchMap := map[string]any{}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(registryStrategicPatch), &patchMap); err != nil {
			return err
		}
		patched, err := strategicpatch.StrategicMergeMapPatch(originalMap, patchMap, &appsv1.Deployment{})
		if err != nil {
			return err
		}
		out := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patched, out, true); err != nil {
			return err
		}
		// the field manager's Update
		newObj := fm.UpdateNoErrors(current, out, "kubectl-patch")
		// storage: encode, compare with the stored bytes; the response encode
		data, err := runtime.Encode(ser, newObj)
		if err != nil {
			return err
		}
		_ = string(data) == string(stored)
		_, err = runtime.Encode(ser, newObj)
		return err
	}
	require.NoError(tb, reference())
	impls := &registryImpls{fns: map[string]func() error{}}
	impls.add("writepath", func() error {
		_, _, err := registry.Handle(context.Background(), w, req)
		return err
	})
	impls.add("reference", reference)
	return impls
}

func applyRegistryImpls(tb testing.TB) *registryImpls {
	live := liveWithFiveManagers(tb)
	w, err := registry.NewStatic([]map[string]any{live}, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(tb, err)
	req := registry.Request{Method: "PATCH", Path: "/apis/apps/v1/namespaces/versions-examples/deployments/web?fieldManager=alice",
		ContentType: registry.ApplyPatch, Body: []byte(benchApply), Now: registryNow}
	resp, _, err := registry.Handle(context.Background(), w, req)
	require.NoError(tb, err)
	require.Equal(tb, 200, resp.Code, string(resp.Body))

	ser := deploymentSerializer()
	stored, err := codec.EncodeJSON(live)
	require.NoError(tb, err)
	fm := typedFieldManager(tb)
	reference := func() error {
		obj, _, err := ser.Decode(stored, &deploymentGVK, &appsv1.Deployment{})
		if err != nil {
			return err
		}
		// patch.go applyPatcher: the YAML body, then FieldManager.Apply
		patchObj := &unstructured.Unstructured{Object: map[string]any{}}
		if err := sigsyaml.Unmarshal([]byte(benchApply), &patchObj.Object); err != nil {
			return err
		}
		newObj, err := fm.Apply(obj, patchObj, "alice", false)
		if err != nil {
			return err
		}
		if _, err := runtime.Encode(ser, newObj); err != nil {
			return err
		}
		_, err = runtime.Encode(ser, newObj)
		return err
	}
	require.NoError(tb, reference())
	impls := &registryImpls{fns: map[string]func() error{}}
	impls.add("writepath", func() error {
		_, _, err := registry.Handle(context.Background(), w, req)
		return err
	})
	impls.add("reference", reference)
	return impls
}

func (r *registryImpls) bench(b *testing.B) {
	for _, name := range r.names {
		fn := r.fns[name]
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

func BenchmarkRegistryStrategicPatchDeployment(b *testing.B) { strategicRegistryImpls(b).bench(b) }
func BenchmarkRegistryApplyDeployment(b *testing.B)          { applyRegistryImpls(b).bench(b) }

// TestRegistryCPUTime measures the process CPU time (user+system, GC included) per request of
// each implementation, interleaved over rounds (steadier than wall time on a shared machine).
// Run with WRITEPATH_CPUBENCH=1; it never asserts timings.
func TestRegistryCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	for _, c := range []struct {
		name  string
		impls *registryImpls
	}{
		{"StrategicPatchDeployment", strategicRegistryImpls(t)},
		{"ApplyDeployment", applyRegistryImpls(t)},
	} {
		const rounds, perRound = 15, 200
		samples := map[string][]float64{}
		allocs := map[string]float64{}
		for r := 0; r < rounds; r++ {
			for _, name := range c.impls.names {
				fn := c.impls.fns[name]
				goruntime.GC()
				var before, after goruntime.MemStats
				goruntime.ReadMemStats(&before)
				start := cpuTime()
				for i := 0; i < perRound; i++ {
					if err := fn(); err != nil {
						t.Fatal(err)
					}
				}
				samples[name] = append(samples[name], float64(cpuTime()-start)/perRound/1e3)
				goruntime.ReadMemStats(&after)
				allocs[name] += float64(after.Mallocs-before.Mallocs) / perRound / rounds
			}
		}
		med := map[string]float64{}
		for _, name := range c.impls.names {
			s := append([]float64(nil), samples[name]...)
			sort.Float64s(s)
			med[name] = s[len(s)/2]
			t.Logf("%s %-10s median %.1f µs CPU/op (min %.1f, max %.1f, %d rounds x %d), %.0f allocs/op", c.name, name, med[name], s[0], s[len(s)-1], rounds, perRound, allocs[name])
		}
		t.Logf("%s writepath/reference = %.3f (allocs %.3f)", c.name, med["writepath"]/med["reference"], allocs["writepath"]/allocs["reference"])
	}
}
