package fieldmanager

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/apply"
	wschema "github.com/writepath/writepath/schema"
)

// TestWouldConflictProperty checks apply.WouldConflict (which answers from a comparison of the
// live object with the configuration, without merging, where it can) against the conflicts of
// the whole apply.Apply, on the random operation sequences of TestDifferential's generators:
// every apply configuration of every sequence, before the step runs, with the same conflicts
// (fields, owners, order) or the same error.
func TestWouldConflictProperty(t *testing.T) {
	cases, withConflicts, shortcut := 0, 0, 0
	for _, sc := range deploymentScenarios() {
		ourTC := apply.TypeConverter(apply.Builtin)
		if sc.refTypes != nil {
			_, ourTC = sc.refTypes()
		}
		var filter map[fieldpath.APIVersion]fieldpath.Filter
		if sc.reset != nil {
			filter = fieldpath.NewExcludeFilterSetMap(sc.reset)
		}
		pool := sc.managers
		if pool == nil {
			pool = managers
		}
		nops := sc.ops
		if nops == 0 {
			nops = opsPerSequence
		}
		us := &ours{gvk: wschema.GroupVersionKind(sc.gvk), subresource: sc.subresource, types: ourTC, reset: filter}
		n := sequences() * opsPerSequence / nops
		for seq := 0; seq < n; seq++ {
			seed := int64(seq)*7919 + int64(len(sc.name)) + 1
			r := rand.New(rand.NewSource(seed))
			var live map[string]any
			for step := 0; step < nops; step++ {
				now := logicalBase.Add(time.Duration(seq*100+step+1) * time.Second)
				manager := pool[r.Intn(len(pool))]
				var out outcome
				if k := r.Intn(10); k < 6 || live == nil && k < 8 {
					config := sc.gen(r)
					mutateConfig(r, config, live)
					config = roundTrip(config)
					req := apply.Request{Live: live, Config: config, Kind: us.gvk, Manager: manager,
						Subresource: sc.subresource, Now: now, Types: ourTC, ResetFields: filter, Default: apply.NoDefault, CreateFrom: emptyObject(config)}
					before, configBefore := deepCopy(live), deepCopy(config)
					got, gotErr := apply.WouldConflict(req)
					require.Equal(t, before, live, "WouldConflict changed the live object")
					require.Equal(t, configBefore, config, "WouldConflict changed the configuration")
					_, err := apply.Apply(req)
					var want []apply.Conflict
					var wantErr error
					var ce *apply.ConflictError
					if errors.As(err, &ce) {
						want = ce.Conflicts
					} else {
						wantErr = err
					}
					desc := fmt.Sprintf("%s seed=%d step=%d manager=%s\nlive=%s\nconfig=%s", sc.name, seed, step, manager, js(live), js(config))
					if !assert.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), desc) || !assert.Equal(t, want, got, desc) {
						t.FailNow()
					}
					cases++
					if len(want) > 0 {
						withConflicts++
					}
					if live != nil && manager != "kubectl" && len(asList(live["metadata"].(map[string]any)["managedFields"])) > 0 {
						shortcut++
					}
					out = us.apply(live, config, manager, r.Intn(4) == 0, now)
				} else {
					newObj := roundTrip(updatedObject(r, sc, live))
					out = us.update(live, newObj, manager, now)
				}
				if out.Object != nil {
					live = out.Object
				}
			}
		}
	}
	t.Logf("%d applies checked (%d with conflicts, %d eligible for the shortcut), 0 disagreements", cases, withConflicts, shortcut)
}

func asList(v any) []any { l, _ := v.([]any); return l }
