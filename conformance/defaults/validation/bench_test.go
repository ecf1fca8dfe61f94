package validation

import (
	"math/rand"
	"os"
	goruntime "runtime"
	"sort"
	"syscall"
	"testing"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// BenchmarkPodValidate validates the same pod (the rich seed: two containers with ports, env,
// resources, mounts and probes, two volumes, node affinity, tolerations, a topology spread
// constraint), defaulted and prepared, with the reference strategy's Validate (on the internal
// object) and with writepath's Validate (on the v1 map). Run with
// `go test -run '^$' -bench PodValidate -benchmem ./validation/`.
func BenchmarkPodValidate(b *testing.B) {
	reference, writepath := benchPod(b)
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			reference()
		}
	})
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			writepath()
		}
	})
}

// benchPod is the validation of the benchmark's pod by the reference strategy and by
// writepath, each checked once to find no error.
func benchPod(tb testing.TB) (reference, writepath func()) {
	k := kinds()[0]
	r := rand.New(rand.NewSource(1))
	var obj = k.seed(r)
	for len(obj.(interface{ GetName() string }).GetName()) == 0 || !rich(obj) {
		obj = k.seed(r)
	}
	setNamespace(obj, "bench")
	in := toInternal(tb, obj)
	ctx := ctxFor(k, "bench", "create", "")
	k.create.PrepareForCreate(ctx, in)
	m := toV1Map(tb, k, in)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	if errs := k.create.Validate(ctx, in); len(errs) != 0 {
		tb.Fatal(errs)
	}
	if errs := validation.Validate(gvk, m, validation.Options{}); len(errs) != 0 {
		tb.Fatal(errs)
	}
	return func() { k.create.Validate(ctx, in) }, func() { validation.Validate(gvk, m, validation.Options{}) }
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestPodValidateCPUTime measures the process CPU time per validation of both sides of
// BenchmarkPodValidate in 21 interleaved rounds of 2,000 (median of rounds), which the other
// jobs of a shared machine disturb less than wall time. Run with WRITEPATH_CPUBENCH=1.
func TestPodValidateCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	reference, writepath := benchPod(t)
	w, a := medianCPUTime(writepath, reference)
	t.Logf("pod: writepath %.1fµs, reference %.1fµs CPU per validation, ratio %.2f", w/1000, a/1000, w/a)
}

// medianCPUTime runs writepath and reference alternately in 21 rounds of 2,000 calls each and
// returns the median process CPU time per call of each, in nanoseconds.
func medianCPUTime(writepath, reference func()) (w, a float64) {
	impls := map[string]func(){"reference": reference, "writepath": writepath}
	const rounds, perRound = 21, 2000
	samples := map[string][]float64{}
	for range rounds {
		for _, name := range []string{"writepath", "reference"} {
			goruntime.GC()
			start := cpuTime()
			for range perRound {
				impls[name]()
			}
			samples[name] = append(samples[name], float64(cpuTime()-start)/perRound)
		}
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	return med(samples["writepath"]), med(samples["reference"])
}
