package deployment

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// TestResolveFenceposts ports the controller's fencepost table: surge rounds up,
// unavailability down, both zero gives one unavailable, bad strings are errors.
func TestResolveFenceposts(t *testing.T) {
	cases := []struct {
		surge, unavailable any
		desired            int64
		wantSurge, wantU   int64
		wantErr            bool
	}{
		{"0%", "0%", 0, 0, 1, false},
		{"39%", "39%", 10, 4, 3, false},
		{"oops", "39%", 10, 0, 0, true},
		{"55%", "urg", 10, 0, 0, true},
		{nil, "39%", 10, 0, 3, false},
		{"39%", nil, 10, 4, 0, false},
		{nil, nil, 10, 0, 1, false},
		{"25%", "25%", 1, 1, 0, false},
		{int64(0), int64(0), 3, 0, 1, false},
		{int64(2), "50%", 5, 2, 2, false},
	}
	for _, c := range cases {
		s, u, err := ResolveFenceposts(c.surge, c.unavailable, c.desired)
		if c.wantErr {
			assert.Error(t, err, "%+v", c)
			continue
		}
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, [2]int64{c.wantSurge, c.wantU}, [2]int64{s, u}, "%+v", c)
	}
}

func dep(replicas int64, strategy Object) Object {
	return Object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": Object{"name": "foo", "namespace": "ns", "uid": "d-uid", "generation": int64(1)},
		"spec": Object{"replicas": replicas, "selector": Object{"matchLabels": Object{"app": "foo"}},
			"template": Object{"metadata": Object{"labels": Object{"app": "foo"}}, "spec": Object{"containers": []any{Object{"name": "c", "image": "i:1"}}}},
			"strategy": strategy}}
}

func rolling(surge, unavailable any) Object {
	return Object{"type": "RollingUpdate", "rollingUpdate": Object{"maxSurge": surge, "maxUnavailable": unavailable}}
}

func rsOf(name string, replicas int64, created time.Time, image string) Object {
	return Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": Object{"name": name, "namespace": "ns", "uid": "uid-" + name, "creationTimestamp": created.Format(time.RFC3339),
			"labels":          Object{"app": "foo"},
			"ownerReferences": []any{Object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "foo", "uid": "d-uid", "controller": true}}},
		"spec": Object{"replicas": replicas, "selector": Object{"matchLabels": Object{"app": "foo"}},
			"template": Object{"metadata": Object{"labels": Object{"app": "foo", PodTemplateHashLabel: name}}, "spec": Object{"containers": []any{Object{"name": "c", "image": image}}}}},
		"status": Object{"replicas": replicas, "availableReplicas": replicas, "readyReplicas": replicas}}
}

func withAnnotations(rs Object, kv ...string) Object {
	a := Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	rs["metadata"].(Object)["annotations"] = a
	return rs
}

// TestNewRSNewReplicas ports the controller's cases: the new ReplicaSet grows within
// spec.replicas+maxSurge; Recreate goes straight to spec.replicas.
func TestNewRSNewReplicas(t *testing.T) {
	cases := []struct {
		name                           string
		strategy                       string
		depReplicas, newRS, surge, out int64
	}{
		{"can not scale up: stays at the new ReplicaSet's size", "RollingUpdate", 1, 5, 1, 5},
		{"scale up to spec.replicas", "RollingUpdate", 6, 2, 10, 6},
		{"recreate: spec.replicas", "Recreate", 3, 1, 1, 3},
	}
	other := rsOf("other", 5, now, "i:0")
	for _, c := range cases {
		d := dep(c.depReplicas, Object{"type": c.strategy, "rollingUpdate": Object{"maxUnavailable": int64(1), "maxSurge": c.surge}})
		n := rsOf("new", c.newRS, now, "i:1")
		got, err := NewRSNewReplicas(d, []Object{other}, n)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.out, got, c.name)
	}
}

