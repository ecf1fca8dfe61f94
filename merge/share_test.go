package merge

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// randomPodValue draws a Pod-shaped object or patch from a small vocabulary, so that patches
// meet what objects hold: labels and finalizers, containers and conditions (lists merged by
// key), scalars of several types, nulls, and now and then a float that encodes as an
// integer, a typed nil map or list, or a directive.
func randomPodValue(r *rand.Rand, patch bool) map[string]any {
	pick := func(p float64) bool { return r.Float64() < p }
	scalar := func() any {
		switch r.IntN(8) {
		case 0:
			return int64(r.IntN(3))
		case 1:
			return float64(r.IntN(3)) // encodes as an integer: RoundTripJSON makes it int64
		case 2:
			return 0.5
		case 3:
			return pick(0.5)
		case 4:
			if patch {
				return nil
			}
		case 5:
			if !patch {
				return map[string]any(nil)
			}
		case 6:
			if !patch {
				return []any(nil)
			}
		}
		return fmt.Sprint("v", r.IntN(3))
	}
	strMap := func() map[string]any {
		m := map[string]any{}
		for _, k := range []string{"a", "b", "c"} {
			if pick(0.4) {
				m[k] = scalar()
			}
		}
		return m
	}
	keyed := func(key string, names []string, fields []string) []any {
		var l []any
		for _, n := range names {
			if !pick(0.5) {
				continue
			}
			e := map[string]any{key: n}
			for _, f := range fields {
				if pick(0.4) {
					e[f] = scalar()
				}
			}
			if patch && pick(0.1) {
				e["$patch"] = "delete"
			}
			l = append(l, e)
		}
		return l
	}
	obj := map[string]any{}
	md := map[string]any{}
	if pick(0.6) {
		md["labels"] = strMap()
	}
	if pick(0.3) {
		md["finalizers"] = []any{"x", fmt.Sprint("f", r.IntN(2))}
	}
	if pick(0.3) {
		md["uid"] = "u"
	}
	if patch && pick(0.08) {
		md["$deleteFromPrimitiveList/finalizers"] = []any{"x"}
	}
	if len(md) > 0 || pick(0.5) {
		obj["metadata"] = md
	}
	if pick(0.6) {
		spec := map[string]any{}
		if pick(0.7) {
			spec["containers"] = keyed("name", []string{"a", "b", "c"}, []string{"image", "command"})
		}
		if pick(0.3) {
			spec["nodeSelector"] = strMap()
		}
		if pick(0.3) {
			spec["restartPolicy"] = scalar()
		}
		if patch && pick(0.08) {
			spec["$setElementOrder/containers"] = []any{map[string]any{"name": "b"}, map[string]any{"name": "a"}}
		}
		if patch && pick(0.05) {
			spec["$retainKeys"] = []any{"containers"}
		}
		obj["spec"] = spec
	}
	if pick(0.6) {
		st := map[string]any{}
		if pick(0.7) {
			st["conditions"] = keyed("type", []string{"Ready", "Initialized"}, []string{"status", "reason"})
		}
		if pick(0.5) {
			st["phase"] = scalar()
		}
		obj["status"] = st
	}
	if patch && pick(0.05) {
		obj["$patch"] = "replace"
	}
	if patch && pick(0.05) {
		obj["status"] = nil
	}
	return obj
}

// Options.ShareUnpatched changes nothing but what the result shares: over random objects and
// strategic merge patches (directives, nulls and values of other types among them), the result
// is the same value (types included) and the same error as with a whole copy, and obj is left
// as it was.
func TestShareUnpatchedChangesNothing(t *testing.T) {
	kind, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(t, err)
	meta, err := KindMeta(kind)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(18, 3))
	shared := 0
	for i := 0; i < 4000; i++ {
		obj := randomPodValue(r, false)
		p := randomPodValue(r, true)
		body, err := codec.EncodeJSON(p)
		require.NoError(t, err)
		before := fmt.Sprintf("%#v", obj)
		want, wantErr := ApplyStrategic(obj, body, meta, Options{})
		got, gotErr := ApplyStrategic(obj, body, meta, Options{ShareUnpatched: true})
		msg := fmt.Sprintf("case %d: object %s, patch %s", i, before, body)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), msg)
		assert.Equal(t, before, fmt.Sprintf("%#v", obj), "object changed: %s", msg)
		assert.True(t, reflect.DeepEqual(want.Object, got.Object), "%s\nwant %#v\ngot  %#v", msg, want.Object, got.Object)
		assert.Equal(t, want.Warnings, got.Warnings, msg)
		if _, ok := copyAlongPatch(obj, p); ok && wantErr == nil {
			shared++
		}
	}
	assert.Greater(t, shared, 1000, "cases that share")
	t.Logf("%d of 4000 shared", shared)
}
