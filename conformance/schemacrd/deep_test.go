package schemacrd

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// deepCRD is a CRD whose spec schema nests depth levels of properties (or of items).
func deepCRD(depth int, items bool) map[string]any {
	var s any = map[string]any{"type": "string"}
	for range depth {
		if items {
			s = map[string]any{"type": "array", "items": s}
		} else {
			s = map[string]any{"type": "object", "properties": map[string]any{"a": s}}
		}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "deeps.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "deeps", "singular": "deep", "kind": "Deep", "listKind": "DeepList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object",
					"properties": map[string]any{"spec": s}}}}}},
	}
}

// TestDeepSchemas: schemas nested past 1000 levels are accepted as apiextensions accepts them;
// what bounds them is the decoder (10000 nested values) and the body size.
func TestDeepSchemas(t *testing.T) {
	for _, c := range []struct {
		depth int
		items bool
	}{{999, false}, {1000, false}, {1001, false}, {1100, true}} {
		name := fmt.Sprintf("depth-%d-items-%v", c.depth, c.items)
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(deepCRD(c.depth, c.items))
			require.NoError(t, err)
			crd, err := codec.DecodeObject(b) // what a request body decodes to
			require.NoError(t, err)
			ref := refValidateCRD(t, crd)
			_, mine := schema.FromCRD(crd)
			assert.Empty(t, ref, "the reference refuses %s", name)
			assert.NoError(t, mine, "writepath refuses %s", name)
		})
	}
}
