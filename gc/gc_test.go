package gc_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// golden compares got (rendered as YAML) with testdata/gc/golden/<name>.yaml; UPDATE_GOLDEN=1
// rewrites the file.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	j, err := json.Marshal(got)
	require.NoError(t, err)
	y, err := yaml.JSONToYAML(j)
	require.NoError(t, err)
	path := filepath.Join("..", "testdata", "gc", "golden", name+".yaml")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, y, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), string(y), "golden %s", path)
}

func decode(t *testing.T, y string) gc.Object {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	v, err := codec.DecodeValue(j)
	require.NoError(t, err)
	o, ok := v.(map[string]any)
	require.True(t, ok, "%s is an object", y)
	return o
}

func ptr[T any](v T) *T { return &v }

func errorOut(err error) map[string]any {
	var se *status.Error
	if errors.As(err, &se) {
		return map[string]any{"code": se.StatusCode(), "reason": se.Reason, "message": se.Message}
	}
	return map[string]any{"message": err.Error()}
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const (
	cm        = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, resourceVersion: '7', generation: 1}}"
	cmHeld    = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, finalizers: [example.com/hold]}}"
	cmFg      = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [example.com/hold, foregroundDeletion]}}"
	job       = "{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns, uid: u1, generation: 1}}"
	rc        = "{apiVersion: v1, kind: ReplicationController, metadata: {name: r, namespace: ns, uid: u1}}"
	event     = "{apiVersion: v1, kind: Event, metadata: {name: e, namespace: ns, uid: u1}}"
	deploy    = "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns, uid: u1, generation: 3}}"
	podFree   = "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, generation: 1}, spec: {terminationGracePeriodSeconds: 30}}"
	podBound  = "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, generation: 1}, spec: {nodeName: n1, terminationGracePeriodSeconds: 30}}"
	podDone   = "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, generation: 1}, spec: {nodeName: n1, terminationGracePeriodSeconds: 30}, status: {phase: Succeeded}}"
	podDying  = "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, generation: 2, deletionTimestamp: '2026-11-29T12:00:30Z', deletionGracePeriodSeconds: 30}, spec: {nodeName: n1, terminationGracePeriodSeconds: 30}}"
	podHeld   = "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, generation: 1, finalizers: [example.com/hold]}, spec: {}}"
	ns        = "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1}, spec: {finalizers: [kubernetes]}, status: {phase: Active}}"
	nsDying   = "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z'}, spec: {finalizers: [kubernetes]}, status: {phase: Terminating}}"
	nsEmptied = "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z'}, spec: {}, status: {phase: Terminating}}"
	nsDefault = "{apiVersion: v1, kind: Namespace, metadata: {name: default, uid: u1}, spec: {finalizers: [kubernetes]}}"
)

