package validation

import (
	"math/rand"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// BenchmarkStatefulSetValidation compares a StatefulSet create's validation (a rich pod
// template and volume claim templates): the reference strategy's Validate plus declarative
// validation on the internal object, and schema/validation's Validate on its JSON form.
func BenchmarkStatefulSetValidation(b *testing.B) {
	k := workloadKinds()[0]
	r := rand.New(rand.NewSource(1))
	ctx := ctxFor(k, "validation-pod", "create", "")
	var m map[string]any
	var in runtime.Object
	for {
		obj := seedStatefulSet(r).(*appsv1.StatefulSet)
		if len(obj.Spec.Template.Spec.Volumes) == 0 || len(obj.Spec.VolumeClaimTemplates) == 0 {
			continue
		}
		setNamespace(obj, "validation-pod")
		o := toInternal(b, obj)
		setCreateUID(o)
		statefulset.Strategy.PrepareForCreate(ctx, o)
		if errs, _ := refCreate(ctx, statefulset.Strategy, o); len(errs) != 0 {
			continue
		}
		in, m = o, toV1Map(b, k, o)
		break
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	b.Run("impl=reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs, _ := refCreate(ctx, statefulset.Strategy, in); len(errs) != 0 {
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
