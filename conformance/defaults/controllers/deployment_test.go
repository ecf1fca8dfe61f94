package controllers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/controller/deployment"

	wpd "github.com/writepath/writepath/controllers/deployment"
)

// dWorld is one Deployment, its ReplicaSets (as the reference named them) and a
// ReplicaSet controller and kubelet played by the harness.
type dWorld struct {
	r      *rand.Rand
	d      map[string]any
	rss    []map[string]any
	rsSeq  int
	images []string
}

func newDWorld(r *rand.Rand) *dWorld {
	w := &dWorld{r: r, images: []string{"nginx:1", "nginx:2", "nginx:3"}}
	strategy := map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": w.intOrPercent(), "maxUnavailable": w.intOrPercent()}}
	if r.IntN(5) == 0 {
		strategy = map[string]any{"type": "Recreate"}
	}
	spec := map[string]any{
		"replicas": int64(r.IntN(12)),
		"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": w.images[0]}}}},
		"strategy":             strategy,
		"revisionHistoryLimit": int64([]int{10, 0, 1, 2}[r.IntN(4)]),
	}
	switch r.IntN(4) {
	case 0:
	case 1:
		spec["progressDeadlineSeconds"] = int64(2147483647)
	default:
		spec["progressDeadlineSeconds"] = int64([]int{600, 30, 5}[r.IntN(3)])
	}
	if r.IntN(3) == 0 {
		spec["minReadySeconds"] = int64(r.IntN(30))
	}
	w.d = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "d", "namespace": "ns", "uid": "d-uid", "generation": int64(1),
			"annotations": map[string]any{"note": "n"}, "creationTimestamp": ts(time.Hour)},
		"spec": spec}
	return w
}

func ts(back time.Duration) string { return time.Now().Add(-back).UTC().Format(time.RFC3339) }

func (w *dWorld) intOrPercent() any {
	if w.r.IntN(2) == 0 {
		return int64(w.r.IntN(4))
	}
	return []string{"0%", "10%", "25%", "50%", "100%", "33%"}[w.r.IntN(6)]
}

func bumpGeneration(o map[string]any) {
	md := o["metadata"].(map[string]any)
	g, _ := md["generation"].(int64)
	md["generation"] = g + 1
}

func (w *dWorld) mutate() {
	r := w.r
	spec := w.d["spec"].(map[string]any)
	switch r.IntN(14) {
	case 0, 1:
		c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		c["image"] = w.images[r.IntN(len(w.images))]
		bumpGeneration(w.d)
	case 2, 3:
		spec["replicas"] = int64(r.IntN(15))
		bumpGeneration(w.d)
	case 4:
		if r.IntN(3) == 0 {
			if p, _ := spec["paused"].(bool); p {
				delete(spec, "paused")
			} else {
				spec["paused"] = true
			}
			bumpGeneration(w.d)
		}
	case 5:
		if r.IntN(3) == 0 {
			md := w.d["metadata"].(map[string]any)
			md["annotations"].(map[string]any)["deprecated.deployment.rollback.to"] = fmt.Sprint(r.IntN(4))
			bumpGeneration(w.d)
		}
	case 6:
		// Time passes: every recorded time moves back.
		w.age(time.Duration([]int{40, 100, 1000}[r.IntN(3)]) * time.Second)
	case 7:
		if rs := w.pick(); rs != nil && r.IntN(3) == 0 {
			st := statusOf(rs)
			if r.IntN(2) == 0 {
				st["conditions"] = []any{map[string]any{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
					"message": "pods \"x\" is forbidden: exceeded quota", "lastTransitionTime": ts(time.Minute)}}
			} else {
				delete(st, "conditions")
			}
		}
	default:
		w.progress()
	}
}

func (w *dWorld) pick() map[string]any {
	if len(w.rss) == 0 {
		return nil
	}
	return w.rss[w.r.IntN(len(w.rss))]
}

func statusOf(o map[string]any) map[string]any {
	st, _ := o["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
		o["status"] = st
	}
	return st
}

// progress plays the ReplicaSet controller and kubelet: status follows spec, Pods get
// ready and available at random.
func (w *dWorld) progress() {
	for _, rs := range w.rss {
		if w.r.IntN(3) == 0 {
			continue
		}
		want := rs["spec"].(map[string]any)["replicas"].(int64)
		st := statusOf(rs)
		cur, _ := st["replicas"].(int64)
		switch {
		case cur < want:
			cur += int64(w.r.IntN(int(want-cur) + 1))
		case cur > want:
			cur -= int64(w.r.IntN(int(cur-want) + 1))
		}
		ready := int64(w.r.IntN(int(cur) + 1))
		if w.r.IntN(2) == 0 {
			ready = cur
		}
		avail := ready
		if w.r.IntN(3) == 0 {
			avail = int64(w.r.IntN(int(ready) + 1))
		}
		st["replicas"], st["fullyLabeledReplicas"], st["readyReplicas"], st["availableReplicas"] = cur, cur, ready, avail
		st["observedGeneration"] = rs["metadata"].(map[string]any)["generation"]
		st["terminatingReplicas"] = int64(w.r.IntN(2))
	}
}

