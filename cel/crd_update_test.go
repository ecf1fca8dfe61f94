package cel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

// loadCRDPair reads a testdata/cel/crdupdate case: the stored CRD, then the new one.
func loadCRDPair(t *testing.T, path string) (crd, old *schema.CRD) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	docs := strings.Split(string(data), "\n---\n")
	require.Len(t, docs, 2, "%s: want the old CRD, ---, the new CRD", path)
	old, err = schema.FromCRDBytes([]byte(docs[0]))
	require.NoError(t, err)
	crd, err = schema.FromCRDBytes([]byte(docs[1]))
	require.NoError(t, err)
	return crd, old
}

// TestValidateCRDUpdateGolden prints, for each pair, what a create of the new CRD and what its
// update from the old one are refused for.
func TestValidateCRDUpdateGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/cel/crdupdate/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			crd, old := loadCRDPair(t, f)
			var b strings.Builder
			for _, e := range cel.ValidateCRD(crd, cel.Options{}) {
				fmt.Fprintf(&b, "create: %v\n", e)
			}
			for _, e := range cel.ValidateCRDUpdate(crd, old, cel.Options{}) {
				fmt.Fprintf(&b, "update: %v\n", e)
			}
			golden(t, strings.TrimSuffix(f, ".yaml")+".golden", b.String())
		})
	}
}

func TestValidateCRDUpdate(t *testing.T) {
	pair := func(name string) (*schema.CRD, *schema.CRD) {
		return loadCRDPair(t, "../testdata/cel/crdupdate/"+name+".yaml")
	}
	t.Run("nil old is a create", func(t *testing.T) {
		crd, _ := pair("stored-changed")
		assert.Equal(t, cel.ValidateCRD(crd, cel.Options{}), cel.ValidateCRDUpdate(crd, nil, cel.Options{}))
	})
	t.Run("an update to itself accepts stored-only expressions", func(t *testing.T) {
		crd, old := pair("stored-unchanged")
		assert.NotEmpty(t, cel.ValidateCRD(crd, cel.Options{}))
		assert.Empty(t, cel.ValidateCRDUpdate(crd, old, cel.Options{}))
		assert.Empty(t, cel.ValidateCRDUpdate(crd, crd, cel.Options{}))
	})
	t.Run("compatibility version 1.37 compiles new expressions with every library", func(t *testing.T) {
		crd, old := pair("stored-changed")
		assert.NotEmpty(t, cel.ValidateCRDUpdate(crd, old, cel.Options{}))
		assert.Empty(t, cel.ValidateCRDUpdate(crd, old, cel.Options{Version: cel.V1_37}))
	})
	t.Run("the old CRD's expressions are found in every version", func(t *testing.T) {
		crd, _ := pair("stored-moved")
		_, old := pair("stored-unchanged")
		// the old CRD with its includes() rules in a second version only
		two, err := schema.FromCRDBytes([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          deep:
            type: array
            items:
              type: object
              x-kubernetes-validations:
              - rule: "[1, 2].includes(2)"
              - {rule: "self == self", messageExpression: "[1].includes(1) ? 'yes' : 'no'"}
`))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(cel.ValidateCRDUpdate(crd, old, cel.Options{})), fmt.Sprint(cel.ValidateCRDUpdate(crd, two, cel.Options{})))
	})
	t.Run("versions written differently share a schema as the apiserver compares them", func(t *testing.T) {
		crd, err := schema.FromCRDBytes([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, required: [], x-kubernetes-validations: [{rule: "1"}]}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-validations: [{rule: "1", message: ""}]}}}
`))
		require.NoError(t, err)
		errs := cel.ValidateCRD(crd, cel.Options{})
		require.Len(t, errs, 1)
		assert.Equal(t, "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule", errs[0].Field)
	})
	t.Run("inputs are not modified", func(t *testing.T) {
		crd, old := pair("per-version")
		crd2, old2 := pair("per-version")
		cel.ValidateCRDUpdate(crd, old, cel.Options{})
		assert.True(t, reflect.DeepEqual(crd.Versions[1].Props, crd2.Versions[1].Props))
		assert.True(t, reflect.DeepEqual(old.Versions[0].Props, old2.Versions[0].Props))
	})
}

// fuzzCRD is a CRD with one rule (and messageExpression) on an object with a string list.
func fuzzCRD(t *testing.T, rule, messageExpression string, maxItems int64) *schema.CRD {
	v := map[string]any{"rule": rule}
	if messageExpression != "" {
		v["messageExpression"] = messageExpression
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object", "x-kubernetes-validations": []any{v},
				"properties": map[string]any{"l": map[string]any{"type": "array", "maxItems": maxItems, "items": map[string]any{"type": "string"}}},
			}}}},
		},
	}
	data, err := json.Marshal(crd)
	require.NoError(t, err)
	c, err := schema.FromCRDBytes(data)
	if err != nil {
		return nil
	}
	return c
}

// FuzzValidateCRDUpdate checks fuzzed rules on update: no panic, inputs not modified, the same
// answer twice, and an update that changes nothing is never refused for more than a create.
func FuzzValidateCRDUpdate(f *testing.F) {
	f.Add("[1].includes(1)", "", "self.l.all(a, self.l.all(b, a == b))", "'x'", int64(3000), int64(10))
	f.Add("self.l.size() > 0", "[1].includes(1) ? 'a' : 'b'", "self.l.size() > 1", "", int64(10), int64(-1))
	f.Add("", "  ", "oldSelf == self", "self", int64(0), int64(1<<40))
	f.Fuzz(func(t *testing.T, oldRule, oldMsg, rule, msg string, oldMax, maxItems int64) {
		old := fuzzCRD(t, oldRule, oldMsg, oldMax)
		crd := fuzzCRD(t, rule, msg, maxItems)
		if old == nil || crd == nil {
			return
		}
		before, _ := json.Marshal([]any{crd.Versions[0].Props, old.Versions[0].Props})
		got := cel.ValidateCRDUpdate(crd, old, cel.Options{})
		again := cel.ValidateCRDUpdate(crd, old, cel.Options{})
		assert.Equal(t, fmt.Sprint(got), fmt.Sprint(again))
		for _, e := range got {
			assert.NotEmpty(t, e.Error())
		}
		assert.LessOrEqual(t, len(cel.ValidateCRDUpdate(crd, crd, cel.Options{})), len(cel.ValidateCRD(crd, cel.Options{})))
		after, _ := json.Marshal([]any{crd.Versions[0].Props, old.Versions[0].Props})
		assert.Equal(t, string(before), string(after), "inputs not modified")
	})
}
