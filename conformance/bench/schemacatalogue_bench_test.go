package bench

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	clientgoapply "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	wpschema "github.com/writepath/writepath/schema"
)

// The built-in catalogue against the reference: converting a Deployment to its SMD typed value
// (writepath's SMD type vs client-go's apply-configuration type converter, both from unstructured),
// and walking strategic-merge-patch metadata spec -> containers -> ports of a Pod (writepath's
// PatchMeta vs strategicpatch.PatchMetaFromStruct).

func catalogueDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"replicas": int64(3),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "web", "image": "nginx:1.27", "ports": []any{
						map[string]any{"containerPort": int64(80), "protocol": "TCP"},
						map[string]any{"containerPort": int64(443), "protocol": "TCP"},
					}, "env": []any{map[string]any{"name": "A", "value": "1"}}},
					map[string]any{"name": "sidecar", "image": "busybox"},
				}},
			},
		},
	}
}

func BenchmarkCatalogueSMDConvert(b *testing.B) {
	obj := catalogueDeployment()
	b.Run("writepath", func(b *testing.B) {
		k, err := wpschema.Builtin(wpschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
		if err != nil {
			b.Fatal(err)
		}
		typ, err := k.SMDType()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			tv, err := typ.FromUnstructured(obj)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tv.ToFieldSet(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client-go", func(b *testing.B) {
		tc := clientgoapply.NewTypeConverter(clientgoscheme.Scheme)
		u := &unstructured.Unstructured{Object: obj}
		b.ReportAllocs()
		for b.Loop() {
			tv, err := tc.ObjectToTyped(u)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tv.ToFieldSet(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCataloguePatchMetaWalk(b *testing.B) {
	b.Run("writepath", func(b *testing.B) {
		k, err := wpschema.Builtin(wpschema.GroupVersionKind{Version: "v1", Kind: "Pod"})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			root, err := k.PatchMeta()
			if err != nil {
				b.Fatal(err)
			}
			spec, _, err := root.LookupField("spec")
			if err != nil {
				b.Fatal(err)
			}
			c, _, err := spec.LookupSlice("containers")
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := c.LookupSlice("ports"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strategicpatch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			root, err := strategicpatch.NewPatchMetaFromStruct(&corev1.Pod{})
			if err != nil {
				b.Fatal(err)
			}
			spec, _, err := root.LookupPatchMetadataForStruct("spec")
			if err != nil {
				b.Fatal(err)
			}
			c, _, err := spec.LookupPatchMetadataForSlice("containers")
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := c.LookupPatchMetadataForSlice("ports"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
