package admission_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/status"
)

type addLabel struct{}

func (addLabel) Name() string { return "add-label" }
func (addLabel) Admit(_ context.Context, a admission.Attributes) (map[string]any, error) {
	md := a.Object["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	labels["defaulted"] = "true"
	return a.Object, nil
}

type denyData struct{}

func (denyData) Name() string { return "deny-data" }
func (denyData) Validate(_ context.Context, a admission.Attributes) ([]string, error) {
	if _, ok := a.Object["data"].(map[string]any)["forbidden"]; ok {
		return []string{"checked"}, errors.New("key forbidden is not allowed")
	}
	return []string{"checked"}, nil
}

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedEnv() admission.Env { return admission.Env{Now: fixedNow} }

func TestGoPlugins(t *testing.T) {
	chain, err := admission.New(admission.Config{Mutators: []admission.Mutator{addLabel{}},
		Validators: []admission.Validator{denyData{}}, Namespaces: nsList()})
	require.NoError(t, err)
	req := cmRequest()
	res, err := chain.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "true", res.Object["metadata"].(map[string]any)["labels"].(map[string]any)["defaulted"])
	_, touched := req.Object["metadata"].(map[string]any)["labels"].(map[string]any)["defaulted"]
	assert.False(t, touched, "the plugin got a copy")
	require.Len(t, res.Patches, 1)
	assert.Equal(t, `[{"op":"add","path":"/metadata/labels/defaulted","value":"true"}]`, string(res.Patches[0].Patch))
	assert.Equal(t, []string{"checked"}, res.Warnings)

	req.Object["data"] = map[string]any{"forbidden": "x"}
	_, err = chain.Admit(context.Background(), req)
	require.Error(t, err)
	assert.Equal(t, `configmaps "cm1" is forbidden: key forbidden is not allowed`, err.Error())
	assert.Equal(t, 403, status.CodeOf(err))
}

// TestConcurrentAdmit runs one compiled chain from several goroutines (run
// with -race): New's result is read-only.
func TestConcurrentAdmit(t *testing.T) {
	docs, err := codec.DecodeDocuments([]byte(examplePolicy))
	require.NoError(t, err)
	chain, err := admission.New(admission.Config{Objects: docs, Builtins: admission.Defaults, Validate: registry.ValidateObjectMeta, Env: fixedEnv(),
		Namespaces: []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "prod"}}},
		Params: []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "limits", "namespace": "prod"}, "data": map[string]any{"max": "3"}}}})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			req := deployment(int64(g))
			req.Operation = admission.Update
			req.OldObject = req.Object
			_, errs[g] = chain.Admit(context.Background(), req)
		}(g)
	}
	wg.Wait()
	for g, err := range errs {
		if g <= 3 {
			assert.NoError(t, err, "replicas %d", g)
		} else {
			assert.Error(t, err, "replicas %d", g)
		}
	}
}
