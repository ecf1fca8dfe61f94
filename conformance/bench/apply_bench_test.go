package bench

import (
	"os"
	goruntime "runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	wmf "github.com/writepath/writepath/managedfields"
	wschema "github.com/writepath/writepath/schema"
)

// The apply benchmark of the issue: a Deployment config applied to a live Deployment (the one
// recorded from the real cluster in testdata/examples) that has 5 managers.

func applyObj(b testing.TB, y string) map[string]any {
	m, err := codec.DecodeObject([]byte(y))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

var applyT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const benchConfig = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: versions-examples, labels: {app: web, team: a}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/nginx-slim:0.28
        ports: [{containerPort: 80}]
`

// liveWithFiveManagers builds the live object: the recorded Deployment created by an update,
// then four appliers on different fields.
func liveWithFiveManagers(b testing.TB) map[string]any {
	data, err := os.ReadFile("../../testdata/examples/deployment.yaml")
	if err != nil {
		b.Fatal(err)
	}
	created, err := apply.Update(apply.UpdateRequest{Object: applyObj(b, string(data)), Manager: "kubectl-create", Now: applyT0})
	if err != nil || created.Fallback != nil {
		b.Fatal(err, created.Fallback)
	}
	live := created.Object
	steps := []struct{ manager, config string }{
		{"alice", benchConfig},
		{"bob", "metadata: {name: web, namespace: versions-examples, annotations: {owner: bob}}\napiVersion: apps/v1\nkind: Deployment"},
		{"carol", "metadata: {name: web, namespace: versions-examples}\napiVersion: apps/v1\nkind: Deployment\nspec: {minReadySeconds: 5, template: {spec: {containers: [{name: web, env: [{name: A, value: '1'}]}]}}}"},
		{"dave", "metadata: {name: web, namespace: versions-examples}\napiVersion: apps/v1\nkind: Deployment\nspec: {revisionHistoryLimit: 5}"},
	}
	for i, s := range steps {
		r, err := apply.Apply(apply.Request{Live: live, Config: applyObj(b, s.config), Manager: s.manager, Force: true, Now: applyT0.Add(time.Duration(i+1) * time.Minute)})
		if err != nil {
			b.Fatal(err)
		}
		live = r.Object
	}
	entries, _, _ := wmf.FromObject(live)
	if len(entries) != 5 {
		b.Fatalf("%d managers", len(entries))
	}
	return live
}

// the applied config changes the image: a real merge, not a no-op.
var benchApply = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: versions-examples, labels: {app: web, team: a}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/nginx-slim:0.29
        ports: [{containerPort: 80}]
`

// applyImpls returns one apply of benchApply onto the 5-manager Deployment per implementation.
func applyImpls(b testing.TB) map[string]func() {
	live := liveWithFiveManagers(b)
	config := applyObj(b, benchApply)
	gvk := k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	tc := applyconfigurations.NewTypeConverter(scheme.Scheme)
	fm, err := managedfields.NewDefaultFieldManager(tc, benchConvertor{}, benchDefaulter{}, benchCreater{}, gvk, gvk.GroupVersion(), "", nil)
	if err != nil {
		b.Fatal(err)
	}
	k, err := wschema.Builtin(wschema.GroupVersionKind(gvk))
	if err != nil {
		b.Fatal(err)
	}
	pt, err := k.SMDType()
	if err != nil {
		b.Fatal(err)
	}
	entries, _, _ := wmf.FromObject(live)
	managed, err := wmf.Decode(entries)
	if err != nil {
		b.Fatal(err)
	}
	bare := liveWithoutManagedFields(live)
	u := merge.Updater{Converter: nopConverter{}}
	// The reference chain neither changes its inputs nor needs fresh ones (checked here once), so
	// it is timed without copying them; writepath never changes its inputs either.
	liveBefore, configBefore := runtime.DeepCopyJSON(live), runtime.DeepCopyJSON(config)
	if _, err := fm.Apply(&unstructured.Unstructured{Object: live}, &unstructured.Unstructured{Object: config}, "alice", false); err != nil {
		b.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(live, liveBefore) || !equality.Semantic.DeepEqual(config, configBefore) {
		b.Fatal("the reference chain changed its inputs: time it on copies")
	}
	return map[string]func(){
		// The reference chain above is built with a no-op defaulter (benchDefaulter), so
		// writepath runs without defaulting too (NoDefault); "writepath+defaults" is Apply as
		// called by default, with the scheme's defaulting of the merged Deployment (built-in
		// defaulting has no counterpart in the unstructured reference chain).
		"writepath": func() {
			if _, err := apply.Apply(apply.Request{Live: live, Config: config, Manager: "alice", Now: applyT0.Add(time.Hour), Default: apply.NoDefault}); err != nil {
				b.Fatal(err)
			}
		},
		"writepath+defaults": func() {
			if _, err := apply.Apply(apply.Request{Live: live, Config: config, Manager: "alice", Now: applyT0.Add(time.Hour)}); err != nil {
				b.Fatal(err)
			}
		},
		"reference": func() {
			if _, err := fm.Apply(&unstructured.Unstructured{Object: live}, &unstructured.Unstructured{Object: config}, "alice", false); err != nil {
				b.Fatal(err)
			}
		},
		"smd-updater": func() {
			lt, err := pt.FromUnstructured(bare, typed.AllowDuplicates)
			if err != nil {
				b.Fatal(err)
			}
			ct, err := pt.FromUnstructured(config)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := u.Apply(lt, ct, "apps/v1", managed.Fields, `{"manager":"alice","operation":"Apply"}`, false); err != nil {
				b.Fatal(err)
			}
		},
	}
}

var applyImplNames = []string{"writepath", "writepath+defaults", "reference", "smd-updater"}

func BenchmarkApplyDeployment(b *testing.B) {
	impls := applyImpls(b)
	for _, name := range applyImplNames {
		run := impls[name]
		b.Run("impl="+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				run()
			}
		})
	}
}

