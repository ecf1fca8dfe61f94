package cli

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConvertCLI runs `writepath convert` cases against testdata/conversion/cli/<name>.golden
// (UPDATE_GOLDEN=1 rewrites them).
func TestConvertCLI(t *testing.T) {
	t.Chdir(repoRoot)
	const d = "testdata/conversion/"
	crd, objs := d+"widgets-crd.yaml", d+"widgets.yaml"
	cases := []cliCase{
		{"convert-help", []string{"convert", "--help"}, "", exitOK},
		{"convert-to-v1beta1", []string{"convert", "--crd", crd, "-f", objs, "--to", "v1beta1"}, "", exitOK},
		{"convert-to-deprecated-json", []string{"convert", "--crd", crd, "-f", d + "widgets-lossless.yaml", "--to", "v1alpha1", "-o", "json"}, "", exitOK},
		{"convert-roundtrip-lossy", []string{"convert", "--check-roundtrip", "--crd", crd, "-f", objs}, "", exitNegative},
		{"convert-roundtrip-yaml", []string{"convert", "--check-roundtrip", "--crd", crd, "-f", d + "widgets-lossless.yaml", "-o", "yaml"}, "", exitNegative},
		{"convert-roundtrip-lossless", []string{"convert", "--check-roundtrip", "--crd", d + "realcluster/crd.yaml", "-f", "-"},
			"apiVersion: conversion.writepath.test/v1\nkind: ConvWidget\nmetadata: {name: w, namespace: ns1}\nspec: {size: 1, color: red}\n", exitOK},
		{"convert-unserved", []string{"convert", "--crd", d + "realcluster/crd.yaml", "-f", "-", "--to", "v2"},
			"apiVersion: conversion.writepath.test/v1\nkind: ConvWidget\nmetadata: {name: w}\n", exitNegative},
		{"convert-unknown-version", []string{"convert", "--crd", crd, "-f", "-", "--to", "v1"},
			"apiVersion: example.com/v7\nkind: Widget\nmetadata: {name: w}\n", exitNegative},
		{"convert-missing-flags", []string{"convert", "--crd", crd, "-f", objs}, "", exitUsage},
		{"convert-both-modes", []string{"convert", "--crd", crd, "-f", objs, "--to", "v1", "--check-roundtrip"}, "", exitUsage},
		{"convert-webhook-url-on-none", []string{"convert", "--crd", crd, "-f", objs, "--to", "v1", "--webhook-url", "https://localhost:1/convert"}, "", exitUsage},
		{"convert-bad-crd", []string{"convert", "--crd", objs, "-f", objs, "--to", "v1"}, "", exitUsage},
		{"convert-two-storage-versions", []string{"convert", "--crd", "-", "-f", objs, "--to", "v1"},
			"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n", exitNegative},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, c.exit, code, "exit code of %v; stderr: %s", c.args, stderr.String())
			got := fmt.Sprintf("$ writepath %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", quoteArgs(c.args), code, stdout.String(), stderr.String())
			if c.stdin != "" {
				got = "--- stdin\n" + c.stdin + "\n" + got
			}
			golden := filepath.Join(d, "cli", c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}

// TestConvertCLIWebhook converts through a real HTTPS webhook given by --webhook-url and
// --ca-bundle (the address changes with every run, so no golden file).
func TestConvertCLIWebhook(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review map[string]any
		require.NoError(t, json.Unmarshal(body, &review))
		req := review["request"].(map[string]any)
		var out []any
		for _, o := range req["objects"].([]any) {
			m := o.(map[string]any)
			m["apiVersion"] = req["desiredAPIVersion"]
			m["spec"] = map[string]any{"count": m["spec"].(map[string]any)["size"]}
			out = append(out, m)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
			"response": map[string]any{"uid": req["uid"], "result": map[string]any{"status": "Success"}, "convertedObjects": out}})
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	crd := filepath.Join(dir, "crd.yaml")
	require.NoError(t, os.WriteFile(crd, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {service: {namespace: ns, name: conv}}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {count: {type: integer}}}}}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}}
`), 0o644))
	var stdout, stderr bytes.Buffer
	code := run([]string{"convert", "--crd", crd, "-f", "-", "--to", "v1", "--webhook-url", srv.URL + "/convert", "--ca-bundle", ca, "-o", "json"},
		strings.NewReader("apiVersion: example.com/v2\nkind: Gadget\nmetadata: {name: g, namespace: ns}\nspec: {size: 3}\n"), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	var got map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	assert.Equal(t, "example.com/v1", got["apiVersion"])
	assert.Equal(t, map[string]any{"count": float64(3)}, got["spec"])
	// the service reference alone cannot be resolved.
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"convert", "--crd", crd, "-f", "-", "--to", "v1"}, strings.NewReader("apiVersion: example.com/v2\nkind: Gadget\nmetadata: {name: g}\n"), &stdout, &stderr)
	assert.Equal(t, exitNegative, code)
	assert.Contains(t, stderr.String(), "cannot be resolved without a cluster")
}
