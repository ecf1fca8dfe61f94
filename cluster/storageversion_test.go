package cluster_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// A HorizontalPodAutoscaler is stored as autoscaling/v2 and served at v1 too, as kube-apiserver
// 1.37 does: a v1 read converts the stored object (the CPU metric becomes
// targetCPUUtilizationPercentage), a v1 write is stored converted (the v2 read sees its metric),
// a v1 watch gets v1 events, and the kind's rules validate the internal (v2) shape, so a v1
// object's errors name v2 paths. testdata/registry/recorded/kinds.json (hpa-get-v1,
// hpa-patch-v1) has what the real server answered, managedFields included.
func TestHPAServedAtBothVersions(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	code, _, _ = c.do("POST", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers", "application/json",
		`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"hpa"},"spec":{"maxReplicas":5,
		"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}],
		"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}}`)
	require.Equal(t, 201, code)

	code, v1, _ := c.do("GET", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/hpa", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, "autoscaling/v1", v1["apiVersion"])
	assert.Equal(t, float64(70), v1["spec"].(map[string]any)["targetCPUUtilizationPercentage"])
	assert.NotContains(t, v1["spec"], "metrics")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, code := c.watch(ctx, "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers?watch=true&resourceVersion="+meta(v1)["resourceVersion"].(string))
	require.Equal(t, 200, code)

	code, patched, _ := c.do("PATCH", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/hpa", "application/merge-patch+json",
		`{"spec":{"targetCPUUtilizationPercentage":50}}`)
	require.Equal(t, 200, code)
	assert.Equal(t, "autoscaling/v1", patched["apiVersion"])
	managers := map[string]bool{}
	for _, e := range meta(patched)["managedFields"].([]any) {
		managers[e.(map[string]any)["apiVersion"].(string)] = true
	}
	assert.Equal(t, map[string]bool{"autoscaling/v1": true, "autoscaling/v2": true}, managers, "ownership kept at both versions")

	ev := next(t, events)
	assert.Equal(t, "MODIFIED", ev.Type)
	assert.Equal(t, "autoscaling/v1", ev.Object["apiVersion"])
	assert.Equal(t, float64(50), ev.Object["spec"].(map[string]any)["targetCPUUtilizationPercentage"])

	code, v2, _ := c.do("GET", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/hpa", "", "")
	require.Equal(t, 200, code)
	target := v2["spec"].(map[string]any)["metrics"].([]any)[0].(map[string]any)["resource"].(map[string]any)["target"].(map[string]any)
	assert.Equal(t, float64(50), target["averageUtilization"])

	code, body, _ := c.do("POST", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers", "application/json",
		`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"bad"},"spec":{"maxReplicas":5,
		"targetCPUUtilizationPercentage":0,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}}`)
	require.Equal(t, 422, code)
	causes := body["details"].(map[string]any)["causes"].([]any)
	assert.Equal(t, "spec.metrics[0].resource.target.averageUtilization", causes[0].(map[string]any)["field"])
}
