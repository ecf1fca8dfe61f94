package apply_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// APIService's /status strategy (kube-aggregator's apiServerStatusStrategy) names all of
// metadata in its reset fields but puts back only spec, labels, annotations, finalizers and
// ownerReferences: a status write keeps the client's deletionTimestamp, which validation then
// judges (ValidateObjectMetaUpdate), and generation, which rest.BeforeUpdate restores (the
// registry), where ResetObjectMetaForStatus would restore both.
func TestAPIServiceStatusResetValues(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}
	assert.Equal(t, [][]string{{"spec"}, {"metadata", "labels"}, {"metadata", "annotations"}, {"metadata", "finalizers"},
		{"metadata", "ownerReferences"}}, apply.ResetPaths(gvk, "status"))
	assert.Equal(t, [][]string{{"status"}}, apply.ResetPaths(gvk, ""))
	live := map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.example.com", "generation": int64(1), "labels": map[string]any{"a": "1"}},
		"spec":     map[string]any{"group": "example.com", "version": "v1", "groupPriorityMinimum": int64(100), "versionPriority": int64(10)}}
	obj := map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.example.com", "generation": int64(5), "labels": map[string]any{"a": "2"},
			"deletionTimestamp": "2026-12-04T05:00:00Z"},
		"spec":   map[string]any{"group": "example.com", "version": "v2", "groupPriorityMinimum": int64(100), "versionPriority": int64(10)},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "False"}}}}
	res, err := apply.Update(apply.UpdateRequest{Live: live, Object: obj, Manager: "m", Subresource: "status",
		ResetFields: apply.ResetFields(gvk, "status"), ResetValues: apply.ResetPaths(gvk, "status")})
	require.NoError(t, err)
	md := res.Object["metadata"].(map[string]any)
	assert.Equal(t, int64(5), md["generation"], "generation is not the strategy's to restore")
	assert.Equal(t, "2026-12-04T05:00:00Z", md["deletionTimestamp"], "the client's deletionTimestamp stays (for validation to refuse)")
	assert.Equal(t, map[string]any{"a": "1"}, md["labels"], "labels are put back")
	assert.Equal(t, live["spec"], res.Object["spec"], "spec is put back")
	assert.Equal(t, obj["status"], res.Object["status"], "status is written")
}