// TestReplicaSetFraction ports the proportion cases: a ReplicaSet takes its share of a
// scale by its max-replicas annotation (or the Deployment's status.replicas when the
// annotation is missing or 0).
func TestReplicaSetFraction(t *testing.T) {
	cases := []struct {
		name                                  string
		depReplicas, statusReplicas, maxSurge int64
		rsReplicas                            int64
		annotation                            string
		want                                  int64
	}{
		{"an empty deployment always scales to 0", 0, 0, 0, 10, "", -10},
		{"no max-replicas annotation and no status: no scaling", 10, 0, 0, 5, "", 0},
		{"max-replicas 0 and no status: no scaling", 10, 0, 0, 5, "0", 0},
		{"no annotation: by status.replicas, 1/5 up", 120, 100, 0, 50, "", 10},
		{"annotation 0: by status.replicas, 1/5 up", 120, 100, 0, 50, "0", 10},
		{"by the annotation, 1/5 up", 120, 0, 0, 50, "100", 10},
		{"with maxSurge, about 1/5 up", 120, 0, 10, 50, "110", 9},
		{"by the annotation, 1/5 down", 80, 0, 0, 50, "100", -10},
	}
	for _, c := range cases {
		d := dep(c.depReplicas, rolling(c.maxSurge, int64(1)))
		d["status"] = Object{"replicas": c.statusReplicas}
		rs := rsOf("rs", c.rsReplicas, now, "i:1")
		if c.annotation != "" {
			withAnnotations(rs, MaxReplicasAnnotation, c.annotation)
		}
		assert.Equal(t, c.want, replicaSetFraction(rs, d), c.name)
	}
	// The proportion never exceeds what is left to add (or remove).
	d := dep(120, rolling(int64(0), int64(1)))
	rs := withAnnotations(rsOf("rs", 50, now, "i:1"), MaxReplicasAnnotation, "100")
	assert.Equal(t, int64(3), ReplicaSetProportion(rs, d, 20, 17))
	assert.Equal(t, int64(0), ReplicaSetProportion(rs, d, 20, 20))
}

func replicasWritten(res Result) map[string]int64 {
	out := map[string]int64{}
	for _, a := range res.Actions {
		if a.Type == ActionUpdateReplicaSet || a.Type == ActionCreateReplicaSet {
			out[a.Name] = a.Object["spec"].(Object)["replicas"].(int64)
		}
	}
	return out
}

// TestScale ports scaling events: a lone ReplicaSet follows spec.replicas; during a
// rollout the change is spread proportionally, the leftover to the first in order.
func TestScale(t *testing.T) {
	older, old, newer := now.Add(-2*time.Hour), now.Add(-time.Hour), now
	cases := []struct {
		name     string
		replicas int64
		before   int64
		rss      []Object
		want     map[string]int64
	}{
		{"normal scaling event 10 -> 12", 12, 10, []Object{rsOf("foo-v1", 10, newer, "i:1")}, map[string]int64{"foo-v1": 12}},
		{"normal scaling event 10 -> 5", 5, 10, []Object{rsOf("foo-v1", 10, newer, "i:1")}, map[string]int64{"foo-v1": 5}},
		{"proportional scaling 5 -> 10", 10, 5, []Object{rsOf("foo-v2", 2, newer, "i:1"), rsOf("foo-v1", 3, old, "i:0")},
			map[string]int64{"foo-v2": 4, "foo-v1": 6}},
		{"proportional scaling 5 -> 3", 3, 5, []Object{rsOf("foo-v2", 2, newer, "i:1"), rsOf("foo-v1", 3, old, "i:0")},
			map[string]int64{"foo-v2": 1, "foo-v1": 2}},
		{"proportional scaling 9 -> 4", 4, 9, []Object{rsOf("foo-v2", 8, newer, "i:1"), rsOf("foo-v1", 1, old, "i:0")},
			map[string]int64{"foo-v2": 4, "foo-v1": 0}},
		{"proportional scaling 7 -> 10", 10, 7, []Object{rsOf("foo-v3", 2, newer, "i:1"), rsOf("foo-v2", 3, old, "i:0"), rsOf("foo-v1", 2, older, "i:9")},
			map[string]int64{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3}},
		{"proportional scaling 13 -> 8", 8, 13, []Object{rsOf("foo-v3", 2, newer, "i:1"), rsOf("foo-v2", 8, old, "i:0"), rsOf("foo-v1", 3, older, "i:9")},
			map[string]int64{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2}},
	}
	for _, c := range cases {
		d := dep(c.replicas, rolling(int64(0), int64(0)))
		surge := MaxSurge(dep(c.before, rolling(int64(0), int64(0))))
		var rss []Object
		for _, rs := range c.rss {
			rss = append(rss, withAnnotations(rs, DesiredReplicasAnnotation, fmt.Sprint(c.before), MaxReplicasAnnotation, fmt.Sprint(c.before+surge)))
		}
		res, err := Sync(Input{Deployment: d, ReplicaSets: rss}, Options{Now: now})
		require.NoError(t, err, c.name)
		got := replicasWritten(res)
		for name, want := range c.want {
			w := want
			if n, ok := got[name]; ok {
				assert.Equal(t, w, n, "%s: %s", c.name, name)
			} else {
				assert.Equal(t, w, specReplicas(findRS(rss, name)), "%s: %s unchanged", c.name, name)
			}
		}
	}
}