func TestDelete(t *testing.T) {
	fg, bg, orphan := gc.Foreground, gc.Background, gc.Orphan
	cases := []struct {
		name string
		obj  string
		opts gc.DeleteOptions
	}{
		{"configmap-no-options", cm, gc.DeleteOptions{}},
		{"configmap-foreground", cm, gc.DeleteOptions{PropagationPolicy: &fg}},
		{"configmap-orphan", cm, gc.DeleteOptions{PropagationPolicy: &orphan}},
		{"configmap-background", cm, gc.DeleteOptions{PropagationPolicy: &bg}},
		{"configmap-orphandependents-false", cm, gc.DeleteOptions{OrphanDependents: ptr(false)}},
		{"configmap-orphandependents-true", cm, gc.DeleteOptions{OrphanDependents: ptr(true)}},
		{"configmap-user-finalizer", cmHeld, gc.DeleteOptions{}},
		{"configmap-user-finalizer-dryrun", cmHeld, gc.DeleteOptions{PropagationPolicy: &fg, DryRun: []string{"All"}}},
		{"configmap-dryrun", cm, gc.DeleteOptions{DryRun: []string{"All"}}},
		{"deleting-again-unchanged", cmFg, gc.DeleteOptions{}},
		{"deleting-again-switch-to-orphan", cmFg, gc.DeleteOptions{PropagationPolicy: &orphan}},
		{"deleting-again-background-drops-gc-finalizer", cmFg, gc.DeleteOptions{PropagationPolicy: &bg}},
		{"job-default-orphans", job, gc.DeleteOptions{}},
		{"job-background", job, gc.DeleteOptions{PropagationPolicy: &bg}},
		{"replicationcontroller-default-orphans", rc, gc.DeleteOptions{}},
		{"event-unsupported-policy", event, gc.DeleteOptions{PropagationPolicy: &fg}},
		{"deployment-default-background", deploy, gc.DeleteOptions{}},
		{"deployment-foreground-generation", deploy, gc.DeleteOptions{PropagationPolicy: &fg}},
		{"gc-disabled", cm, gc.DeleteOptions{PropagationPolicy: &fg, GarbageCollectionDisabled: true}},
		{"pod-unscheduled", podFree, gc.DeleteOptions{}},
		{"pod-bound-graceful", podBound, gc.DeleteOptions{}},
		{"pod-bound-grace-10", podBound, gc.DeleteOptions{GracePeriodSeconds: ptr(int64(10))}},
		{"pod-bound-grace-negative", podBound, gc.DeleteOptions{GracePeriodSeconds: ptr(int64(-5))}},
		{"pod-terminal", podDone, gc.DeleteOptions{}},
		{"pod-dying-longer-grace-pending", podDying, gc.DeleteOptions{GracePeriodSeconds: ptr(int64(60))}},
		{"pod-dying-no-grace-pending", podDying, gc.DeleteOptions{}},
		{"pod-dying-shorten", podDying, gc.DeleteOptions{GracePeriodSeconds: ptr(int64(10))}},
		{"pod-dying-now", podDying, gc.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}},
		{"pod-finalizer", podHeld, gc.DeleteOptions{}},
		{"precondition-uid", cm, gc.DeleteOptions{Preconditions: &gc.Preconditions{UID: ptr("other")}}},
		{"precondition-resourceversion", cm, gc.DeleteOptions{Preconditions: &gc.Preconditions{ResourceVersion: ptr("6")}}},
		{"precondition-match", cm, gc.DeleteOptions{Preconditions: &gc.Preconditions{UID: ptr("u1"), ResourceVersion: ptr("7")}}},
		{"invalid-policy", cm, gc.DeleteOptions{PropagationPolicy: ptr(gc.Propagation("Sideways"))}},
		{"invalid-both", cm, gc.DeleteOptions{PropagationPolicy: &fg, OrphanDependents: ptr(true)}},
		{"invalid-dryrun", cm, gc.DeleteOptions{DryRun: []string{"Some"}}},
		{"namespace-first", ns, gc.DeleteOptions{}},
		{"namespace-foreground", ns, gc.DeleteOptions{PropagationPolicy: &fg}},
		{"namespace-again", nsDying, gc.DeleteOptions{}},
		{"namespace-finalized", nsEmptied, gc.DeleteOptions{}},
		{"namespace-precondition", ns, gc.DeleteOptions{Preconditions: &gc.Preconditions{UID: ptr("x")}}},
		{"namespace-default", nsDefault, gc.DeleteOptions{}}, // NamespaceLifecycle refuses it, not gc (registry)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := decode(t, c.obj)
			before, _ := json.Marshal(obj)
			o := c.opts
			o.Now = t0
			res, err := gc.Delete(obj, o)
			after, _ := json.Marshal(obj)
			assert.JSONEq(t, string(before), string(after), "input of %s modified", c.name)
			out := map[string]any{"input": obj, "options": c.opts}
			if err != nil {
				out["error"] = errorOut(err)
			} else {
				out["result"] = map[string]any{"code": res.Code, "removed": res.Removed, "changed": res.Changed, "object": res.Object, "response": res.Response}
				if res.Removed {
					assert.Nil(t, res.Object, "%s removed but has an object", c.name)
				}
			}
			golden(t, "delete/"+c.name, out)
		})
	}
}

func TestUpdate(t *testing.T) {
	cases := []struct{ name, old, updated string }{
		{"add-finalizer-while-deleting", cmFg, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, finalizers: [example.com/hold, foregroundDeletion, b.example.com/x, a.example.com/y]}}"},
		{"remove-last-finalizers", cmFg, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1}}"},
		{"remove-one-finalizer", cmFg, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, finalizers: [foregroundDeletion]}}"},
		{"remove-finalizer-live-object", cmHeld, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1}}"},
		{"add-finalizer-live-object", cm, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, finalizers: [x.example.com/y]}}"},
		{"set-deletion-timestamp", cm, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z'}}"},
		{"change-deletion-grace", podDying, "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, deletionGracePeriodSeconds: 5}}"},
		{"pod-grace-pending-finalizer-removed", "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1, deletionTimestamp: '2026-11-29T12:00:30Z', deletionGracePeriodSeconds: 30, finalizers: [example.com/hold]}}", "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: u1}}"},
		{"namespace-spec-finalizers-left", "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z', finalizers: [orphan]}, spec: {finalizers: [kubernetes]}}", "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1}, spec: {finalizers: [kubernetes]}}"},
		{"namespace-finalized", "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1, deletionTimestamp: '2026-11-29T11:00:00Z'}, spec: {finalizers: [kubernetes]}}", "{apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: u1}, spec: {}}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, upd := decode(t, c.old), decode(t, c.updated)
			res, err := gc.Update(old, upd, nil)
			out := map[string]any{"old": old, "updated": upd}
			if err != nil {
				out["error"] = errorOut(err)
			} else {
				out["result"] = map[string]any{"removed": res.Removed, "object": res.Object}
			}
			golden(t, "update/"+c.name, out)
		})
	}
}

