package validation

import (
	"math/rand"
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// benchDeployment is a valid Deployment with a rich pod template (two containers with ports,
// env, resources, probes and mounts, an init container, volumes, affinity, tolerations, topology
// spread), prepared as the apiserver holds it before validation: the internal object for the
// reference, its v1 JSON form for writepath.
func benchDeployment(b testing.TB) (runtime.Object, map[string]any, harnessKind) {
	k := appsKinds()[0]
	r := rand.New(rand.NewSource(1))
	for {
		obj := seedDeployment(r).(*appsv1.Deployment)
		if len(obj.Spec.Template.Spec.Volumes) == 0 || obj.Spec.Strategy.Type != "" {
			continue
		}
		setNamespace(obj, "validation-pod")
		in := toInternal(b, obj)
		ctx := ctxFor(k, "validation-pod", "create", "")
		deployment.Strategy.PrepareForCreate(ctx, in)
		if errs, _ := refCreate(ctx, deployment.Strategy, in); len(errs) != 0 {
			continue
		}
		return in, toV1Map(b, k, in), k
	}
}

// BenchmarkDeploymentValidation compares a Deployment create's validation: the reference
// strategy's Validate plus declarative validation on the internal object, and
// schema/validation's Validate on the same object's JSON form.
func BenchmarkDeploymentValidation(b *testing.B) {
	in, m, k := benchDeployment(b)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	ctx := ctxFor(k, "validation-pod", "create", "")
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs, _ := refCreate(ctx, deployment.Strategy, in); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs := validation.Validate(gvk, m, validation.Options{}); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkDeploymentValidationUpdate is the same for an update that changes the image.
func BenchmarkDeploymentValidationUpdate(b *testing.B) {
	old, oldMap, k := benchDeployment(b)
	setStored(old)
	oldMap = toV1Map(b, k, old)
	next := old.DeepCopyObject()
	nextMap := toV1Map(b, k, next)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	ctx := ctxFor(k, "validation-pod", "update", "")
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs, _ := refUpdate(ctx, deployment.Strategy, next, old); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs := validation.ValidateUpdate(gvk, nextMap, oldMap, validation.Options{}); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
}

// TestDeploymentValidateCPUTime measures the process CPU time per validation of both sides of
// BenchmarkDeploymentValidation and BenchmarkDeploymentValidationUpdate as TestPodValidateCPUTime
// does (interleaved rounds, median). Run with WRITEPATH_CPUBENCH=1.
func TestDeploymentValidateCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	in, m, k := benchDeployment(t)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	createCtx := ctxFor(k, "validation-pod", "create", "")
	old := in.DeepCopyObject()
	setStored(old)
	oldMap := toV1Map(t, k, old)
	next := old.DeepCopyObject()
	nextMap := toV1Map(t, k, next)
	updateCtx := ctxFor(k, "validation-pod", "update", "")
	if errs, _ := refUpdate(updateCtx, deployment.Strategy, next, old); len(errs) != 0 {
		t.Fatal(errs)
	}
	if errs := validation.ValidateUpdate(gvk, nextMap, oldMap, validation.Options{}); len(errs) != 0 {
		t.Fatal(errs)
	}
	w, a := medianCPUTime(
		func() { validation.Validate(gvk, m, validation.Options{}) },
		func() { _, _ = refCreate(createCtx, deployment.Strategy, in) })
	t.Logf("deployment create: writepath %.1fµs, reference %.1fµs CPU per validation, ratio %.2f", w/1000, a/1000, w/a)
	w, a = medianCPUTime(
		func() { validation.ValidateUpdate(gvk, nextMap, oldMap, validation.Options{}) },
		func() { _, _ = refUpdate(updateCtx, deployment.Strategy, next, old) })
	t.Logf("deployment update: writepath %.1fµs, reference %.1fµs CPU per validation, ratio %.2f", w/1000, a/1000, w/a)
}
