package apply_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
)

// BenchmarkWouldConflict compares WouldConflict's shortcut (a comparison of the live object
// with the configuration) with the whole apply it replaces, on a Deployment owned by three
// appliers and an updater, for a configuration that conflicts on the image.
func BenchmarkWouldConflict(b *testing.B) {
	live := mustObject(deploymentConfig)
	for i, m := range []string{"alice", "bob", "carol"} {
		res, err := apply.Apply(apply.Request{Live: nilIfFirst(i, live), Config: mustObject(deploymentConfig), Manager: m, Now: t0.Add(time.Duration(i) * time.Minute)})
		require.NoError(b, err)
		live = res.Object
	}
	upd := deepCopy(live)
	upd["spec"].(map[string]any)["replicas"] = int64(5)
	ures, err := apply.Update(apply.UpdateRequest{Live: live, Object: upd, Manager: "hpa", Now: t0.Add(time.Hour)})
	require.NoError(b, err)
	config := mustObject(deploymentConfig)
	config["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:1.28"
	req := apply.Request{Live: ures.Object, Config: config, Manager: "dave", Now: t0.Add(2 * time.Hour), LibraryOnly: true}
	quick, ok := apply.QuickConflicts(req)
	require.True(b, ok)
	require.NotEmpty(b, quick)
	b.Run("shortcut", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = apply.WouldConflict(req)
		}
	})
	b.Run("whole-apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = apply.FullConflicts(req)
		}
	})
}

func nilIfFirst(i int, m map[string]any) map[string]any {
	if i == 0 {
		return nil
	}
	return m
}
