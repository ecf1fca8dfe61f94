package apply

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
)

// The structured update leaves out the top-level fields both objects hold identically
// (withoutSharedFields): over status updates, spec changes, values of another type, invalid
// fields on either side, duplicate list keys and managers of another apiVersion, the managed
// fields and the errors are those of converting and comparing the whole objects.
func TestSharedFieldsLeftOutChangeNothing(t *testing.T) {
	pod := func(image string, extra map[string]any, status map[string]any) map[string]any {
		spec := map[string]any{"containers": []any{map[string]any{"name": "web", "image": image}}, "restartPolicy": "Always"}
		for k, v := range extra {
			spec[k] = v
		}
		o := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "ns", "labels": map[string]any{"app": "web"}},
			"spec": spec}
		if status != nil {
			o["status"] = status
		}
		return o
	}
	pending := map[string]any{"phase": "Pending"}
	running := map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	dup := map[string]any{"containers": []any{map[string]any{"name": "web", "image": "a"}, map[string]any{"name": "web", "image": "b"}}}
	cases := []struct {
		name      string
		live, new map[string]any
		version   string // of the live manager, "" for v1
	}{
		{"status update", pod("a", nil, pending), pod("a", nil, running), ""},
		{"spec and status", pod("a", nil, pending), pod("b", nil, running), ""},
		{"no change", pod("a", nil, running), pod("a", nil, running), ""},
		{"int and float", pod("a", map[string]any{"terminationGracePeriodSeconds": int64(30)}, pending),
			pod("a", map[string]any{"terminationGracePeriodSeconds": float64(30)}, running), ""},
		{"invalid in both", pod("a", map[string]any{"hostNetwork": "yes"}, pending), pod("a", map[string]any{"hostNetwork": "yes"}, running), ""},
		{"invalid live status", pod("a", nil, map[string]any{"phase": int64(3)}), pod("a", nil, running), ""},
		{"invalid new status", pod("a", nil, pending), pod("a", nil, map[string]any{"phase": int64(3)}), ""},
		{"duplicate keys kept", pod("a", nil, pending), pod("a", nil, running), ""},
		{"other manager version", pod("a", nil, pending), pod("a", nil, running), "v2"},
	}
	cases[7].live["spec"], cases[7].new["spec"] = dup, dup
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(whole bool) string {
				e := newEngine(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "status", time.Unix(0, 0), Builtin, nil, nil, 0)
				e.wholeObjects = whole
				version := tc.version
				if version == "" {
					version = "v1"
				}
				set, err := managedfields.SetFromFieldsV1([]byte(`{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`))
				require.NoError(t, err)
				managed := managedfields.Managed{Fields: fieldpath.ManagedFields{"kcm": fieldpath.NewVersionedSet(set, fieldpath.APIVersion(version), false)},
					Times: map[string]*time.Time{}}
				_, out, err := e.structuredUpdate(tc.live, tc.new, managed, "kubelet")
				if err != nil {
					return "error: " + err.Error()
				}
				s := ""
				for _, id := range []string{"kcm", "kubelet"} {
					if vs, ok := out.Fields[id]; ok {
						js, err := vs.Set().ToJSON()
						require.NoError(t, err)
						s += fmt.Sprintf("%s %s %s\n", id, vs.APIVersion(), js)
					}
				}
				return s
			}
			assert.Equal(t, run(true), run(false))
		})
	}
}

// tweak changes one random scalar of obj (in place) to another of its type, or removes a
// random map entry: the changes a write makes, at any depth.
func tweak(r *rand.Rand, obj map[string]any) {
	type place struct {
		m map[string]any
		l []any
		k string
		i int
	}
	var places []place
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				places = append(places, place{m: x, k: k})
				walk(e)
			}
		case []any:
			for i, e := range x {
				places = append(places, place{l: x, i: i})
				walk(e)
			}
		}
	}
	walk(obj)
	if len(places) == 0 {
		return
	}
	p := places[r.Intn(len(places))]
	get := func() any {
		if p.m != nil {
			return p.m[p.k]
		}
		return p.l[p.i]
	}
	set := func(v any) {
		if p.m != nil {
			p.m[p.k] = v
		} else {
			p.l[p.i] = v
		}
	}
	switch v := get().(type) {
	case string:
		set(v + "x")
	case int64:
		set(v + 1)
	case bool:
		set(!v)
	default:
		if p.m != nil && r.Float64() < 0.5 {
			delete(p.m, p.k)
		}
	}
}

// TestSharedPrunedChangesNothing compares the structured update with and without the shared
// entries left out (withoutSharedFields) on random Deployments (duplicate list keys
// included) and their copies changed at random depths (same-type changes, removals, values of
// another kind), with random managers: the same managed fields, the same conversion failing.
func TestSharedPrunedChangesNothing(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.NoError(t, err)
	pt, err := k.SMDType()
	require.NoError(t, err)
	toSet := func(obj map[string]any) *fieldpath.Set {
		tv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
		require.NoError(t, err)
		s, err := tv.ToFieldSet()
		require.NoError(t, err)
		return s
	}
	r := rand.New(rand.NewSource(9))
	cases := 1500
	if os.Getenv("WRITEPATH_LONG") != "" {
		cases = 40000
	}
	pruned, failed := 0, 0
	for i := 0; i < cases; i++ {
		live := adversarialDeployment(r, true)
		newObj := value.Clone(live).(map[string]any)
		for n := 1 + r.Intn(3); n > 0; n-- {
			if r.Float64() < 0.8 {
				tweak(r, newObj)
			} else {
				mutate(r, newObj)
			}
		}
		managers := fieldpath.ManagedFields{}
		for j, name := range []string{"alice", "bob"} {
			if r.Float64() < 0.8 {
				s := withGarbage(r, toSet(adversarialDeployment(r, false)))
				if r.Float64() < 0.5 {
					s = randomSubset(r, toSet(live), r.Float64())
				}
				managers[fmt.Sprintf(`{"manager":%q,"operation":"Update"}`, name)] = fieldpath.NewVersionedSet(s, "apps/v1", j == 1)
			}
		}
		run := func(whole bool) string {
			e := newEngine(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "", time.Unix(0, 0), Builtin, nil, nil, 0)
			e.wholeObjects = whole
			m := managedfields.Managed{Fields: copyManaged(managers), Times: map[string]*time.Time{}}
			_, out, err := e.structuredUpdate(live, newObj, m, "carol")
			if err != nil {
				// Which conversion failed; SMD's messages depend on map iteration order (it
				// stops a map at its first unknown field).
				msg, _, _ := strings.Cut(err.Error(), " to smd typed: ")
				return "error: " + msg
			}
			var lines []string
			for id, vs := range out.Fields {
				js, err := vs.Set().ToJSON()
				require.NoError(t, err)
				lines = append(lines, fmt.Sprintf("%s %s %v %s", id, vs.APIVersion(), vs.Applied(), js))
			}
			sort.Strings(lines)
			return strings.Join(lines, "\n")
		}
		whole := run(true)
		if !assert.Equal(t, whole, run(false), "case %d: live %v, new %v, managers %v", i, live, newObj, managers) {
			return
		}
		if strings.HasPrefix(whole, "error: ") {
			failed++
		}
		e := newEngine(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "", time.Unix(0, 0), Builtin, nil, nil, 0)
		if _, _, ok := e.withoutSharedFields(live, newObj, managedfields.Managed{Fields: managers}); ok {
			pruned++
		}
	}
	t.Logf("%d cases, %d with entries left out, %d errors", cases, pruned, failed)
	assert.Greater(t, pruned, cases/2)
}