func liveWithoutManagedFields(live map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range live {
		out[k] = v
	}
	md := map[string]any{}
	for k, v := range live["metadata"].(map[string]any) {
		if k != "managedFields" {
			md[k] = v
		}
	}
	out["metadata"] = md
	return out
}

type nopConverter struct{}

func (nopConverter) Convert(o *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return o, nil
}
func (nopConverter) IsMissingVersionError(error) bool { return false }

type benchCreater struct{}

func (benchCreater) New(gvk k8sschema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

type benchConvertor struct{}

func (benchConvertor) Convert(in, out, context any) error { return nil }
func (benchConvertor) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (benchConvertor) ConvertFieldLabel(k8sschema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", nil
}

type benchDefaulter struct{}

func (benchDefaulter) Default(runtime.Object) {}

var _ = sigsyaml.Marshal

// TestApplyCPUTime measures the process CPU time (user+system, GC included) per apply of each
// implementation, interleaved over rounds; on a shared, loaded machine it is far steadier than
// wall time. Run with WRITEPATH_CPUBENCH=1.
func TestApplyCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	impls := applyImpls(t)
	names := applyImplNames
	const rounds, perRound = 15, 200
	samples := map[string][]float64{}
	allocs := map[string]float64{}
	for r := 0; r < rounds; r++ {
		for _, name := range names {
			goruntime.GC()
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			start := cpuTime()
			for i := 0; i < perRound; i++ {
				impls[name]()
			}
			samples[name] = append(samples[name], float64(cpuTime()-start)/perRound/1e3)
			goruntime.ReadMemStats(&after)
			allocs[name] += float64(after.Mallocs-before.Mallocs) / perRound / rounds
		}
	}
	med := map[string]float64{}
	for _, name := range names {
		s := append([]float64(nil), samples[name]...)
		sort.Float64s(s)
		med[name] = s[len(s)/2]
		t.Logf("%-18s median %.1f µs CPU/op (min %.1f, max %.1f, %d rounds x %d), %.0f allocs/op", name, med[name], s[0], s[len(s)-1], rounds, perRound, allocs[name])
	}
	t.Logf("writepath/reference = %.3f (allocs %.3f), writepath/smd-updater = %.3f (allocs %.3f)",
		med["writepath"]/med["reference"], allocs["writepath"]/allocs["reference"],
		med["writepath"]/med["smd-updater"], allocs["writepath"]/allocs["smd-updater"])
}

func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
