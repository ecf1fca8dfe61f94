package validation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema/validation"
)

// TestPodQOS: qos.GetPodQOS over the object model (the one copy: the resource quota scopes
// BestEffort and NotBestEffort use it too); quantities compare by value, whatever their JSON
// type.
func TestPodQOS(t *testing.T) {
	ctr := func(res map[string]any) map[string]any { return map[string]any{"name": "c", "resources": res} }
	pod := func(ctrs ...any) map[string]any { return map[string]any{"spec": map[string]any{"containers": ctrs}} }
	both := func(cpu, mem any) map[string]any { return map[string]any{"cpu": cpu, "memory": mem} }
	for _, tc := range []struct {
		name string
		pod  map[string]any
		want string
	}{
		{"no resources", pod(ctr(nil)), "BestEffort"},
		{"guaranteed", pod(ctr(map[string]any{"requests": both("1", "1Gi"), "limits": both("1000m", "1Gi")})), "Guaranteed"},
		{"int64 and float64 values", pod(ctr(map[string]any{"requests": both(int64(1), "0.5Gi"), "limits": both("1", 0.5*(1<<30))})), "Guaranteed"},
		{"float64 below one", pod(ctr(map[string]any{"requests": both(0.5, "1Gi"), "limits": both("500m", "1Gi")})), "Guaranteed"},
		{"cpu only", pod(ctr(map[string]any{"requests": map[string]any{"cpu": "1"}, "limits": map[string]any{"cpu": "1"}})), "Burstable"},
		{"request below limit", pod(ctr(map[string]any{"requests": both("1", "1Gi"), "limits": both("2", "1Gi")})), "Burstable"},
		{"guaranteed and best effort", pod(ctr(map[string]any{"requests": both("1", "1Gi"), "limits": both("1", "1Gi")}), ctr(nil)), "Burstable"},
		{"pod-level resources decide", map[string]any{"spec": map[string]any{"resources": map[string]any{"requests": both("1", "1Gi"), "limits": both("1", "1Gi")},
			"containers": []any{ctr(nil)}}}, "Guaranteed"},
		{"status wins", map[string]any{"spec": map[string]any{"containers": []any{ctr(nil)}}, "status": map[string]any{"qosClass": "Guaranteed"}}, "Guaranteed"},
	} {
		assert.Equal(t, tc.want, validation.PodQOS(tc.pod), tc.name)
	}
}