func (w *dWorld) age(by time.Duration) {
	shift := func(m map[string]any, k string) {
		if s, ok := m[k].(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				m[k] = t.Add(-by).UTC().Format(time.RFC3339)
			}
		}
	}
	for _, o := range append([]map[string]any{w.d}, w.rss...) {
		shift(o["metadata"].(map[string]any), "creationTimestamp")
		st, _ := o["status"].(map[string]any)
		for _, c := range listOf(st["conditions"]) {
			cm := c.(map[string]any)
			shift(cm, "lastUpdateTime")
			shift(cm, "lastTransitionTime")
		}
	}
}

// pods are the ReplicaSets' Pods, Running, as many as status.replicas says.
func (w *dWorld) pods() []map[string]any {
	var out []map[string]any
	for _, rs := range w.rss {
		md := rs["metadata"].(map[string]any)
		n, _ := statusOf(rs)["replicas"].(int64)
		for i := int64(0); i < n; i++ {
			out = append(out, map[string]any{"apiVersion": "v1", "kind": "Pod",
				"metadata": map[string]any{"name": fmt.Sprintf("%s-%d", md["name"], i), "namespace": "ns", "uid": fmt.Sprintf("%s-%d", md["uid"], i),
					"labels":          rs["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"],
					"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": md["name"], "uid": md["uid"], "controller": true}}},
				"spec": map[string]any{}, "status": map[string]any{"phase": "Running"}})
		}
	}
	return out
}

