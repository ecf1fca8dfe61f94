package replicaset

import (
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func ts(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }

func rsObj(replicas int64) Object {
	return Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": Object{"name": "web", "namespace": "ns", "uid": "rs-uid", "generation": int64(2)},
		"spec": Object{"replicas": replicas, "selector": Object{"matchLabels": Object{"app": "web"}},
			"template": Object{"metadata": Object{"labels": Object{"app": "web"}, "annotations": Object{"note": "n"}},
				"spec": Object{"containers": []any{Object{"name": "c", "image": "nginx"}}}}}}
}

type podOpt func(Object)

func pod(name string, opts ...podOpt) Object {
	p := Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": Object{"name": name, "namespace": "ns", "uid": "uid-" + name, "creationTimestamp": ts(time.Hour),
			"labels":          Object{"app": "web"},
			"ownerReferences": []any{Object{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-uid", "controller": true}}},
		"spec": Object{}, "status": Object{"phase": "Pending"}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) podOpt { return func(p Object) { p["spec"].(Object)["nodeName"] = n } }
func phase(ph string) podOpt { return func(p Object) { p["status"].(Object)["phase"] = ph } }
func readyFor(d time.Duration) podOpt {
	return func(p Object) {
		p["status"].(Object)["phase"] = "Running"
		p["status"].(Object)["conditions"] = []any{Object{"type": "Ready", "status": "True", "lastTransitionTime": ts(d)}}
	}
}
func created(d time.Duration) podOpt {
	return func(p Object) { p["metadata"].(Object)["creationTimestamp"] = ts(d) }
}
func restarted(n int64) podOpt {
	return func(p Object) {
		p["status"].(Object)["containerStatuses"] = []any{Object{"name": "c", "restartCount": n}}
	}
}
func cost(c string) podOpt {
	return func(p Object) { p["metadata"].(Object)["annotations"] = Object{DeletionCostAnnotation: c} }
}
func orphan(p Object) { delete(p["metadata"].(Object), "ownerReferences") }

// TestRanking ports the cases of the controller's ActivePods ordering (which Pod is
// deleted first), each pair as (deleted first, deleted later).
func TestRanking(t *testing.T) {
	cases := []struct {
		name          string
		first, second Object
	}{
		{"unassigned before assigned", pod("a"), pod("b", onNode("n"))},
		{"pending before unknown", pod("a", onNode("n")), pod("b", onNode("n"), phase("Unknown"))},
		{"unknown before running", pod("a", onNode("n"), phase("Unknown")), pod("b", onNode("n"), phase("Running"))},
		{"not ready before ready", pod("a", onNode("n"), phase("Running")), pod("b", onNode("n"), readyFor(time.Hour))},
		{"lower deletion cost first", pod("a", onNode("n"), cost("-1")), pod("b", onNode("n"))},
		{"invalid deletion cost is zero", pod("a", onNode("n"), cost("+5")), pod("b", onNode("n"), cost("1"))},
		{"ready for less time first (other power of two)", pod("a", onNode("n"), readyFor(time.Minute)), pod("b", onNode("n"), readyFor(time.Hour))},
		{"same power of two: by uid", pod("a", onNode("n"), readyFor(70*time.Second)), pod("b", onNode("n"), readyFor(80*time.Second))},
		{"more restarts first", pod("a", onNode("n"), restarted(3)), pod("b", onNode("n"), restarted(1))},
		{"newer first", pod("a", onNode("n"), created(time.Minute)), pod("b", onNode("n"), created(time.Hour))},
		{"no creation time first", pod("a", onNode("n"), created(-1)), pod("b", onNode("n"))},
	}
	for _, c := range cases {
		if c.name == "no creation time first" {
			delete(c.first["metadata"].(Object), "creationTimestamp")
		}
		r := Ranked{Pods: []Object{c.second, c.first}, Ranks: []int{0, 0}, Now: now}
		sort.Sort(r)
		assert.Equal(t, "a", r.Pods[0]["metadata"].(Object)["name"], c.name)
	}
	// Doubled up before not doubled up.
	r := Ranked{Pods: []Object{pod("a", onNode("n1")), pod("b", onNode("n2"))}, Ranks: []int{1, 3}, Now: now}
	sort.Sort(r)
	assert.Equal(t, "b", r.Pods[0]["metadata"].(Object)["name"], "more co-located pods first")
}

func names(actions []Action, t ActionType) []string {
	var out []string
	for _, a := range actions {
		if a.Type == t {
			out = append(out, a.Name)
		}
	}
	return out
}

func TestSyncScalesUp(t *testing.T) {
	res, err := Sync(Input{ReplicaSet: rsObj(3), Pods: []Object{pod("a")}}, Options{Now: now})
	require.NoError(t, err)
	require.Len(t, names(res.Actions, ActionCreate), 2)
	created := res.Actions[0].Object
	md := created["metadata"].(Object)
	assert.Equal(t, "web-", md["generateName"])
	assert.Equal(t, Object{"app": "web"}, md["labels"])
	assert.Equal(t, Object{"note": "n"}, md["annotations"])
	assert.Equal(t, []any{Object{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-uid", "controller": true, "blockOwnerDeletion": true}}, md["ownerReferences"])
	assert.Equal(t, &Expectations{Add: 2, Timestamp: now}, res.Expectations)
	assert.Equal(t, int64(1), res.Status["replicas"])
	assert.Equal(t, int64(2), res.Status["observedGeneration"])
	// Until the creations are observed, the next sync writes nothing new.
	res2, err := Sync(Input{ReplicaSet: rsObj(3), Pods: []Object{pod("a")}, Expectations: res.Expectations}, Options{Now: now})
	require.NoError(t, err)
	assert.Empty(t, names(res2.Actions, ActionCreate))
	// Past the timeout they no longer block.
	res3, err := Sync(Input{ReplicaSet: rsObj(3), Pods: []Object{pod("a")}, Expectations: res.Expectations}, Options{Now: now.Add(6 * time.Minute)})
	require.NoError(t, err)
	assert.Len(t, names(res3.Actions, ActionCreate), 2)
}

func TestSlowStart(t *testing.T) {
	cases := []struct {
		want, allowed, attempted int
	}{
		{want: 10, allowed: 100, attempted: 10},
		{want: 10, allowed: 0, attempted: 1},
		{want: 10, allowed: 1, attempted: 3},       // 1 ok, then a batch of 2 with one refused
		{want: 10, allowed: 3, attempted: 7},       // 1, 2 ok, then 4 with one refused
		{want: 600, allowed: 1000, attempted: 500}, // burst
	}
	for _, c := range cases {
		n := 0
		refuse := func(a Action) error {
			if a.Type != ActionCreate {
				return nil
			}
			n++
			if n > c.allowed {
				return errors.New("exceeded quota")
			}
			return nil
		}
		res, err := Sync(Input{ReplicaSet: rsObj(int64(c.want))}, Options{Now: now, Refuse: refuse})
		require.NoError(t, err)
		assert.Len(t, names(res.Actions, ActionCreate), c.attempted, "%+v", c)
		if c.allowed < c.want {
			assert.EqualError(t, res.Err, "exceeded quota", "%+v", c)
			conds := res.Status["conditions"].([]any)
			assert.Equal(t, "FailedCreate", conds[0].(Object)["reason"], "%+v", c)
			assert.Equal(t, int64(min(c.allowed, c.attempted)), res.Expectations.Add, "%+v", c)
		}
	}
}

func TestSyncScalesDownByRank(t *testing.T) {
	pods := []Object{
		pod("ready-old", onNode("n"), readyFor(3*time.Hour)),
		pod("pending"),
		pod("ready-new", onNode("n"), readyFor(time.Minute)),
		pod("running", onNode("n"), phase("Running")),
	}
	res, err := Sync(Input{ReplicaSet: rsObj(1), Pods: pods}, Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, []string{"pending", "running", "ready-new"}, names(res.Actions, ActionDelete))
	assert.Equal(t, []string{"ns/pending", "ns/running", "ns/ready-new"}, res.Expectations.Deleting)
}

func TestClaim(t *testing.T) {
	stray := pod("stray")
	orphan(stray)
	moved := pod("moved")
	moved["metadata"].(Object)["labels"] = Object{"app": "other"}
	foreign := pod("foreign")
	foreign["metadata"].(Object)["ownerReferences"] = []any{Object{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x", "uid": "x", "controller": true}}
	res, err := Sync(Input{ReplicaSet: rsObj(1), Pods: []Object{stray, moved, foreign}}, Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, []string{"stray"}, names(res.Actions, ActionAdopt))
	assert.Equal(t, []string{"moved"}, names(res.Actions, ActionRelease))
	assert.Empty(t, names(res.Actions, ActionCreate), "the adopted pod counts")
}

func TestStatus(t *testing.T) {
	rs := rsObj(3)
	rs["spec"].(Object)["minReadySeconds"] = int64(60)
	pods := []Object{pod("a", readyFor(2*time.Minute)), pod("b", readyFor(10*time.Second)), pod("c")}
	pods[2]["metadata"].(Object)["labels"] = Object{"app": "web", "extra": "x"}
	res, err := Sync(Input{ReplicaSet: rs, Pods: pods}, Options{Now: now})
	require.NoError(t, err)
	for k, v := range map[string]int64{"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 2, "availableReplicas": 1, "terminatingReplicas": 0} {
		assert.Equal(t, v, res.Status[k], k)
	}
	assert.Equal(t, 50*time.Second, res.RequeueAfter)
	// Unchanged status: no write.
	rs["status"] = res.Status
	res2, err := Sync(Input{ReplicaSet: rs, Pods: pods}, Options{Now: now})
	require.NoError(t, err)
	assert.Empty(t, res2.Actions)
}

func TestBadInput(t *testing.T) {
	_, err := Sync(Input{}, Options{})
	var ie *InputError
	assert.ErrorAs(t, err, &ie)
	rs := rsObj(1)
	rs["spec"].(Object)["selector"] = Object{"matchExpressions": []any{Object{"key": "a", "operator": "Bogus"}}}
	res, err := Sync(Input{ReplicaSet: rs}, Options{Now: now})
	require.NoError(t, err)
	assert.Empty(t, res.Actions, "an invalid selector: the controller drops the key")
	// A selector matching everything adopts every orphan, and nothing owned by others.
	rs = rsObj(2)
	rs["spec"].(Object)["selector"] = Object{}
	var pods []Object
	for i := 0; i < 5; i++ {
		p := pod(fmt.Sprint("o", i))
		orphan(p)
		pods = append(pods, p)
	}
	res, err = Sync(Input{ReplicaSet: rs, Pods: pods}, Options{Now: now})
	require.NoError(t, err)
	assert.Len(t, names(res.Actions, ActionAdopt), 5)
	assert.Len(t, names(res.Actions, ActionDelete), 3)
}

// TestLinear counts work: 10,000 replicas create at most BurstReplicas Pods per sync, and
// a sync over n Pods takes comparisons within n log n.
func TestLinear(t *testing.T) {
	res, err := Sync(Input{ReplicaSet: rsObj(10000)}, Options{Now: now})
	require.NoError(t, err)
	assert.Len(t, res.Actions, BurstReplicas+1)
	for _, n := range []int{1000, 10000} {
		var pods []Object
		for i := 0; i < n; i++ {
			pods = append(pods, pod(fmt.Sprint("p", i), onNode(fmt.Sprint("n", i%7)), readyFor(time.Duration(i)*time.Second)))
		}
		counted := &countingLess{}
		r := Ranked{Pods: pods, Ranks: make([]int, n), Now: now}
		sort.Sort(countingRanked{r, counted})
		assert.Less(t, counted.n, 4*n*bits(n), "comparisons for %d pods", n)
	}
}

type countingLess struct{ n int }
type countingRanked struct {
	Ranked
	c *countingLess
}

func (c countingRanked) Less(i, j int) bool { c.c.n++; return c.Ranked.Less(i, j) }

func bits(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
