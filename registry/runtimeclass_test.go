package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRuntimeClass: a Pod naming a RuntimeClass gets its overhead, node selector and
// tolerations (merged after the Pod's, redundant ones dropped); a missing class, a different
// overhead, a conflicting node selector and an overhead no class defines are 403s (recorded:
// admission-plugins/ap-runtime-class).
func TestRuntimeClass(t *testing.T) {
	rc := class("node.k8s.io/v1", "RuntimeClass", "rc", "2026-01-01T00:00:00Z", nil, map[string]any{"handler": "runc",
		"overhead": map[string]any{"podFixed": map[string]any{"cpu": "100m", "memory": "10Mi"}},
		"scheduling": map[string]any{"nodeSelector": map[string]any{"runtime": "fast"},
			"tolerations": []any{map[string]any{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}}}})
	plain := class("node.k8s.io/v1", "RuntimeClass", "plain", "2026-01-01T00:00:00Z", nil, map[string]any{"handler": "runc"})
	do := pluginWorld(t, rc, plain)
	pod := func(name, spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"c","image":"x"}]` + spec + `}}`
	}
	const pods = "/api/v1/namespaces/demo/pods"

	r := do("POST", pods, "application/json", pod("a", `,"runtimeClassName":"rc","nodeSelector":{"disk":"ssd"},"overhead":{"cpu":"0.1","memory":"10Mi"}`))
	require.Equal(t, 201, r.Code, r.Object)
	s := specOf(r)
	assert.Equal(t, map[string]any{"cpu": "100m", "memory": "10Mi"}, s["overhead"], "the class's overhead, an equal one replaced")
	assert.Equal(t, map[string]any{"disk": "ssd", "runtime": "fast"}, s["nodeSelector"])
	keys := []any{}
	for _, tol := range s["tolerations"].([]any) {
		keys = append(keys, tol.(map[string]any)["key"])
	}
	assert.Equal(t, []any{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"}, keys, "the 300s not-ready toleration is covered by the class's")

	for _, tc := range []struct{ name, spec, message string }{
		{"other", `,"runtimeClassName":"rc","overhead":{"cpu":"200m"}`, `pods "other" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{"conflict", `,"runtimeClassName":"rc","nodeSelector":{"runtime":"slow"}`, `pods "conflict" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = fast; pod.spec.nodeSelector[runtime] = slow`},
		{"missing", `,"runtimeClassName":"none"`, `pods "missing" is forbidden: pod rejected: RuntimeClass "none" not found`},
		{"noclass", `,"overhead":{"cpu":"100m"}`, `pods "noclass" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{"plain", `,"runtimeClassName":"plain","overhead":{"cpu":"100m"}`, `pods "plain" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
	} {
		r := do("POST", pods, "application/json", pod(tc.name, tc.spec))
		assert.Equal(t, 403, r.Code, tc.name)
		assert.Equal(t, tc.message, r.Object["message"], tc.name)
	}
	r = do("POST", pods, "application/json", pod("plainpod", `,"runtimeClassName":"plain"`))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Nil(t, specOf(r)["overhead"])
}
