package validation

import (
	"math/rand"
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
func benchDeployment(b *testing.B) (runtime.Object, map[string]any, harnessKind) {
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
