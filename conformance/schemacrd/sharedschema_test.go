package schemacrd

import (
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// TestSharedSchemaSemantic: the apiserver holds one schema for all versions (errors at
// spec.validation...) when the versions' schemas are semantically equal after decoding — nil and
// empty lists equal, rules compared by their decoded fields — not when they are byte-identical.
// Each case writes the same schema two ways and carries an error, so the error paths show which
// way each side decided.
func TestSharedSchemaSemantic(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"type": "object",
			"properties": map[string]any{
				"spec": map[string]any{
					"type":       "object",
					"properties": map[string]any{"size": map[string]any{"type": "integer", "minimum": int64(1)}},
					// the error: a default below the minimum
					"default": map[string]any{"size": int64(0)},
				},
			},
		}
	}
	variants := map[string]func(map[string]any){
		"identical":      func(map[string]any) {},
		"empty required": func(s map[string]any) { s["required"] = []any{} },
		"rule message \"\"": func(s map[string]any) {
			s["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.spec)", "message": ""}}
		},
		"rule reason null": func(s map[string]any) {
			s["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.spec)", "reason": nil}}
		},
		"different rule": func(s map[string]any) {
			s["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.metadata)"}}
		},
		"description": func(s map[string]any) { s["description"] = "other" },
	}
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		first, second := base(), base()
		if name == "rule message \"\"" || name == "rule reason null" {
			first["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.spec)"}}
		}
		variants[name](second)
		crd := map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{
				"group": "example.com", "scope": "Namespaced",
				"names": map[string]any{"plural": "widgets", "kind": "Widget"},
				"versions": []any{
					map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": first}},
					map[string]any{"name": "v2", "served": true, "storage": false, "schema": map[string]any{"openAPIV3Schema": second}},
				},
			},
		}
		ref := refValidateCRD(t, crd)
		require.NotEmpty(t, ref, name)
		_, err := schema.FromCRD(crd)
		var se *status.Error
		require.True(t, errors.As(err, &se), "%s: %v", name, err)
		var mine []string
		for _, c := range se.Details.Causes {
			mine = append(mine, c.Field+": "+c.Message)
		}
		sort.Strings(mine)
		assert.Equal(t, ref, mine, name)
	}
}
