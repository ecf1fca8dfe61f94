package apply_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
)

func TestResetFields(t *testing.T) {
	set := fieldpath.NewSet(
		fieldpath.MakePathOrDie("spec", "replicas"),
		fieldpath.MakePathOrDie("status", "replicas"),
		fieldpath.MakePathOrDie("metadata", "labels", "a"),
		fieldpath.MakePathOrDie("metadata", "annotations", "b"),
		fieldpath.MakePathOrDie("spec", "containers", fieldpath.KeyByFields("name", "c"), "resources"),
		fieldpath.MakePathOrDie("spec", "containers", fieldpath.KeyByFields("name", "c"), "image"),
		fieldpath.MakePathOrDie("spec", "ephemeralContainers", fieldpath.KeyByFields("name", "e"), "image"),
	)
	tests := []struct {
		group, version, kind, sub string
		want                      []string // the paths left after the filter; nil: no filter
	}{
		{"apps", "v1", "Deployment", "", []string{".metadata.annotations.b", ".metadata.labels.a", ".spec.containers[name=\"c\"].image", ".spec.containers[name=\"c\"].resources", ".spec.ephemeralContainers[name=\"e\"].image", ".spec.replicas"}},
		{"apps", "v1", "Deployment", "status", []string{".metadata.annotations.b", ".status.replicas"}},
		{"apps", "v1", "ReplicaSet", "status", []string{".metadata.annotations.b", ".metadata.labels.a", ".status.replicas"}},
		{"", "v1", "Pod", "status", []string{".metadata.annotations.b", ".metadata.labels.a", ".status.replicas"}},
		{"", "v1", "Pod", "resize", nil},
		{"", "v1", "Pod", "ephemeralcontainers", nil},
		{"", "v1", "Namespace", "finalize", []string{".metadata.annotations.b", ".metadata.labels.a", ".spec.containers[name=\"c\"].image", ".spec.containers[name=\"c\"].resources", ".spec.ephemeralContainers[name=\"e\"].image", ".spec.replicas"}},
		{"certificates.k8s.io", "v1", "CertificateSigningRequest", "", []string{".metadata.annotations.b", ".metadata.labels.a"}},
		{"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "status", []string{".metadata.annotations.b", ".metadata.labels.a", ".status.replicas"}},
		{"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "status", []string{".status.replicas"}},
		{"", "v1", "ConfigMap", "", nil},
	}
	for _, tt := range tests {
		gvk := schema.GroupVersionKind{Group: tt.group, Version: tt.version, Kind: tt.kind}
		filters := apply.ResetFields(gvk, tt.sub)
		if tt.want == nil {
			assert.Nil(t, filters, "%v %s", gvk, tt.sub)
			continue
		}
		f, ok := filters[fieldpath.APIVersion(gvk.GroupVersion().String())]
		if !assert.True(t, ok, "%v %s", gvk, tt.sub) {
			continue
		}
		var got []string
		f.Filter(set).Leaves().Iterate(func(p fieldpath.Path) { got = append(got, p.String()) })
		assert.ElementsMatch(t, tt.want, got, "%v %s", gvk, tt.sub)
	}
	// Custom resources: only with a status subresource.
	assert.Nil(t, apply.CustomResourceResetFields("example.com/v1", "", false))
	f := apply.CustomResourceResetFields("example.com/v1", "status", true)["example.com/v1"]
	var got []string
	f.Filter(set).Leaves().Iterate(func(p fieldpath.Path) { got = append(got, p.String()) })
	assert.Equal(t, []string{".status.replicas"}, got)
}