func findRS(rss []Object, name string) Object {
	for _, rs := range rss {
		if rs["metadata"].(Object)["name"] == name {
			return rs
		}
	}
	return nil
}

// TestCleanup ports cleanupDeployment's cases: only settled old ReplicaSets at 0 past
// revisionHistoryLimit go, oldest revision first.
func TestCleanup(t *testing.T) {
	mk := func(name string, rev string, replicas int64, age time.Duration) Object {
		rs := withAnnotations(rsOf(name, replicas, now.Add(-age), "i:"+name), RevisionAnnotation, rev)
		rs["status"] = Object{"replicas": replicas, "availableReplicas": replicas, "observedGeneration": int64(1)}
		rs["metadata"].(Object)["generation"] = int64(1)
		return rs
	}
	cases := []struct {
		name    string
		limit   int64
		rss     []Object
		deleted []string
	}{
		{"three old at 0, limit 1", 1, []Object{mk("a", "1", 0, 4*time.Hour), mk("b", "2", 0, 3*time.Hour), mk("c", "3", 0, 2*time.Hour)}, []string{"a", "b"}},
		{"limit 0 keeps none", 0, []Object{mk("a", "1", 0, 4*time.Hour), mk("b", "2", 0, 3*time.Hour)}, []string{"a", "b"}},
		{"a scaled old one stays", 0, []Object{mk("a", "1", 1, 4*time.Hour), mk("b", "2", 0, 3*time.Hour)}, []string{"b"}},
		{"within the limit", 5, []Object{mk("a", "1", 0, 4*time.Hour)}, nil},
	}
	for _, c := range cases {
		d := dep(1, rolling(int64(1), int64(0)))
		d["spec"].(Object)["revisionHistoryLimit"] = c.limit
		d["spec"].(Object)["paused"] = true
		cur := mk("cur", "9", 1, time.Hour)
		cur["spec"].(Object)["template"] = asObject(d["spec"].(Object)["template"])
		rss := append(append([]Object(nil), c.rss...), cur)
		res, err := Sync(Input{Deployment: d, ReplicaSets: rss}, Options{Now: now})
		require.NoError(t, err, c.name)
		var deleted []string
		for _, a := range res.Actions {
			if a.Type == ActionDeleteReplicaSet {
				deleted = append(deleted, a.Name)
			}
		}
		assert.Equal(t, c.deleted, deleted, c.name)
	}
}

func asObject(v any) Object { m, _ := v.(Object); return m }

// TestRollout drives a rolling update by hand: the new ReplicaSet is created, surges,
// old ones scale down as the new becomes available, and the conditions follow.
func TestRollout(t *testing.T) {
	d := dep(4, rolling("25%", "25%"))
	d["spec"].(Object)["progressDeadlineSeconds"] = int64(600)
	old := withAnnotations(rsOf("foo-old", 4, now.Add(-time.Hour), "i:0"), RevisionAnnotation, "1", DesiredReplicasAnnotation, "4", MaxReplicasAnnotation, "5")
	res, err := Sync(Input{Deployment: d, ReplicaSets: []Object{old}}, Options{Now: now})
	require.NoError(t, err)
	require.Equal(t, ActionCreateReplicaSet, res.Actions[0].Type)
	created := res.Actions[0].Object
	assert.Equal(t, int64(1), created["spec"].(Object)["replicas"], "maxSurge 25% of 4 rounds up to 1")
	ann := created["metadata"].(Object)["annotations"].(Object)
	assert.Equal(t, Object{RevisionAnnotation: "2", DesiredReplicasAnnotation: "4", MaxReplicasAnnotation: "5"}, ann)
	hash := created["metadata"].(Object)["labels"].(Object)[PodTemplateHashLabel]
	assert.Equal(t, "foo-"+hash.(string), created["metadata"].(Object)["name"])
	// The revision and NewReplicaSetCreated are written first, then the rollout status
	// sees the new ReplicaSet's replica as progress.
	first := res.Actions[1].Object
	assert.Equal(t, "NewReplicaSetCreated", condition(first, "Progressing")["reason"])
	assert.Equal(t, fmt.Sprintf("Created new replica set %q", created["metadata"].(Object)["name"]), condition(first, "Progressing")["message"])
	last := res.Actions[len(res.Actions)-1].Object
	assert.Equal(t, fmt.Sprintf("ReplicaSet %q is progressing.", created["metadata"].(Object)["name"]), condition(last, "Progressing")["message"])

	// Next sync: nothing available yet on the new one: old scales down by maxUnavailable 1.
	newRS := asObject(created)
	newRS["metadata"].(Object)["uid"] = "uid-new"
	newRS["metadata"].(Object)["creationTimestamp"] = now.Format(time.RFC3339)
	newRS["status"] = Object{"replicas": int64(1)}
	d2 := asObject(last)
	res, err = Sync(Input{Deployment: d2, ReplicaSets: []Object{old, newRS}}, Options{Now: now.Add(time.Second)})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"foo-old": 3}, replicasWritten(res))
	assert.Contains(t, res.Actions[0].Why, "unavailability")
}

