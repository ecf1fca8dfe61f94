package apply_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/schema"
)

// TestWouldConflictShortcut: the comparison-only answer is taken and equals the whole apply,
// for shared equal values (no conflict), changed values, reset fields and a new manager.
func TestWouldConflictShortcut(t *testing.T) {
	cm := func(data map[string]any, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "labels": labels}, "data": data}
	}
	res, err := apply.Apply(apply.Request{Config: cm(map[string]any{"a": "1", "b": "2"}, map[string]any{"l": "x"}), Manager: "alice", Now: t0})
	require.NoError(t, err)
	live := res.Object
	deploy, err := apply.Apply(apply.Request{Config: mustObject(deploymentConfig), Manager: "alice", Now: t0})
	require.NoError(t, err)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	status := mustObject(deploymentConfig)
	status["status"] = map[string]any{"replicas": int64(3)}
	status["spec"].(map[string]any)["replicas"] = int64(7)
	tests := []struct {
		name  string
		req   apply.Request
		paths []string
	}{
		{"equal values are shared", apply.Request{Live: live, Config: cm(map[string]any{"a": "1"}, nil), Manager: "bob"}, nil},
		{"changed values conflict", apply.Request{Live: live, Config: cm(map[string]any{"a": "9", "c": "3"}, map[string]any{"l": "y"}), Manager: "bob"},
			[]string{".data.a", ".metadata.labels.l"}},
		{"own fields never conflict", apply.Request{Live: live, Config: cm(map[string]any{"a": "9"}, nil), Manager: "alice"}, nil},
		{"reset fields are ignored", apply.Request{Live: deploy.Object, Config: status, Manager: "bob", Subresource: "status",
			ResetFields: apply.ResetFields(gvk, "status")}, nil},
		{"main resource", apply.Request{Live: deploy.Object, Config: status, Manager: "bob", ResetFields: apply.ResetFields(gvk, "")},
			[]string{".spec.replicas"}},
	}
	for _, tt := range tests {
		tt.req.Now = t0
		tt.req.LibraryOnly = true
		quick, ok := apply.QuickConflicts(tt.req)
		require.True(t, ok, tt.name)
		full, err := apply.FullConflicts(tt.req)
		require.NoError(t, err, tt.name)
		assert.Equal(t, full, quick, tt.name)
		var paths []string
		for _, c := range quick {
			paths = append(paths, c.Path)
		}
		assert.Equal(t, tt.paths, paths, tt.name)
		got, err := apply.WouldConflict(tt.req)
		require.NoError(t, err, tt.name)
		assert.Equal(t, full, got, tt.name)
	}
	// No shortcut: creation, the kubectl manager, an object without managedFields.
	for _, req := range []apply.Request{
		{Config: cm(nil, nil), Manager: "bob"},
		{Live: live, Config: cm(nil, nil), Manager: "kubectl"},
		{Live: cm(map[string]any{"a": "1"}, nil), Config: cm(nil, nil), Manager: "bob"},
	} {
		_, ok := apply.QuickConflicts(req)
		assert.False(t, ok)
	}
}
