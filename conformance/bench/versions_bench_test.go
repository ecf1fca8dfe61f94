package bench

import (
	"context"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/writepath/writepath/versions"
)

// The same work on both sides: order two 20-digit resourceVersions; decide the
// generation after an update of a custom resource (status subresource on) whose
// spec changed in one leaf.

func BenchmarkVersionsCompareResourceVersion(b *testing.B) {
	x, y := "12345678901234567890", "12345678901234567891"
	b.Run("writepath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = versions.CompareResourceVersion(x, y)
		}
	})
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = resourceversion.CompareResourceVersion(x, y)
		}
	})
}

func crPair() (map[string]any, map[string]any) {
	mk := func(image string) map[string]any {
		return map[string]any{
			"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": "nightly", "namespace": "default", "generation": int64(3),
				"labels": map[string]any{"app": "cron"}},
			"spec": map[string]any{"cronSpec": "0 3 * * *", "image": image, "replicas": int64(2),
				"env": []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "B", "value": "2"}}},
			"status": map[string]any{"lastScheduleTime": "2026-01-01T03:00:00Z", "active": []any{"a", "b"}},
		}
	}
	return mk("busybox:1.36"), mk("busybox:1.37")
}

func BenchmarkVersionsCustomResourceGeneration(b *testing.B) {
	old, sent := crPair()
	b.Run("writepath", func(b *testing.B) {
		s := versions.CustomResource("stable.example.com", "crontabs", "CronTab", versions.CustomResourceOptions{StatusSubresource: true})
		b.ReportAllocs()
		for b.Loop() {
			_, _ = versions.NextGeneration(s, old, sent, "")
		}
	})
	b.Run("apiextensions", func(b *testing.B) {
		strategy := customresource.NewStrategy(nil, true, schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"},
			nil, nil, nil, &apiextensions.CustomResourceSubresourceStatus{}, nil, nil)
		ctx := context.Context(genericapirequest.NewContext())
		b.ReportAllocs()
		for b.Loop() {
			// PrepareForUpdate mutates its input: copy as writepath does not need to.
			newU := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(sent)}
			strategy.PrepareForUpdate(ctx, newU, &unstructured.Unstructured{Object: old})
		}
	})
}
