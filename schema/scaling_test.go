package schema_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// scalingDeepCRD is a CRD whose spec schema nests depth levels of properties (or of items),
// the shape kube-apiserver 1.37 accepts up to its decoder's 10000 nested JSON values (4996
// levels of properties, 9991 of items: testdata/schema/realcluster/deep).
func scalingDeepCRD(depth int, items bool) map[string]any {
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

// Reading and validating a CRD schema (FromCRD: decoding the props, the structural, schema and
// defaults checks, compiling the validator) allocates in proportion to its depth: the walks keep
// their position as a node per level (walkPath, textPath, steps) rendered only for an error,
// where a field.Path or string extended at each level copied the whole path (depth 4000: 1.57 GB
// allocated, 130 MB with field.Path alone fixed, 17.8 MB now).
func TestScalingFromCRDDepth(t *testing.T) {
	allocated := func(depth int, items bool) uint64 {
		crd := scalingDeepCRD(depth, items)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := schema.FromCRD(crd)
		runtime.ReadMemStats(&after)
		require.NoError(t, err, "depth %d items %v", depth, items)
		require.NotNil(t, c.Version("v1"))
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, items := range []bool{false, true} {
		small, large := allocated(500, items), allocated(4000, items)
		t.Logf("items=%v: depth 500 %d bytes, depth 4000 %d bytes", items, small, large)
		// Linear with slack for slices' doubling; quadratic would be 64 times.
		assert.LessOrEqual(t, large, 12*small, "items=%v: allocation grows faster than the depth", items)
	}
}

// An error deep down a schema names its whole path, as the apiserver's does.
func TestDeepSchemaErrorPath(t *testing.T) {
	crd := scalingDeepCRD(3, true)
	leaf := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"]
	for range 3 {
		leaf = leaf.(map[string]any)["items"]
	}
	leaf.(map[string]any)["uniqueItems"] = true
	_, err := schema.FromCRD(crd)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.validation.openAPIV3Schema.properties[spec].items.items.items.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic")
}