func condition(o Object, typ string) Object {
	st, _ := o["status"].(Object)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(Object); m["type"] == typ {
			return m
		}
	}
	return nil
}

func TestRollback(t *testing.T) {
	d := dep(2, rolling(int64(1), int64(0)))
	d["metadata"].(Object)["annotations"] = Object{RevisionAnnotation: "2", "note": "current"}
	v1 := withAnnotations(rsOf("foo-v1", 0, now.Add(-time.Hour), "i:0"), RevisionAnnotation, "1", "note", "old")
	v2 := withAnnotations(rsOf("foo-v2", 2, now, "i:1"), RevisionAnnotation, "2")
	out, err := Rollback(d, []Object{v1, v2}, 0)
	require.NoError(t, err)
	tmpl := out["spec"].(Object)["template"].(Object)
	assert.Equal(t, Object{"app": "foo"}, tmpl["metadata"].(Object)["labels"], "the hash label is dropped")
	assert.Equal(t, "i:0", tmpl["spec"].(Object)["containers"].([]any)[0].(Object)["image"])
	assert.Equal(t, Object{RevisionAnnotation: "2", "note": "old"}, out["metadata"].(Object)["annotations"])
	_, err = Rollback(d, []Object{v1, v2}, 2)
	assert.EqualError(t, err, "skipped rollback (current template already matches revision 2)")
	_, err = Rollback(d, []Object{v1, v2}, 7)
	assert.EqualError(t, err, "unable to find specified revision 7 in history")
}

func TestBadInput(t *testing.T) {
	_, err := Sync(Input{}, Options{})
	var ie *InputError
	assert.ErrorAs(t, err, &ie)
	// Selecting everything: only an event and observedGeneration.
	d := dep(3, rolling(int64(1), int64(0)))
	d["spec"].(Object)["selector"] = Object{}
	res, err := Sync(Input{Deployment: d}, Options{Now: now})
	require.NoError(t, err)
	require.Len(t, res.Actions, 2)
	assert.Equal(t, ActionEvent, res.Actions[0].Type)
	assert.Equal(t, "SelectingAll", res.Actions[0].Event.Reason)
	assert.Equal(t, ActionUpdateStatus, res.Actions[1].Type)
	// A ReplicaSet owned by a foreign controller is left alone.
	foreign := rsOf("foreign", 3, now, "i:1")
	foreign["metadata"].(Object)["ownerReferences"] = []any{Object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "bar", "uid": "bar-uid", "controller": true}}
	res, err = Sync(Input{Deployment: dep(3, rolling(int64(1), int64(0))), ReplicaSets: []Object{foreign}}, Options{Now: now})
	require.NoError(t, err)
	for _, a := range res.Actions {
		assert.NotEqual(t, "foreign", a.Name)
	}
	// 10,000 replicas: one creation of the new ReplicaSet, linear work.
	res, err = Sync(Input{Deployment: dep(10000, rolling("25%", "25%"))}, Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, int64(10000), replicasWritten(res)[res.Actions[0].Name])
}

