package podresources_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/podresources"
	"github.com/writepath/writepath/internal/value"
)

func ctr(name string, requests map[string]any, sidecar ...bool) map[string]any {
	c := map[string]any{"name": name, "resources": map[string]any{"requests": requests}}
	if len(sidecar) > 0 && sidecar[0] {
		c["restartPolicy"] = "Always"
	}
	return c
}

// TestRequests: component-helpers' examples of resource.PodRequests: init containers at their
// largest, sidecars added to the containers and to the init containers after them, pod-level
// requests in place of the sums, overhead added; the statuses only with UseStatusResources.
func TestRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec map[string]any
		st   map[string]any
		opts podresources.Options
		want map[string]string
	}{
		{name: "containers summed", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1", "memory": "1Gi"}), ctr("b", map[string]any{"cpu": "500m"})}},
			want: map[string]string{"cpu": "1500m", "memory": "1Gi"}},
		{name: "init container larger", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1"})},
			"initContainers": []any{ctr("i", map[string]any{"cpu": "2"}, false)}}, want: map[string]string{"cpu": "2"}},
		{name: "sidecar before init", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1"})},
			"initContainers": []any{ctr("s", map[string]any{"cpu": "1"}, true), ctr("i", map[string]any{"cpu": "2500m"}, false)}},
			want: map[string]string{"cpu": "3500m"}},
		{name: "pod-level requests", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1", "ephemeral-storage": "1Gi"})},
			"resources": map[string]any{"requests": map[string]any{"cpu": "3"}}}, want: map[string]string{"cpu": "3", "ephemeral-storage": "1Gi"}},
		{name: "overhead", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1"})}, "overhead": map[string]any{"cpu": "250m", "memory": "10Mi"}},
			want: map[string]string{"cpu": "1250m", "memory": "10Mi"}},
		{name: "status ignored", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1"})}},
			st:   map[string]any{"containerStatuses": []any{map[string]any{"name": "a", "allocatedResources": map[string]any{"cpu": "4"}}}},
			want: map[string]string{"cpu": "1"}},
		{name: "status allocated", spec: map[string]any{"containers": []any{ctr("a", map[string]any{"cpu": "1"})}},
			st:   map[string]any{"containerStatuses": []any{map[string]any{"name": "a", "allocatedResources": map[string]any{"cpu": "4"}}}},
			opts: podresources.Options{UseStatusResources: true}, want: map[string]string{"cpu": "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := map[string]any{"spec": tc.spec}
			if tc.st != nil {
				pod["status"] = tc.st
			}
			before := value.Clone(pod)
			got, err := podresources.Requests(pod, tc.opts)
			require.NoError(t, err)
			out := map[string]string{}
			for k, q := range got {
				out[k] = q.String()
			}
			assert.Equal(t, tc.want, out, "%v", tc.spec)
			assert.Equal(t, before, any(pod), "input not modified")
		})
	}
}
