package policystatus_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/controllers/policystatus"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// typeNameDigits hides the nanosecond the apiserver names checked types with.
var typeNameDigits = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]+\b`)

// TestTypeCheckGoldens replays testdata/admission/typecheck/warnings.golden.yaml: the
// apiserver's TypeChecker's warnings for policies.yaml (written by conformance/admission's
// TestTypeCheckGoldens over the real cluster's discovery and OpenAPI).
func TestTypeCheckGoldens(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "admission", "typecheck")
	b, err := os.ReadFile(filepath.Join(dir, "policies.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments(b)
	require.NoError(t, err)
	gb, err := os.ReadFile(filepath.Join(dir, "warnings.golden.yaml"))
	require.NoError(t, err)
	golden, err := codec.DecodeObject(gb)
	require.NoError(t, err)
	require.Len(t, golden, len(docs))
	for _, d := range docs {
		name := d["metadata"].(map[string]any)["name"].(string)
		ws, err := policystatus.TypeCheck(d, policystatus.Options{})
		require.NoError(t, err, name)
		got, err := json.Marshal(ws)
		require.NoError(t, err)
		want, err := json.Marshal(golden[name])
		require.NoError(t, err)
		assert.JSONEq(t, string(want), typeNameDigits.ReplaceAllString(string(got), "$1#"), name)
	}
}

// TestTypeCheckCRD checks a policy on a custom resource against the CRD's schema: apiVersion,
// kind and the full ObjectMeta at the root, int-or-string as dyn, lists of the kind.
func TestTypeCheckCRD(t *testing.T) {
	crd, err := schema.FromCRD(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
					"size":  map[string]any{"type": "integer"},
					"port":  map[string]any{"x-kubernetes-int-or-string": true},
					"since": map[string]any{"type": "string", "format": "date-time"},
				}}}}}}}}})
	require.NoError(t, err)
	pol := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
			"apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"widgets", "widgetlists"}}}},
			"validations": []any{
				map[string]any{"expression": "object.spec.size > 1 && object.spec.port == 'x' && object.metadata.uid != ''"},
				map[string]any{"expression": "object.spec.size == 'big'"},
				map[string]any{"expression": "object.spec.since > 1"},
			}}}
	ws, err := policystatus.TypeCheck(pol, policystatus.Options{CRDs: []*schema.CRD{crd}})
	require.NoError(t, err)
	require.Len(t, ws, 3)
	assert.Equal(t, "spec.validations[0].expression", ws[0].FieldRef)
	assert.Contains(t, ws[0].Warning, "example.com/v1, Kind=WidgetList: ERROR: <input>:1:7: undefined field 'spec'")
	assert.NotContains(t, ws[0].Warning, "Kind=Widget:")
	assert.Contains(t, ws[1].Warning, "example.com/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'")
	assert.Contains(t, ws[2].Warning, "applied to '(timestamp, int)'")
}

func TestTypeCheckNotAPolicy(t *testing.T) {
	_, err := policystatus.TypeCheck(map[string]any{"kind": "ConfigMap"}, policystatus.Options{})
	assert.EqualError(t, err, `type checking needs a ValidatingAdmissionPolicy, got kind "ConfigMap"`)
}
