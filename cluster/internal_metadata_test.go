package cluster_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// TestMetadataOnlyAnswersAreTheInternalObjects: kube-apiserver makes PartialObjectMetadata
// (get, list, watch) and a Table row's object from the internal object, whose metadata lacks the
// annotations a version's conversion writes: an apps/v1 DaemonSet is read with its
// deprecated.daemonset.template.generation annotation, its metadata alone without it, and an
// autoscaling/v1 HorizontalPodAutoscaler's current-metrics annotation is missing there as well.
// What the real 1.37 server answered (realcluster, 2026-12-04: kubectl create a DaemonSet, curl
// -H 'Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' on it, its list,
// a watch from resourceVersion=0 and as=Table; the same for an autoscaling/v1 HPA whose status
// was patched with currentCPUUtilizationPercentage 40).
func TestMetadataOnlyAnswersAreTheInternalObjects(t *testing.T) {
	c := start(t, cluster.Options{})
	c.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	code, ds, _ := c.do("POST", "/apis/apps/v1/namespaces/demo/daemonsets", "application/json",
		`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	require.Equal(t, 201, code)
	require.Equal(t, map[string]any{"deprecated.daemonset.template.generation": "1"}, meta(ds)["annotations"])

	const partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	const partialList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	const table = "application/json;as=Table;g=meta.k8s.io;v=v1"
	decode := func(b []byte) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), "%s", b)
		return m
	}
	u := "/apis/apps/v1/namespaces/demo/daemonsets"
	code, b, _ := c.get(u+"/ds", partial)
	require.Equal(t, 200, code)
	md := meta(decode(b))
	assert.NotContains(t, md, "annotations")
	assert.Equal(t, "ds", md["name"])
	assert.NotEmpty(t, md["managedFields"], "managedFields stay: they name the annotation")

	code, b, _ = c.get(u, partialList)
	require.Equal(t, 200, code)
	items := decode(b)["items"].([]any)
	require.Len(t, items, 1)
	assert.NotContains(t, meta(items[0].(map[string]any)), "annotations")

	code, b, _ = c.get(u, table)
	require.Equal(t, 200, code)
	rows := decode(b)["rows"].([]any)
	require.Len(t, rows, 1)
	assert.NotContains(t, meta(rows[0].(map[string]any)["object"].(map[string]any)), "annotations")

	code, b, _ = c.get(u+"?watch=1&timeoutSeconds=1&resourceVersion=0", partial)
	require.Equal(t, 200, code)
	var ev struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	require.NoError(t, json.Unmarshal(b, &ev), "%s", b)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "PartialObjectMetadata", ev.Object["kind"])
	assert.NotContains(t, meta(ev.Object), "annotations")

	// Other annotations stay; the full object keeps its own.
	code, _, _ = c.do("PATCH", u+"/ds", "application/merge-patch+json", `{"metadata":{"annotations":{"a":"b"}}}`)
	require.Equal(t, 200, code)
	code, b, _ = c.get(u+"/ds", partial)
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"a": "b"}, meta(decode(b))["annotations"])
	code, full, _ := c.do("GET", u+"/ds", "", "")
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"a": "b", "deprecated.daemonset.template.generation": "1"}, meta(full)["annotations"])

	h := "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers"
	code, _, _ = c.do("POST", h, "application/json",
		`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","annotations":{"a":"b"}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d","apiVersion":"apps/v1"},"maxReplicas":3,"targetCPUUtilizationPercentage":50}}`)
	require.Equal(t, 201, code)
	code, st, _ := c.do("PATCH", h+"/h/status", "application/merge-patch+json", `{"status":{"currentReplicas":1,"desiredReplicas":1,"currentCPUUtilizationPercentage":40}}`)
	require.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"a": "b", "autoscaling.alpha.kubernetes.io/current-metrics": `[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"0"}}]`}, meta(st)["annotations"])
	for _, accept := range []string{partial, table} {
		path := h + "/h"
		if accept == table {
			path = h
		}
		code, b, _ = c.get(path, accept)
		require.Equal(t, 200, code)
		obj := decode(b)
		if accept == table {
			obj = obj["rows"].([]any)[0].(map[string]any)["object"].(map[string]any)
		}
		assert.Equal(t, map[string]any{"a": "b"}, meta(obj)["annotations"], accept)
	}
}
