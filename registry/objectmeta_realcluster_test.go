package registry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// TestRealClusterObjectMeta replays testdata/admission/objectmeta/cases
// (recorded from the real kube-apiserver 1.37 by record.py there: creates and
// updates with no admission configuration, so only the registry's metadata
// steps answer) through the chain with the default built-in steps: a refusal
// must be the apiserver's Status, an accepted write must leave the metadata
// the apiserver stored (but for the resourceVersion it assigns).
func TestRealClusterObjectMeta(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "admission", "objectmeta", "cases", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		c, err := codec.DecodeObject(b)
		require.NoError(t, err)
		t.Run(c["name"].(string), func(t *testing.T) {
			body := c["body"].(map[string]any)
			resp := c["response"].(map[string]any)
			ns := c["namespace"].(string)
			req := admission.Request{Operation: admission.Create, Namespace: ns, Object: body,
				Kind:     schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
				Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
			if c["resource"] == "clusterroles" {
				req.Kind = schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
				req.Resource = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
			}
			req.Name, _ = body["metadata"].(map[string]any)["name"].(string)
			if c["method"] == "PUT" {
				req.Operation = admission.Update
				req.OldObject = c["stored"].(map[string]any)
				// The name in the URL.
				req.Name = req.OldObject["metadata"].(map[string]any)["name"].(string)
			}
			var created map[string]any
			if md, ok := resp["metadata"].(map[string]any); ok && c["method"] == "POST" {
				created = md
			}
			steps := registry.AdmitOptions{SystemFields: true, Concurrency: true,
				// The stored uid and creationTimestamp of a created object;
				// anything for a refused one.
				Now: storedCreationTimestamp(created),
				UID: func() string { s, _ := created["uid"].(string); return s },
			}
			chain, err := admission.New(admission.Config{Builtins: admission.Defaults, Env: admission.Env{Now: steps.Now},
				Namespaces: []map[string]any{{"apiVersion": "v1", "kind": "Namespace",
					"metadata": map[string]any{"name": "wp-adm-objectmeta"}, "status": map[string]any{"phase": "Active"}}}})
			require.NoError(t, err)
			res, err := registry.Admit(context.Background(), chain, req, steps)
			if code := c["code"].(int64); code >= 400 {
				require.Error(t, err)
				b, mErr := json.Marshal(err)
				require.NoError(t, mErr)
				got, dErr := codec.DecodeObject(b)
				require.NoError(t, dErr)
				assert.Equal(t, resp, got)
				return
			}
			require.NoError(t, err)
			got := res.Object["metadata"].(map[string]any)
			want := resp["metadata"].(map[string]any)
			for _, k := range []string{"name", "namespace", "uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds"} {
				assert.Equal(t, want[k], got[k], "metadata.%s", k)
			}
			if req.OldObject != nil {
				assert.Equal(t, req.OldObject["metadata"].(map[string]any)["resourceVersion"], got["resourceVersion"],
					"an unconditional update applies to the stored version")
			}
		})
	}
}

// storedCreationTimestamp is the creationTimestamp the apiserver stored (the zero time when
// the object was refused).
func storedCreationTimestamp(created map[string]any) time.Time {
	s, _ := created["creationTimestamp"].(string)
	ts, _ := time.Parse(time.RFC3339, s)
	return ts
}
