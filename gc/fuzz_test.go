package gc_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/gc"
)

// graphFromBytes builds a snapshot of up to 12 objects from fuzz input: kinds, namespaces,
// owner references (live, dangling, cross-namespace, self), blockOwnerDeletion, finalizers and
// deletion states are all chosen by the bytes.
func graphFromBytes(data []byte) []gc.Object {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	n := int(next()%12) + 1
	kinds := []struct{ apiVersion, kind string }{{"v1", "ConfigMap"}, {"v1", "Secret"}, {"apps/v1", "ReplicaSet"}, {"v1", "Pod"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole"}, {"v1", "Namespace"}, {"example.com/v1", "Unknown"}}
	namespaces := []string{"a", "b"}
	objs := make([]gc.Object, 0, n)
	type id struct{ apiVersion, kind, name, uid string }
	var ids []id
	for i := 0; i < n; i++ {
		k := kinds[int(next())%len(kinds)]
		name := fmt.Sprintf("o%d", i)
		uid := fmt.Sprintf("u%d", i)
		md := map[string]any{"name": name, "uid": uid}
		switch k.kind {
		case "ClusterRole", "Namespace":
		default:
			md["namespace"] = namespaces[int(next())%2]
		}
		flags := next()
		if flags&1 != 0 {
			md["finalizers"] = []any{"example.com/hold"}
		}
		if flags&2 != 0 {
			md["deletionTimestamp"] = "2026-11-29T11:00:00Z"
			md["deletionGracePeriodSeconds"] = int64(0)
			fs, _ := md["finalizers"].([]any)
			switch (flags >> 2) & 3 {
			case 1:
				fs = append(fs, "foregroundDeletion")
			case 2:
				fs = append(fs, "orphan")
			}
			if len(fs) == 0 {
				fs = []any{"example.com/hold"}
			}
			md["finalizers"] = fs
		}
		obj := gc.Object{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": md}
		if k.kind == "Namespace" {
			obj["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
		}
		if k.kind == "Pod" {
			obj["spec"] = map[string]any{}
		}
		objs = append(objs, obj)
		ids = append(ids, id{k.apiVersion, k.kind, name, uid})
	}
	for i := range objs {
		refs := int(next() % 3)
		var list []any
		seen := map[string]bool{}
		for r := 0; r < refs; r++ {
			b := next()
			var ref map[string]any
			if int(b>>1)%(len(ids)+1) == len(ids) {
				ref = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": fmt.Sprintf("ghost%d", r)}
			} else {
				t := ids[int(b>>1)%(len(ids)+1)]
				ref = map[string]any{"apiVersion": t.apiVersion, "kind": t.kind, "name": t.name, "uid": t.uid}
			}
			if seen[ref["uid"].(string)] {
				continue
			}
			seen[ref["uid"].(string)] = true
			if b&1 != 0 {
				ref["blockOwnerDeletion"] = true
			}
			list = append(list, ref)
		}
		if len(list) > 0 {
			objs[i]["metadata"].(map[string]any)["ownerReferences"] = list
		}
	}
	return objs
}

func FuzzRun(f *testing.F) {
	f.Add([]byte{3, 0, 0, 2, 0, 0, 6, 0, 1, 2, 1, 4})
	f.Add([]byte{5, 0, 0, 7, 5, 1, 1, 0, 0, 2, 2, 1, 3, 1, 5, 1, 1})
	f.Add([]byte{11, 5, 3, 3, 1, 0, 4, 6, 2, 9, 9, 9, 9, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		objs := graphFromBytes(data)
		before, err := json.Marshal(objs)
		require.NoError(t, err)
		res, err := gc.Run(objs, gc.Options{Now: t0, MaxRounds: 200})
		require.NoError(t, err)
		after, _ := json.Marshal(objs)
		assert.JSONEq(t, string(before), string(after), "Run modified its input")
		assert.True(t, res.Converged, "no fixpoint within 200 rounds")
		// Change tracking decides nothing by itself: a run evaluating everything each round
		// takes the same actions.
		full, err := gc.RunFullScan(objs, gc.Options{Now: t0, MaxRounds: 200})
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(full.Rounds), fmt.Sprint(res.Rounds), "rounds with and without change tracking")
		assert.Equal(t, full.Objects, res.Objects, "final objects with and without change tracking")
		// At the fixpoint, another run does nothing.
		again, err := gc.Run(res.Objects, gc.Options{Now: t0, MaxRounds: 200})
		require.NoError(t, err)
		for _, r := range again.Rounds {
			for _, a := range r {
				if a.Type != gc.ActionEvent && a.Outcome != "" && a.Outcome[0] != 'e' {
					t.Errorf("action after the fixpoint: %s", a)
				}
			}
		}
		// No object being deleted without finalizers (and without a pending grace period) stays.
		for _, o := range res.Objects {
			md := o["metadata"].(map[string]any)
			fs, _ := md["finalizers"].([]any)
			spec, _ := o["spec"].(map[string]any)
			sf, _ := spec["finalizers"].([]any)
			if md["deletionTimestamp"] != nil && len(fs) == 0 && len(sf) == 0 {
				t.Errorf("%v is being deleted without finalizers", md["name"])
			}
		}
		// Step never panics and does not modify either.
		_, err = gc.Step(objs, gc.Options{Now: t0})
		require.NoError(t, err)
		for _, o := range objs {
			md := o["metadata"].(map[string]any)
			_, _ = gc.Diagnose(objs, gc.Ref{APIVersion: o["apiVersion"].(string), Kind: o["kind"].(string), Namespace: fmt.Sprint(md["namespace"]), Name: md["name"].(string)}, gc.DiagnoseOptions{Options: gc.Options{Now: t0}})
		}
		after, _ = json.Marshal(objs)
		assert.JSONEq(t, string(before), string(after), "Step or Diagnose modified its input")
	})
}

func FuzzDelete(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","generation":1},"spec":{"nodeName":"n"}}`), uint8(0), int64(5), true)
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["a","orphan"],"deletionTimestamp":"2026-11-29T11:00:00Z"}}`), uint8(1), int64(-1), false)
	f.Add([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","deletionTimestamp":"x"},"spec":{"finalizers":["kubernetes"]}}`), uint8(2), int64(0), false)
	f.Add([]byte(`{"metadata":7}`), uint8(3), int64(0), true)
	policies := []string{"", "Foreground", "Background", "Orphan", "Bogus"}
	f.Fuzz(func(t *testing.T, raw []byte, policy uint8, grace int64, dry bool) {
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return
		}
		obj = intify(obj).(map[string]any)
		before, _ := json.Marshal(obj)
		opts := gc.DeleteOptions{}
		if p := policies[int(policy)%len(policies)]; p != "" {
			pp := gc.Propagation(p)
			opts.PropagationPolicy = &pp
		}
		if policy&8 != 0 {
			opts.GracePeriodSeconds = &grace
		}
		if policy&16 != 0 {
			b := policy&32 != 0
			opts.OrphanDependents = &b
		}
		if dry {
			opts.DryRun = []string{"All"}
		}
		o := opts
		o.Now = t0
		res, err := gc.Delete(obj, o)
		ns := gc.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "n"}, "status": map[string]any{"phase": "Terminating"}}
		_ = gc.CheckCreate(obj, obj, ns, nil)
		after, _ := json.Marshal(obj)
		assert.JSONEq(t, string(before), string(after), "Delete or CheckCreate modified its input")
		if err == nil {
			if res.Removed && !dry {
				assert.Nil(t, res.Object)
			}
			if dry {
				assert.False(t, res.Changed)
			}
			if res.Object != nil && !res.Removed {
				_, _ = gc.Update(obj, res.Object, nil)
			}
		}
	})
}

// intify turns whole float64 numbers into int64, as the library's decoder does.
func intify(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = intify(x)
		}
	case []any:
		for i, x := range t {
			t[i] = intify(x)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}
