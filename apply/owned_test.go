package apply

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// randomPod draws a Pod from a small vocabulary: containers with images and resources,
// pod-level resources, a status with a phase, conditions (observedGeneration among them) and
// a QoS class.
func randomPod(r *rand.Rand) map[string]any {
	pick := func(p float64) bool { return r.Float64() < p }
	spec := map[string]any{}
	var containers []any
	for _, name := range []string{"a", "b"} {
		if pick(0.6) {
			c := map[string]any{"name": name, "image": fmt.Sprint("img:", r.Intn(2))}
			if pick(0.3) {
				c["resources"] = map[string]any{"limits": map[string]any{"cpu": fmt.Sprint(1 + r.Intn(2))}}
			}
			containers = append(containers, c)
		}
	}
	spec["containers"] = containers
	if pick(0.2) {
		spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "1"}}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "labels": map[string]any{"app": fmt.Sprint(r.Intn(2))}}, "spec": spec}
	if pick(0.7) {
		st := map[string]any{"phase": []string{"Pending", "Running"}[r.Intn(2)]}
		if pick(0.5) {
			st["qosClass"] = "BestEffort"
		}
		if pick(0.5) {
			st["observedGeneration"] = int64(r.Intn(3))
		}
		if pick(0.6) {
			c := map[string]any{"type": "Ready", "status": []string{"True", "False"}[r.Intn(2)]}
			if pick(0.5) {
				c["observedGeneration"] = int64(r.Intn(2))
			}
			st["conditions"] = []any{c}
		}
		obj["status"] = st
	}
	return obj
}

// UpdateRequest.ObjectOwned and LiveShared spare copies and nothing else: over random
// Deployments and Pods written by random managers (creates, updates and status updates, with
// the endpoint's value resets, the Pod strategy's among them), Update answers the same object,
// byte for byte, the same no-op and the same fallback or error with them as without, and never
// changes Live.
func TestObjectOwnedChangesNothing(t *testing.T) {
	for _, gvk := range []schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deployment"}, {Version: "v1", Kind: "Pod"}} {
		t.Run(gvk.Kind, func(t *testing.T) { testObjectOwned(t, gvk) })
	}
}

func testObjectOwned(t *testing.T, gvk schema.GroupVersionKind) {
	draw := randomDeployment
	if gvk.Kind == "Pod" {
		draw = randomPod
	}
	r := rand.New(rand.NewSource(18))
	t0 := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	managers := []string{"kcm", "kubectl", "kubelet"}
	clone := func(m map[string]any) map[string]any {
		c, err := value.DeepCopyMap(m)
		require.NoError(t, err)
		return c
	}
	encode := func(v map[string]any) string {
		b, err := codec.EncodeJSON(v)
		require.NoError(t, err)
		return string(b)
	}
	kinds := map[string]int{}
	for i := 0; i < 400; i++ {
		sub := []string{"", "status"}[r.Intn(2)]
		req := func(live, obj map[string]any, manager string, owned bool) UpdateRequest {
			return UpdateRequest{Live: live, Object: obj, Kind: gvk, Manager: manager, Subresource: sub, Now: t0.Add(time.Duration(i) * time.Second),
				ResetFields: ResetFields(gvk, sub), ResetValues: ResetPaths(gvk, sub), Reset: StrategyReset(gvk, sub), ObjectOwned: owned, LiveShared: owned}
		}
		// A live object with managedFields: a create, then updates by random managers.
		var live map[string]any
		for j := 0; j < 1+r.Intn(3); j++ {
			obj := draw(r)
			if r.Intn(3) == 0 && gvk.Kind == "Deployment" {
				obj["status"] = map[string]any{"replicas": int64(r.Intn(3))}
			}
			res, err := Update(UpdateRequest{Live: live, Object: obj, Kind: gvk, Manager: managers[r.Intn(len(managers))], Now: t0})
			require.NoError(t, err)
			live = res.Object
		}
		obj := draw(r)
		if r.Intn(2) == 0 && gvk.Kind == "Deployment" {
			obj["status"] = map[string]any{"replicas": int64(r.Intn(3)), "readyReplicas": int64(r.Intn(2))}
		}
		if r.Intn(4) == 0 {
			// The client's own managedFields (kept, replaced or reset by the update).
			obj["metadata"].(map[string]any)["managedFields"] = clone(live)["metadata"].(map[string]any)["managedFields"]
		}
		if r.Intn(6) == 0 {
			obj["spec"] = map[string]any{"replicas": "three"} // refused by the typed conversion: the fallback
		}
		manager := managers[r.Intn(len(managers))]
		liveBefore := encode(live)
		want, wantErr := Update(req(live, clone(obj), manager, false))
		got, gotErr := Update(req(live, clone(obj), manager, true))
		msg := fmt.Sprintf("case %d (subresource %q, manager %s): live %s, object %s", i, sub, manager, liveBefore, encode(obj))
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), msg)
		assert.Equal(t, liveBefore, encode(live), "live changed: %s", msg)
		if wantErr != nil {
			kinds["error"]++
			continue
		}
		assert.Equal(t, encode(want.Object), encode(got.Object), msg)
		assert.Equal(t, want.NoOp, got.NoOp, msg)
		assert.Equal(t, fmt.Sprint(want.Fallback), fmt.Sprint(got.Fallback), msg)
		kinds[fmt.Sprint(want.NoOp, want.Fallback != nil)]++
	}
	// The draw covers writes that change the object, no-ops and fallbacks.
	for _, k := range []string{"false false", "true false", "false true"} {
		assert.Positive(t, kinds[k], "no case of (noop, fallback) = %s in %v", k, kinds)
	}
}