// normalizeTimes replaces condition times within 3s of now by "<now>": each side stamps
// them with its own clock.
func normalizeTimes(m map[string]any, now time.Time) {
	st, _ := m["status"].(map[string]any)
	for _, c := range listOf(st["conditions"]) {
		cm, _ := c.(map[string]any)
		for _, k := range []string{"lastUpdateTime", "lastTransitionTime"} {
			if s, ok := cm[k].(string); ok {
				if t, err := time.Parse(time.RFC3339, s); err == nil && t.Sub(now) < 3*time.Second && now.Sub(t) < 3*time.Second {
					cm[k] = "<now>"
				}
			}
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
		delete(md, "uid")
		delete(md, "generation")
	}
}

func describeD(verb, resource, name string, obj runtime.Object, now time.Time) string {
	s := verb + " " + resource + " " + name
	if obj != nil {
		m := toMap(obj)
		normalizeTimes(m, now)
		s += " " + canonical(m)
	}
	return s
}

func refDActions(actions []core.Action, now time.Time) []string {
	var out []string
	for _, a := range actions {
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		switch a.GetVerb() {
		case "create":
			obj := a.(core.CreateAction).GetObject()
			out = append(out, describeD("create", res, obj.(*apps.ReplicaSet).Name, obj, now))
		case "update":
			obj := a.(core.UpdateAction).GetObject()
			var name string
			switch o := obj.(type) {
			case *apps.ReplicaSet:
				name = o.Name
			case *apps.Deployment:
				name = o.Name
			}
			out = append(out, describeD("update", res, name, obj, now))
		case "delete":
			out = append(out, "delete "+res+" "+a.(core.DeleteAction).GetName())
		case "patch":
			p := a.(core.PatchAction)
			out = append(out, "patch "+res+" "+p.GetName()+" "+string(p.GetPatch()))
		case "get", "list", "watch":
		default:
			out = append(out, "unexpected "+a.GetVerb()+" "+res)
		}
	}
	return out
}

func ourDActions(actions []wpd.Action, now time.Time) []string {
	var out []string
	for _, a := range actions {
		switch a.Type {
		case wpd.ActionCreateReplicaSet:
			var rs apps.ReplicaSet
			toTyped(a.Object, &rs)
			out = append(out, describeD("create", "replicasets", a.Name, &rs, now))
		case wpd.ActionUpdateReplicaSet:
			var rs apps.ReplicaSet
			toTyped(a.Object, &rs)
			out = append(out, describeD("update", "replicasets", a.Name, &rs, now))
		case wpd.ActionDeleteReplicaSet:
			out = append(out, "delete replicasets "+a.Name)
		case wpd.ActionUpdateStatus, wpd.ActionUpdate:
			var d apps.Deployment
			toTyped(a.Object, &d)
			res := "deployments"
			if a.Type == wpd.ActionUpdateStatus {
				res += "/status"
			}
			out = append(out, describeD("update", res, a.Name, &d, now))
		case wpd.ActionAdoptReplicaSet, wpd.ActionReleaseReplicaSet:
			out = append(out, "patch replicasets "+a.Name+" "+patchJSON(a.Patch))
		}
	}
	return out
}

func TestDeploymentSyncAgainstController(t *testing.T) {
	histories := sampleSize(8, 2000)
	kinds := map[string]int{}
	const steps = 50
	r := rand.New(rand.NewPCG(18, 4))
	ctx := context.Background()
	disagreements, syncs, writes := 0, 0, 0
	for h := 0; h < histories && disagreements < 3; h++ {
		w := newDWorld(r)
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
		dc, err := deployment.NewDeploymentController(ctx, dInf, rsInf, podInf, client)
		require.NoError(t, err)
		field[interface{ ShutDown() }](dc, "queue").ShutDown()
		field[interface{ Shutdown() }](dc, "eventBroadcaster").Shutdown()
		// The Events getNewReplicaSet records on a refused create, to compare with ours.
		recorder := record.NewFakeRecorder(1 << 16)
		setField(dc, "eventRecorder", record.EventRecorder(recorder))
		sync := field[syncFunc](dc, "syncHandler")
		refuseRS := false // this step's ReplicaSet creates are refused (a quota)
		client.PrependReactor("*", "*", func(a core.Action) (bool, runtime.Object, error) {
			switch a.GetVerb() {
			case "create":
				if refuseRS {
					name := a.(core.CreateAction).GetObject().(*apps.ReplicaSet).Name
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, name, errors.New(rsQuotaMessage))
				}
				return true, a.(core.CreateAction).GetObject(), nil
			case "update":
				return true, a.(core.UpdateAction).GetObject(), nil
			case "delete":
				return true, nil, nil
			case "patch":
				return true, &apps.ReplicaSet{}, nil
			case "get":
				var d apps.Deployment
				toTyped(w.d, &d)
				return true, &d, nil
			}
			return false, nil, nil
		})
		for s := 0; s < steps; s++ {
			if s > 0 {
				for n := r.IntN(3); n >= 0; n-- {
					w.mutate()
				}
			}
			resetIndexer(dInf.Informer().GetIndexer())
			resetIndexer(rsInf.Informer().GetIndexer())
			resetIndexer(podInf.Informer().GetIndexer())
			var d apps.Deployment
			toTyped(w.d, &d)
			require.NoError(t, dInf.Informer().GetIndexer().Add(&d))
			for _, rs := range w.rss {
				var typed apps.ReplicaSet
				toTyped(rs, &typed)
				require.NoError(t, rsInf.Informer().GetIndexer().Add(&typed))
			}
			pods := w.pods()
			for _, p := range pods {
				var pod v1.Pod
				toTyped(p, &pod)
				require.NoError(t, podInf.Informer().GetIndexer().Add(&pod))
			}
			client.ClearActions()
			refuseRS = r.IntN(8) == 0
			refErr := sync(ctx, "ns/d")
			now := time.Now()
			want := refDActions(client.Actions(), now)
			var wantEvents []string
			for len(recorder.Events) > 0 {
				if e := <-recorder.Events; strings.Contains(e, wpd.ReasonFailedRSCreate) {
					wantEvents = append(wantEvents, e)
				}
			}
			// The Deployment as the apiserver stores it (the typed round trip).
			stored := toMap(&d)
			refuse := func(a wpd.Action) error {
				if refuseRS && a.Type == wpd.ActionCreateReplicaSet {
					return forbidden{`replicasets.apps "` + a.Name + `" is forbidden: ` + rsQuotaMessage}
				}
				return nil
			}
			res, err := wpd.Sync(wpd.Input{Deployment: stored, ReplicaSets: w.rss, Pods: pods}, wpd.Options{Now: now, Refuse: refuse})
			require.NoError(t, err)
			rename := w.hashRenames(client.Actions(), res.Actions)
			got := ourDActions(res.Actions, now)
			var gotEvents []string
			for _, a := range res.Actions {
				if a.Event != nil && a.Event.Reason == wpd.ReasonFailedRSCreate {
					gotEvents = append(gotEvents, a.Event.Type+" "+a.Event.Reason+" "+a.Event.Message)
				}
			}
			for i := range got {
				for from, to := range rename {
					got[i] = strings.ReplaceAll(got[i], from, to)
				}
			}
			for i := range gotEvents {
				for from, to := range rename {
					gotEvents[i] = strings.ReplaceAll(gotEvents[i], from, to)
				}
			}
			sortPatchRuns(want)
			sortPatchRuns(got)
			syncs++
			writes += len(want)
			for _, a := range want {
				f := strings.Fields(a)
				kinds[f[0]+" "+f[1]]++
			}
			for _, a := range res.Actions {
				if a.Event != nil {
					kinds["event "+a.Event.Reason]++
				}
			}
			if !assert.Equal(t, want, got, "history %d step %d: deployment %s\nreplicasets %s", h, s, canonical(w.d), canonicalList(w.rss)) {
				disagreements++
				break
			}
			if !assert.Equal(t, wantEvents, gotEvents, "history %d step %d: FailedRSCreate Events", h, s) {
				disagreements++
				break
			}
			assert.Equal(t, refErr != nil, res.Err != nil, "history %d step %d: error %v vs %v", h, s, refErr, res.Err)
			w.applyRef(client.Actions(), refuseRS)
		}
	}
	t.Logf("%d syncs (%d writes) compared, %d disagreements; writes and events by kind: %v", syncs, writes, disagreements, kinds)
	assert.Zero(t, disagreements)
}