// Graph scenarios: a multi-document YAML snapshot, run to the fixpoint.
var runCases = []struct{ name, snapshot string }{
	{"background-dangling", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d1, namespace: ns, uid: d1, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: gone, uid: g}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d2, namespace: ns, uid: d2, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: d1, uid: d1, blockOwnerDeletion: true}]}}
- {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ns, uid: s, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: d2, uid: d2}], finalizers: [example.com/hold]}}`},
	{"foreground-with-held-blocker", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: o, namespace: ns, uid: o, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [foregroundDeletion]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: held, namespace: ns, uid: h, finalizers: [example.com/hold], ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: o, blockOwnerDeletion: true}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: free, namespace: ns, uid: f, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: o}]}}`},
	{"orphan-keeps-other-owners", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: o, namespace: ns, uid: o, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [orphan]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: p, namespace: ns, uid: p}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: ns, uid: d, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: p, uid: p}, {apiVersion: v1, kind: ConfigMap, name: o, uid: o, blockOwnerDeletion: true}]}}`},
	{"cycle-foreground", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ns, uid: a, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [foregroundDeletion], ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: b, uid: b, blockOwnerDeletion: true}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ns, uid: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: a, uid: a, blockOwnerDeletion: true}]}}`},
	{"cross-namespace-and-cluster-scope", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: o, namespace: a, uid: o}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: b, uid: d, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: o}]}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr, uid: cr, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: o}]}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr2, uid: cr2, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: gone, uid: gone}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: of-cluster, namespace: b, uid: oc, ownerReferences: [{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: absent, uid: absent}]}}`},
	{"unknown-owner-kind", `
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: ns, uid: d, ownerReferences: [{apiVersion: example.com/v1, kind: Ghost, name: g, uid: g}, {apiVersion: v1, kind: ConfigMap, name: gone, uid: gone}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: e, namespace: ns, uid: e, ownerReferences: [{apiVersion: apps/v1beta1, kind: Deployment, name: g, uid: g2}]}}`},
	{"namespace-termination", `
- {apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: nsuid, deletionTimestamp: '2026-11-29T12:00:00Z'}, spec: {finalizers: [kubernetes]}, status: {phase: Terminating}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns, uid: p}, spec: {}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: held, namespace: ns, uid: h, finalizers: [example.com/hold]}}
- {apiVersion: v1, kind: Secret, metadata: {name: plain, namespace: ns, uid: s}}`},
	{"namespace-done", `
- {apiVersion: v1, kind: Namespace, metadata: {name: ns, uid: nsuid, deletionTimestamp: '2026-11-29T12:00:00Z'}, spec: {finalizers: [kubernetes]}, status: {phase: Active}}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns, uid: d}}
- {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, namespace: ns, uid: rs, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: d, uid: d, controller: true, blockOwnerDeletion: true}]}}`},
	{"self-owned-foreground", `
- {apiVersion: v1, kind: Secret, metadata: {name: self, namespace: ns, uid: self, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [foregroundDeletion], ownerReferences: [{apiVersion: v1, kind: Secret, name: self, uid: self, blockOwnerDeletion: true}]}}`},
	{"events-ignored", `
- {apiVersion: v1, kind: Event, metadata: {name: ev, namespace: ns, uid: ev, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: gone, uid: gone}]}}
- {apiVersion: events.k8s.io/v1, kind: Event, metadata: {name: ev2, namespace: ns, uid: ev2, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: gone, uid: gone}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: o, namespace: ns, uid: o, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [orphan]}}
- {apiVersion: v1, kind: Event, metadata: {name: ev3, namespace: ns, uid: ev3, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: o, uid: o}]}}`},
	{"custom-resources-from-crd", `
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.example.com, uid: crd}
  spec: {group: example.com, scope: Namespaced, names: {kind: Widget, plural: widgets}, versions: [{name: v1, served: true, storage: true}]}