// TestLinear counts the writes of a sync over many old ReplicaSets: at most one per
// ReplicaSet and a constant number more.
func TestLinear(t *testing.T) {
	for _, n := range []int{100, 1000} {
		var rss []Object
		for i := 0; i < n; i++ {
			rss = append(rss, withAnnotations(rsOf(fmt.Sprintf("rs%d", i), 1, now.Add(-time.Duration(n-i)*time.Minute), fmt.Sprintf("i:%d", i)),
				RevisionAnnotation, fmt.Sprint(i+1), DesiredReplicasAnnotation, "5", MaxReplicasAnnotation, "6"))
		}
		res, err := Sync(Input{Deployment: dep(7, rolling(int64(1), int64(1))), ReplicaSets: rss}, Options{Now: now})
		require.NoError(t, err)
		assert.LessOrEqual(t, len(res.Actions), n+4, "writes for %d ReplicaSets", n)
	}
}

// TestOverlappingDeployments: two Deployments whose selectors match the same ReplicaSets.
// The one controlling a ReplicaSet keeps it; the other neither adopts nor scales it and
// makes its own (the controller's ControllerRef rule).
func TestOverlappingDeployments(t *testing.T) {
	d1 := dep(2, rolling(int64(1), int64(0)))
	d2 := dep(2, rolling(int64(1), int64(0)))
	d2["metadata"].(Object)["name"], d2["metadata"].(Object)["uid"] = "bar", "bar-uid"
	owned := rsOf("foo-1", 2, now, "i:1")
	owned["spec"].(Object)["template"] = asObject(d1["spec"].(Object)["template"])
	res, err := Sync(Input{Deployment: d2, ReplicaSets: []Object{owned}}, Options{Now: now})
	require.NoError(t, err)
	var types []ActionType
	for _, a := range res.Actions {
		assert.NotEqual(t, "foo-1", a.Name, "the other Deployment's ReplicaSet is not touched")
		types = append(types, a.Type)
	}
	assert.Contains(t, types, ActionCreateReplicaSet)
	// An orphan matching both is adopted by whichever syncs first.
	orphan := rsOf("stray", 1, now, "i:1")
	delete(orphan["metadata"].(Object), "ownerReferences")
	res, err = Sync(Input{Deployment: d1, ReplicaSets: []Object{orphan}}, Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, ActionAdoptReplicaSet, res.Actions[0].Type)
}

type refusal struct {
	code int32
	msg  string
}

func (r refusal) Error() string     { return r.msg }
func (r refusal) StatusCode() int32 { return r.code }

// A refused ReplicaSet create is getNewReplicaSet's FailedRSCreate: with a progress deadline,
// the Progressing condition False (ReplicaSetCreateError, the API's words) in a status
// update; with or without one, the Warning Event on the refused create itself (it is recorded
// whatever the status update's fate), and the sync's error.
func TestFailedRSCreate(t *testing.T) {
	refuseCreate := func(a Action) error {
		if a.Type == ActionCreateReplicaSet {
			return refusal{422, `replicasets.apps "` + a.Name + `" is forbidden: no`}
		}
		return nil
	}
	for _, deadline := range []bool{true, false} {
		d := dep(3, rolling("25%", "25%"))
		if deadline {
			d["spec"].(Object)["progressDeadlineSeconds"] = int64(600)
		}
		res, err := Sync(Input{Deployment: d}, Options{Now: now, Refuse: refuseCreate})
		require.NoError(t, err)
		require.Error(t, res.Err, "deadline %v", deadline)
		create := res.Actions[0]
		require.Equal(t, ActionCreateReplicaSet, create.Type, "%+v", res.Actions)
		msg := fmt.Sprintf(`Failed to create new replica set %q: replicasets.apps %q is forbidden: no`, create.Name, create.Name)
		assert.Equal(t, &Event{"Warning", "ReplicaSetCreateError", msg}, create.Event, "deadline %v", deadline)
		assert.NotEmpty(t, create.Err)
		if !deadline {
			assert.Len(t, res.Actions, 1, "%+v", res.Actions)
			continue
		}
		require.Len(t, res.Actions, 2, "%+v", res.Actions)
		st := res.Actions[1]
		assert.Equal(t, ActionUpdateStatus, st.Type)
		assert.Nil(t, st.Event)
		cond := condition(st.Object, "Progressing")
		assert.Equal(t, "False", cond["status"])
		assert.Equal(t, "ReplicaSetCreateError", cond["reason"])
		assert.Equal(t, msg, cond["message"])
	}
}
