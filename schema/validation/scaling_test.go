package validation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// hugePod is a valid pod with n containers, each with n/100+1 ports and env vars, or one
// container with n ports and n env vars (wide).
func hugePod(n int, wide bool) map[string]any {
	ctr := func(i, ports int) map[string]any {
		ps := make([]any, ports)
		env := make([]any, ports)
		for j := range ps {
			ps[j] = map[string]any{"containerPort": int64(j%65535 + 1), "protocol": "TCP"}
			env[j] = map[string]any{"name": fmt.Sprintf("V%d", j), "value": "x"}
		}
		return map[string]any{"name": fmt.Sprintf("c%d", i), "image": "nginx", "terminationMessagePolicy": "File",
			"imagePullPolicy": "Always", "ports": ps, "env": env}
	}
	var ctrs []any
	if wide {
		ctrs = []any{ctr(0, n)}
	} else {
		for i := 0; i < n; i++ {
			ctrs = append(ctrs, ctr(i, 1))
		}
	}
	return map[string]any{
		"metadata": map[string]any{"name": "p", "namespace": "n"},
		"spec": map[string]any{"containers": ctrs, "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
			"terminationGracePeriodSeconds": int64(30)},
	}
}

// TestValidateScalesLinearly counts the work of validating 1,000 and 10,000 containers (and one
// container with that many ports and env vars) by the allocations it makes: ten times the input
// must cost about ten times the work (at most 13x), not a hundred.
func TestValidateScalesLinearly(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, wide := range []bool{false, true} {
		small, large := hugePod(1000, wide), hugePod(10000, wide)
		assert.Empty(t, validation.Validate(gvk, large, validation.Options{}), "wide=%v: the large pod is valid", wide)
		a := testing.AllocsPerRun(1, func() { validation.Validate(gvk, small, validation.Options{}) })
		b := testing.AllocsPerRun(1, func() { validation.Validate(gvk, large, validation.Options{}) })
		assert.LessOrEqual(t, b/a, 13.0, "wide=%v: allocations %v for 1,000 and %v for 10,000", wide, a, b)
		u := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(gvk, large, large, validation.Options{}) })
		assert.LessOrEqual(t, u/b, 3.0, "wide=%v: an update costs %v allocations, a create %v", wide, u, b)
	}
}

// TestForbiddenPodUpdateDiffScales: a refused pod update carries a diff of the two pod specs
// (go-difflib, as the apiserver); with every port of the pod changed and its node moved, ten
// times the ports cost about ten times the work, not a hundred.
func TestForbiddenPodUpdateDiffScales(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	changed := func(n int) (map[string]any, map[string]any) {
		old, upd := hugePod(n, true), hugePod(n, true)
		for _, p := range upd["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"].([]any) {
			m := p.(map[string]any)
			m["containerPort"] = m["containerPort"].(int64)%60000 + 2
		}
		upd["spec"].(map[string]any)["nodeName"] = "other"
		return upd, old
	}
	su, so := changed(1000)
	lu, lo := changed(10000)
	errs := validation.ValidateUpdate(gvk, lu, lo, validation.Options{})
	assert.NotEmpty(t, errs)
	a := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(gvk, su, so, validation.Options{}) })
	b := testing.AllocsPerRun(1, func() { validation.ValidateUpdate(gvk, lu, lo, validation.Options{}) })
	assert.LessOrEqual(t, b/a, 13.0, "allocations %v for 1,000 ports and %v for 10,000", a, b)
}
