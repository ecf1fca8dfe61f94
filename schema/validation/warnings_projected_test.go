package validation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// TestProjectedSourceWarning: a projected volume source is empty only when it sets no
// projection: {"configMap": {}} is a ConfigMap projection (VolumeProjection's fields are
// pointers), so only the {} source is warned about (a 100,000-case StatefulSet row found
// writepath warning for both).
func TestProjectedSourceWarning(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pod := map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"}, "spec": map[string]any{
		"containers": []any{map[string]any{"name": "c", "image": "nginx"}},
		"volumes": []any{
			map[string]any{"name": "a", "projected": map[string]any{"sources": []any{map[string]any{"configMap": map[string]any{}}}}},
			map[string]any{"name": "b", "projected": map[string]any{"sources": []any{map[string]any{}}}},
		}}}
	assert.Equal(t, []string{`volume "b" (Projected) has no sources provided`}, validation.Warnings(gvk, pod, nil, validation.Options{}))
}
