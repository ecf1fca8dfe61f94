package validation

import (
	"math/rand"
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
	k := kinds()[0]
	r := rand.New(rand.NewSource(1))
	var obj = k.seed(r)
	for len(obj.(interface{ GetName() string }).GetName()) == 0 || !rich(obj) {
		obj = k.seed(r)
	}
	setNamespace(obj, "bench")
	in := toInternal(b, obj)
	ctx := ctxFor(k, "bench", "create", "")
	k.create.PrepareForCreate(ctx, in)
	m := toV1Map(b, k, in)
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	if errs := k.create.Validate(ctx, in); len(errs) != 0 {
		b.Fatal(errs)
	}
	if errs := validation.Validate(gvk, m, validation.Options{}); len(errs) != 0 {
		b.Fatal(errs)
	}
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			k.create.Validate(ctx, in)
		}
	})
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			validation.Validate(gvk, m, validation.Options{})
		}
	})
}