- {apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: ns, uid: w, deletionTimestamp: '2026-11-29T12:00:00Z', deletionGracePeriodSeconds: 0, finalizers: [foregroundDeletion]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: ns, uid: d, ownerReferences: [{apiVersion: example.com/v1, kind: Widget, name: w, uid: w, blockOwnerDeletion: true}]}}`},
}

func TestRun(t *testing.T) {
	for _, c := range runCases {
		t.Run(c.name, func(t *testing.T) {
			docs, err := codec.DecodeValue([]byte(c.snapshot))
			require.NoError(t, err)
			var objs []gc.Object
			for _, d := range docs.([]any) {
				objs = append(objs, d.(map[string]any))
			}
			before, _ := json.Marshal(objs)
			res, err := gc.Run(objs, gc.Options{Now: t0})
			require.NoError(t, err)
			after, _ := json.Marshal(objs)
			assert.JSONEq(t, string(before), string(after), "input of %s modified", c.name)
			var rounds [][]string
			for _, r := range res.Rounds {
				var l []string
				for _, a := range r {
					l = append(l, a.String())
				}
				rounds = append(rounds, l)
			}
			var removed []string
			for _, r := range res.Removed {
				removed = append(removed, r.String())
			}
			golden(t, "run/"+c.name, map[string]any{"rounds": rounds, "removed": removed, "final": res.Objects, "converged": res.Converged})
			// Step is Run's first round.
			step, err := gc.Step(objs, gc.Options{Now: t0})
			require.NoError(t, err)
			if len(res.Rounds) > 0 {
				assert.Equal(t, len(res.Rounds[0]), len(step), "step of %s", c.name)
			}
		})
	}
}

func TestDiagnose(t *testing.T) {
	cases := []struct {
		name   string
		target gc.Ref
		known  []string
		ctrls  []string
	}{
		{"foreground-with-held-blocker", gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "o"}, nil, nil},
		{"foreground-with-held-blocker", gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "held"}, []string{"example.com"}, nil},
		{"namespace-termination", gc.Ref{Kind: "Namespace", Name: "ns"}, nil, nil},
		{"namespace-termination", gc.Ref{Kind: "namespaces", Name: "ns"}, nil, []string{"gc"}},
		{"unknown-owner-kind", gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "d"}, nil, nil},
		{"cycle-foreground", gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "a"}, nil, nil},
		{"cycle-foreground", gc.Ref{Kind: "ConfigMap", Namespace: "ns", Name: "nothere"}, nil, nil},
		{"self-owned-foreground", gc.Ref{Kind: "secret", Namespace: "ns", Name: "self"}, nil, nil},
	}
	snap := map[string]string{}
	for _, c := range runCases {
		snap[c.name] = c.snapshot
	}
	for i, c := range cases {
		docs, err := codec.DecodeValue([]byte(snap[c.name]))
		require.NoError(t, err)
		var objs []gc.Object
		for _, d := range docs.([]any) {
			objs = append(objs, d.(map[string]any))
		}
		d, err := gc.Diagnose(objs, c.target, gc.DiagnoseOptions{Options: gc.Options{Now: t0, Controllers: c.ctrls}, Known: c.known})
		out := map[string]any{"target": c.target, "known": c.known, "controllers": c.ctrls}
		if err != nil {
			out["error"] = errorOut(err)
		} else {
			out["diagnosis"] = d
		}
		golden(t, "diagnose/"+strings.ReplaceAll(c.name, "/", "-")+"-"+string(rune('a'+i)), out)
	}
}

func TestInputErrors(t *testing.T) {
	docs, err := codec.DecodeValue([]byte(`
- {apiVersion: v1, kind: ConfigMap, metadata: {name: nouid, namespace: ns}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ns, uid: a, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x}, {kind: ConfigMap, name: y, uid: y}, {apiVersion: a/b/c, kind: K, name: n, uid: u}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ns, uid: b, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x, uid: x, controller: true}, {apiVersion: v1, kind: Secret, name: y, uid: y, controller: true}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ns, uid: b}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ns, uid: z}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: nons, uid: q}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: e, namespace: ns, uid: e, ownerReferences: [{apiVersion: v1, kind: Event, name: ev, uid: ev}, 7]}}
- {apiVersion: v1, kind: ConfigMap, metadata: [1]}
- {apiVersion: v1, metadata: {name: k}}`))
	require.NoError(t, err)
	var objs []gc.Object
	for _, d := range docs.([]any) {
		objs = append(objs, d.(map[string]any))
	}
	_, err = gc.Run(objs, gc.Options{Now: t0})
	var ie *gc.InputError
	require.True(t, errors.As(err, &ie), "error %v", err)
	golden(t, "input-errors", ie.Problems)
}
