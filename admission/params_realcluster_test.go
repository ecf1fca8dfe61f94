package admission_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
)

// TestRealClusterParams replays testdata/admission/realcluster-params: how
// kube-apiserver 1.37 presents params of built-in kinds (typed informers) and
// of a custom resource (dynamic informer) to ValidatingAdmissionPolicies
// (plain JSON with paramKind's apiVersion and kind) and
// MutatingAdmissionPolicies (the typed Go value), read through probes whose
// answers the server recorded. The params are the objects as the server
// returned them (managedFields included).
func TestRealClusterParams(t *testing.T) {
	dir := filepath.Join("..", "testdata", "admission", "realcluster-params")
	var params []map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "params.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &params))
	var namespaces, others []map[string]any
	for _, p := range params {
		if p["kind"] == "Namespace" {
			namespaces = append(namespaces, p)
		}
		others = append(others, p)
	}
	rb, err := os.ReadFile(filepath.Join(dir, "request.json"))
	require.NoError(t, err)
	obj, err := codec.DecodeObject(rb)
	require.NoError(t, err)

	resps, err := filepath.Glob(filepath.Join(dir, "*", "response.json"))
	require.NoError(t, err)
	require.Len(t, resps, 19)
	for _, respPath := range resps {
		name := filepath.Base(filepath.Dir(respPath))
		t.Run(name, func(t *testing.T) {
			var rec recorded
			b, err := os.ReadFile(respPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			cb, err := os.ReadFile(filepath.Join(filepath.Dir(respPath), "config.yaml"))
			require.NoError(t, err)
			docs, err := codec.DecodeDocuments(cb)
			require.NoError(t, err)
			chain, err := admission.New(admission.Config{Objects: docs, Params: others, Namespaces: namespaces})
			require.NoError(t, err)
			req := configMapCreate(obj)
			req.DryRun = true
			res, err := chain.Admit(context.Background(), req)
			var want []string
			for _, w := range rec.Warnings {
				want = append(want, warningText(w))
			}
			assert.Equal(t, want, res.Warnings, "warnings")
			if rec.Code >= 400 {
				require.Error(t, err)
				assert.Equal(t, rec.Body["message"], err.Error())
				return
			}
			require.NoError(t, err)
			md := rec.Body["metadata"].(map[string]any)
			gotMD := res.Object["metadata"].(map[string]any)
			assert.Equal(t, md["annotations"], gotMD["annotations"], "annotations")
			assert.Equal(t, md["labels"], gotMD["labels"], "labels")
			assert.Equal(t, rec.Body["data"], res.Object["data"], "data")
		})
	}
}