func resetIndexer(idx interface {
	List() []any
	Delete(any) error
}) {
	for _, o := range idx.List() {
		_ = idx.Delete(o)
	}
}

// hashRenames maps our pod-template-hash of a created ReplicaSet to the reference's:
// the two hash different dumps of the template (see the deployment package doc).
func (w *dWorld) hashRenames(ref []core.Action, ours []wpd.Action) map[string]string {
	var refHash, ourHash string
	for _, a := range ref {
		if a.GetVerb() == "create" {
			refHash = a.(core.CreateAction).GetObject().(*apps.ReplicaSet).Labels["pod-template-hash"]
		}
	}
	for _, a := range ours {
		if a.Type == wpd.ActionCreateReplicaSet {
			ourHash, _ = a.Object["metadata"].(map[string]any)["labels"].(map[string]any)["pod-template-hash"].(string)
		}
	}
	if refHash == "" || ourHash == "" {
		return nil
	}
	return map[string]string{ourHash: refHash}
}

// sortPatchRuns sorts each run of adjacent patches: adoption follows lister order, a
// random map order.
func sortPatchRuns(s []string) {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && strings.HasPrefix(s[j], "patch ") {
			j++
		}
		if j > i {
			sort.Strings(s[i:j])
			i = j
		} else {
			i++
		}
	}
}

// rsQuotaMessage is the refusal of the steps whose ReplicaSet creates the API refuses.
const rsQuotaMessage = "exceeded quota: q, requested: count/replicasets.apps=1, used: count/replicasets.apps=5, limited: count/replicasets.apps=5"

// forbidden is a 403 as Options.Refuse tells it: the text client-go's StatusError has.
type forbidden struct{ msg string }

func (e forbidden) Error() string     { return e.msg }
func (e forbidden) StatusCode() int32 { return 403 }

// applyRef writes the reference's writes into the world, as the apiserver stores them (a
// create the API refused, when refusedCreates, stores nothing).
func (w *dWorld) applyRef(actions []core.Action, refusedCreates bool) {
	for _, a := range actions {
		switch a.GetVerb() {
		case "create":
			if refusedCreates {
				continue
			}
			rs := toMap(a.(core.CreateAction).GetObject())
			w.rsSeq++
			md := rs["metadata"].(map[string]any)
			md["uid"] = fmt.Sprintf("rs-uid-%d", w.rsSeq)
			md["generation"] = int64(1)
			md["creationTimestamp"] = ts(0)
			delete(rs, "status")
			w.rss = append(w.rss, rs)
		case "update":
			obj := toMap(a.(core.UpdateAction).GetObject())
			if a.GetResource().Resource == "replicasets" {
				for i, rs := range w.rss {
					if rs["metadata"].(map[string]any)["name"] == obj["metadata"].(map[string]any)["name"] {
						old := rs
						obj["metadata"].(map[string]any)["uid"] = old["metadata"].(map[string]any)["uid"]
						obj["metadata"].(map[string]any)["creationTimestamp"] = old["metadata"].(map[string]any)["creationTimestamp"]
						obj["metadata"].(map[string]any)["generation"] = old["metadata"].(map[string]any)["generation"]
						if canonical(obj["spec"].(map[string]any)) != canonical(old["spec"].(map[string]any)) {
							bumpGeneration(obj)
						}
						obj["status"] = old["status"]
						w.rss[i] = obj
					}
				}
				continue
			}
			md := w.d["metadata"].(map[string]any)
			md["annotations"] = obj["metadata"].(map[string]any)["annotations"]
			if a.GetSubresource() == "status" {
				w.d["status"] = obj["status"]
			} else {
				if canonical(obj["spec"].(map[string]any)) != canonical(w.d["spec"].(map[string]any)) {
					bumpGeneration(w.d)
				}
				w.d["spec"] = obj["spec"]
			}
		case "delete":
			name := a.(core.DeleteAction).GetName()
			for i, rs := range w.rss {
				if rs["metadata"].(map[string]any)["name"] == name {
					w.rss = append(w.rss[:i], w.rss[i+1:]...)
					break
				}
			}
		}
	}
}
