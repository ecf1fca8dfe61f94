package defaults_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema/defaults"
)

func TestInternalMetadata(t *testing.T) {
	md := func(ann map[string]any) map[string]any {
		m := map[string]any{"name": "x", "labels": map[string]any{"a": "b"}}
		if ann != nil {
			m["annotations"] = ann
		}
		return m
	}
	for _, tc := range []struct {
		name, apiVersion, kind string
		in, want               map[string]any
	}{
		{"daemonset generation alone", "apps/v1", "DaemonSet",
			md(map[string]any{"deprecated.daemonset.template.generation": "3"}), md(nil)},
		{"daemonset generation and another", "apps/v1", "DaemonSet",
			md(map[string]any{"deprecated.daemonset.template.generation": "3", "k": "v"}), md(map[string]any{"k": "v"})},
		{"deployment rollback", "apps/v1", "Deployment",
			md(map[string]any{"deprecated.deployment.rollback.to": "2", "k": "v"}), md(map[string]any{"k": "v"})},
		{"hpa v1 round-trip annotations", "autoscaling/v1", "HorizontalPodAutoscaler",
			md(map[string]any{"autoscaling.alpha.kubernetes.io/current-metrics": "[]", "autoscaling.alpha.kubernetes.io/conditions": "[]"}), md(nil)},
		{"hpa v2 keeps what it stores", "autoscaling/v2", "HorizontalPodAutoscaler",
			md(map[string]any{"autoscaling.alpha.kubernetes.io/current-metrics": "[]"}), md(map[string]any{"autoscaling.alpha.kubernetes.io/current-metrics": "[]"})},
		{"another kind keeps the annotation", "v1", "ConfigMap",
			md(map[string]any{"deprecated.daemonset.template.generation": "3"}), md(map[string]any{"deprecated.daemonset.template.generation": "3"})},
		{"nothing to drop", "apps/v1", "DaemonSet", md(map[string]any{"k": "v"}), md(map[string]any{"k": "v"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := md(nil)
			for k, v := range tc.in {
				before[k] = v
			}
			if a, ok := tc.in["annotations"].(map[string]any); ok {
				c := map[string]any{}
				for k, v := range a {
					c[k] = v
				}
				before["annotations"] = c
			}
			got := defaults.InternalMetadata(tc.apiVersion, tc.kind, tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, before, tc.in, "the input is not modified")
		})
	}
	assert.Nil(t, defaults.InternalMetadata("apps/v1", "DaemonSet", nil))
	assert.Equal(t, "x", defaults.InternalMetadata("apps/v1", "DaemonSet", "x"), "a value that is not an object is left as it is")
}
