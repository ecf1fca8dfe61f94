package admission_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// recorded is one scenario answered by the real kube-apiserver 1.37
// (testdata/admission/realcluster/record.py).
type recorded struct {
	Code     int            `json:"code"`
	Warnings []string       `json:"warnings"`
	Body     map[string]any `json:"body"`
}

// splitConfig sorts a scenario's objects into admission configuration,
// namespaces and params, as the apiserver would find them.
func splitConfig(t *testing.T, docs []map[string]any) admission.Config {
	// The apiserver converts between the versions it serves.
	cfg := admission.Config{Builtins: admission.Builtins{NamespaceLifecycle: true}, Versions: admission.Versions{Converter: conversion.Builtin{}}}
	for _, d := range docs {
		switch {
		case strings.HasPrefix(d["apiVersion"].(string), "admissionregistration.k8s.io/"):
			cfg.Objects = append(cfg.Objects, d)
		case d["kind"] == "Namespace":
			cfg.Namespaces = append(cfg.Namespaces, d)
		default:
			cfg.Params = append(cfg.Params, d)
		}
	}
	return cfg
}

func configMapCreate(obj map[string]any) admission.Request {
	md := obj["metadata"].(map[string]any)
	return admission.Request{
		Operation: admission.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      md["name"].(string), Namespace: md["namespace"].(string), Object: obj,
	}
}

// warningText strips the `299 - "..."` framing of a Warning header.
func warningText(h string) string {
	h = strings.TrimPrefix(h, `299 - "`)
	return strings.TrimSuffix(h, `"`)
}

func TestRealCluster(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "admission", "realcluster", "*", "response.json"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, respPath := range dirs {
		dir := filepath.Dir(respPath)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var rec recorded
			b, err := os.ReadFile(respPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rec))
			var docs []map[string]any
			if cb, err := os.ReadFile(filepath.Join(dir, "config.yaml")); err == nil {
				docs, err = codec.DecodeDocuments(cb)
				require.NoError(t, err)
			}
			ob, err := os.ReadFile(filepath.Join(dir, "object.yaml"))
			require.NoError(t, err)
			obj, err := codec.DecodeObject(ob)
			require.NoError(t, err)
			cfg := splitConfig(t, docs)
			chain, err := admission.New(cfg)
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), configMapCreate(obj))
			var want []string
			for _, w := range rec.Warnings {
				want = append(want, warningText(w))
			}
			assert.Equal(t, want, res.Warnings, "warnings of %s", name)
			if rec.Code >= 400 {
				require.Error(t, err, name)
				got, merr := json.Marshal(err)
				require.NoError(t, merr)
				wantBody, _ := json.Marshal(rec.Body)
				assert.JSONEq(t, string(wantBody), string(got), "status of %s", name)
				return
			}
			require.NoError(t, err, name)
			// The stored object: compare what admission decides (labels and data).
			md := rec.Body["metadata"].(map[string]any)
			gotMD := res.Object["metadata"].(map[string]any)
			assert.Equal(t, md["labels"], gotMD["labels"], "labels of %s", name)
			assert.Equal(t, rec.Body["data"], res.Object["data"], "data of %s", name)
		})
	}
}
