package controllers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	consistencyutil "k8s.io/kubernetes/pkg/controller/util/consistency"

	wprs "github.com/writepath/writepath/controllers/replicaset"
)

// rsWorld is the state both controllers see: one ReplicaSet under test, maybe a sibling
// ReplicaSet of the same Deployment, and Pods.
type rsWorld struct {
	r        *rand.Rand
	base     time.Time
	rs       map[string]any
	sibling  map[string]any
	pods     []map[string]any
	podSeq   int
	failNext int // creations the API refuses next (quota)
	ourExp   *wprs.Expectations
	refExp   *controller.UIDTrackingControllerExpectations
}

func (w *rsWorld) now() time.Time { return time.Now() }

func (w *rsWorld) ts(back time.Duration) string {
	return w.now().Add(-back).UTC().Format(time.RFC3339)
}

func newRSWorld(r *rand.Rand) *rsWorld {
	w := &rsWorld{r: r}
	labels := map[string]any{"app": "web"}
	tmplLabels := map[string]any{"app": "web"}
	if r.IntN(3) == 0 {
		tmplLabels["extra"] = "x"
	}
	w.rs = map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "rs-uid", "generation": int64(1)},
		"spec": map[string]any{
			"replicas": int64(r.IntN(6)),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": tmplLabels, "annotations": map[string]any{"a": "b"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
			},
		},
	}
	if r.IntN(4) == 0 {
		w.rs["spec"].(map[string]any)["minReadySeconds"] = int64(r.IntN(20))
	}
	if r.IntN(2) == 0 {
		owner := []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "d-uid",
			"controller": true, "blockOwnerDeletion": true}}
		w.rs["metadata"].(map[string]any)["ownerReferences"] = owner
		w.sibling = map[string]any{
			"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"metadata": map[string]any{"name": "web-old", "namespace": "ns", "uid": "old-uid", "generation": int64(1), "ownerReferences": owner},
			"spec": map[string]any{"replicas": int64(0), "selector": map[string]any{"matchLabels": map[string]any{"app": "old"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "old"}}}},
		}
	}
	for i := r.IntN(4); i > 0; i-- {
		w.addPod(r.IntN(3) == 0)
	}
	return w
}

// addPod adds a Pod owned by the ReplicaSet, or an orphan or a sibling's Pod.
func (w *rsWorld) addPod(foreign bool) {
	w.podSeq++
	name := fmt.Sprintf("p%d", w.podSeq)
	md := map[string]any{"name": name, "namespace": "ns", "uid": "uid-" + name,
		"creationTimestamp": w.ts(time.Duration(w.r.IntN(4000)) * time.Second),
		"labels":            map[string]any{"app": "web"}}
	switch {
	case foreign && w.sibling != nil && w.r.IntN(2) == 0:
		md["labels"] = map[string]any{"app": "old"}
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-old", "uid": "old-uid", "controller": true}}
	case foreign && w.r.IntN(3) == 0:
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ReplicationController", "name": "other", "uid": "other-uid", "controller": true}}
	case foreign:
		// An orphan with matching labels (adopted) or not.
		if w.r.IntN(3) == 0 {
			md["labels"] = map[string]any{"app": "nope"}
		}
	default:
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-uid", "controller": true, "blockOwnerDeletion": true}}
		if w.r.IntN(3) == 0 {
			md["labels"] = map[string]any{"app": "web", "extra": "x"}
		}
	}
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": map[string]any{}, "status": map[string]any{"phase": "Pending"}}
	w.pods = append(w.pods, pod)
	w.evolvePod(pod)
}

// evolvePod moves a Pod along: scheduled, running, ready, restarts, deletion cost.
func (w *rsWorld) evolvePod(pod map[string]any) {
	r := w.r
	spec := pod["spec"].(map[string]any)
	st := pod["status"].(map[string]any)
	md := pod["metadata"].(map[string]any)
	switch r.IntN(8) {
	case 0:
		spec["nodeName"] = fmt.Sprintf("n%d", r.IntN(3))
	case 1:
		st["phase"] = []string{"Pending", "Running", "Unknown", "Running"}[r.IntN(4)]
	case 2, 3:
		st["phase"] = "Running"
		spec["nodeName"] = fmt.Sprintf("n%d", r.IntN(3))
		st["conditions"] = []any{map[string]any{"type": "Ready", "status": []string{"True", "True", "False"}[r.IntN(3)],
			"lastTransitionTime": w.ts(time.Duration(r.IntN(3000)) * time.Second)}}
	case 4:
		st["containerStatuses"] = []any{map[string]any{"name": "c", "restartCount": int64(r.IntN(3)), "ready": false, "image": "nginx", "imageID": ""}}
	case 5:
		if r.IntN(3) == 0 {
			md["annotations"] = map[string]any{wprs.DeletionCostAnnotation: []string{"-5", "0", "10", "+3", "007", "x"}[r.IntN(6)]}
		}
	case 6:
		if r.IntN(6) == 0 {
			st["phase"] = []string{"Failed", "Succeeded"}[r.IntN(2)]
		}
	case 7:
		if r.IntN(5) == 0 {
			md["labels"] = map[string]any{"app": "moved"}
		}
	}
}

func (w *rsWorld) mutate() {
	r := w.r
	for n := r.IntN(3); n >= 0; n-- {
		switch r.IntN(10) {
		case 0:
			spec := w.rs["spec"].(map[string]any)
			spec["replicas"] = int64(r.IntN(8))
			md := w.rs["metadata"].(map[string]any)
			md["generation"] = md["generation"].(int64) + 1
		case 1:
			w.addPod(r.IntN(2) == 0)
		case 2:
			if r.IntN(4) == 0 {
				w.failNext = r.IntN(3)
			}
		case 3:
			if r.IntN(4) == 0 {
				spec := w.rs["spec"].(map[string]any)
				spec["minReadySeconds"] = int64(r.IntN(3000))
			}
		default:
			if len(w.pods) > 0 {
				w.evolvePod(w.pods[r.IntN(len(w.pods))])
			}
		}
	}
}

// refAction is a write the reference made, in our Action vocabulary.
func refActions(actions []core.Action) []string {
	var out []string
	for _, a := range actions {
		switch a.GetVerb() {
		case "update":
			rs := a.(core.UpdateAction).GetObject().(*apps.ReplicaSet)
			out = append(out, "status "+describeStatus(toMap(rs.Status)))
		case "create":
			pod := a.(core.CreateAction).GetObject().(*v1.Pod)
			out = append(out, "create "+describePod(toMap(pod)))
		case "delete":
			out = append(out, "delete "+a.(core.DeleteAction).GetName())
		case "patch":
			a := a.(core.PatchAction)
			out = append(out, "patch "+a.GetName()+" "+string(a.GetPatch()))
		case "get":
			// The adoption's recheck of the ReplicaSet: a read, not a write.
		default:
			out = append(out, fmt.Sprintf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource))
		}
	}
	sort.Strings(out)
	return out
}

func ourActions(actions []wprs.Action) []string {
	var out []string
	for _, a := range actions {
		switch a.Type {
		case wprs.ActionCreate:
			// The reference's pod has no typed round trip to apiVersion/kind and namespace.
			var pod v1.Pod
			toTyped(a.Object, &pod)
			pod.APIVersion, pod.Kind, pod.Namespace = "", "", ""
			out = append(out, "create "+describePod(toMap(&pod)))
		case wprs.ActionDelete:
			out = append(out, "delete "+a.Name)
		case wprs.ActionAdopt, wprs.ActionRelease:
			out = append(out, "patch "+a.Name+" "+patchJSON(a.Patch))
		case wprs.ActionUpdateStatus:
			var st apps.ReplicaSetStatus
			toTyped(a.Object["status"].(map[string]any), &st)
			out = append(out, "status "+describeStatus(toMap(st)))
		}
	}
	sort.Strings(out)
	return out
}

// patchJSON prints our patch as the reference marshals its patch structs (field order
// of objectForAddOwnerRefPatch and of the delete patch).
func patchJSON(p map[string]any) string {
	md := p["metadata"].(map[string]any)
	ref := md["ownerReferences"].([]any)[0].(map[string]any)
	if ref["$patch"] == "delete" {
		return fmt.Sprintf(`{"metadata":{"uid":%q,"ownerReferences":[{"$patch":"delete","uid":%q}]}}`, md["uid"], ref["uid"])
	}
	return fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}],"uid":%q}}`,
		ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], md["uid"])
}

func describePod(m map[string]any) string { return canonical(m) }

// describeStatus prints a status with condition times cut to the minute: the reference
// stamps them with its own clock.
func describeStatus(m map[string]any) string {
	for _, c := range listOf(m["conditions"]) {
		if cm, ok := c.(map[string]any); ok {
			if t, ok := cm["lastTransitionTime"].(string); ok && len(t) > 16 {
				cm["lastTransitionTime"] = t[:16]
			}
		}
	}
	return canonical(m)
}

func listOf(v any) []any { l, _ := v.([]any); return l }

func canonical(m map[string]any) string {
	b, _ := jsonMarshalSorted(m)
	return string(b)
}

func TestReplicaSetSyncAgainstController(t *testing.T) {
	histories := sampleSize(20, 2100)
	const steps = 50
	r := rand.New(rand.NewPCG(18, 3))
	ctx := context.Background()
	logger := klog.FromContext(ctx)
	disagreements, syncs, writes := 0, 0, 0
	for h := 0; h < histories && disagreements < 5; h++ {
		w := newRSWorld(r)
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		rsInf, podInf := factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
		recorder := record.NewFakeRecorder(1 << 20)
		rsc := replicaset.NewBaseController(logger, rsInf, podInf, client, wprs.BurstReplicas,
			apps.SchemeGroupVersion.WithKind("ReplicaSet"), "replicaset_controller", "replicaset",
			controller.RealPodControl{KubeClient: client, Recorder: recorder}, broadcaster,
			replicaset.DefaultReplicaSetControllerFeatures(), consistencyutil.NewNoopConsistencyStore())
		field[interface{ ShutDown() }](rsc, "queue").ShutDown()
		sync := field[syncFunc](rsc, "syncHandler")
		w.refExp = field[*controller.UIDTrackingControllerExpectations](rsc, "expectations")
		var failing int
		client.PrependReactor("*", "*", func(a core.Action) (bool, runtime.Object, error) {
			switch a.GetVerb() {
			case "update":
				return true, a.(core.UpdateAction).GetObject(), nil
			case "patch":
				return true, &v1.Pod{}, nil
			case "delete":
				return true, nil, nil
			case "get":
				var rs apps.ReplicaSet
				toTyped(w.rs, &rs)
				return true, &rs, nil
			}
			switch a := a.(type) {
			case core.CreateAction:
				if failing > 0 {
					failing--
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web-",
						errors.New("exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3"))
				}
				return true, a.GetObject(), nil
			case core.GetAction:
				var rs apps.ReplicaSet
				toTyped(w.rs, &rs)
				return true, &rs, nil
			case core.UpdateAction:
				return true, a.GetObject(), nil
			case core.DeleteAction:
				return true, nil, nil
			case core.PatchAction:
				return true, &v1.Pod{}, nil
			}
			return false, nil, nil
		})
		for s := 0; s < steps; s++ {
			if s > 0 {
				w.mutate()
			}
			// Fill the informers' indexers with the world.
			for _, o := range rsInf.Informer().GetIndexer().List() {
				_ = rsInf.Informer().GetIndexer().Delete(o)
			}
			for _, o := range podInf.Informer().GetIndexer().List() {
				_ = podInf.Informer().GetIndexer().Delete(o)
			}
			var rs apps.ReplicaSet
			toTyped(w.rs, &rs)
			require.NoError(t, rsInf.Informer().GetIndexer().Add(&rs))
			var rss []map[string]any
			rss = append(rss, w.rs)
			if w.sibling != nil {
				var sib apps.ReplicaSet
				toTyped(w.sibling, &sib)
				require.NoError(t, rsInf.Informer().GetIndexer().Add(&sib))
				rss = append(rss, w.sibling)
			}
			for _, p := range w.pods {
				var pod v1.Pod
				toTyped(p, &pod)
				require.NoError(t, podInf.Informer().GetIndexer().Add(&pod))
			}
			failing = w.failNext
			client.ClearActions()
			refErr := sync(ctx, "ns/web")
			now := time.Now()
			want := refActions(client.Actions())
			failed := w.failNext
			refuse := func(a wprs.Action) error {
				if a.Type == wprs.ActionCreate && failed > 0 {
					failed--
					return errors.New(`pods "web-" is forbidden: exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3`)
				}
				return nil
			}
			res, err := wprs.Sync(wprs.Input{ReplicaSet: w.rs, Pods: w.pods, ReplicaSets: rss, Expectations: w.ourExp},
				wprs.Options{Now: now, Refuse: refuse})
			require.NoError(t, err)
			got := ourActions(res.Actions)
			var renamed map[string]string
			got, renamed = w.forgiveTies(want, got, rss, now)
			// Where ties were forgiven, go on with the reference's choice.
			for i, a := range res.Actions {
				if n, ok := renamed[a.Name]; ok && a.Type == wprs.ActionDelete {
					res.Actions[i].Name = n
				}
			}
			if res.Expectations != nil && len(renamed) > 0 {
				e := *res.Expectations
				e.Deleting = append([]string(nil), e.Deleting...)
				for i, k := range e.Deleting {
					if n, ok := renamed[strings.TrimPrefix(k, "ns/")]; ok {
						e.Deleting[i] = "ns/" + n
					}
				}
				res.Expectations = &e
			}
			syncs++
			writes += len(want)
			refE, _, _ := w.refExp.GetExpectations("ns/web")
			if !assert.Equal(t, want, got, "history %d step %d: ref expectations %+v ours %+v: rs %s\npods %s", h, s, refE, w.ourExp, canonical(w.rs), canonicalList(w.pods)) {
				disagreements++
				break
			}
			assert.Equal(t, refErr != nil, res.Err != nil, "history %d step %d: error %v vs %v", h, s, refErr, res.Err)
			// Expectations agree: the reference's are satisfied exactly when ours are.
			assert.Equal(t, w.refExp.SatisfiedExpectations(logger, "ns/web"), res.Expectations.Satisfied(wprs.Options{Now: now}), "history %d step %d: expectations", h, s)
			w.ourExp = res.Expectations
			w.failNext = 0
			w.apply(res, logger)
		}
	}
	t.Logf("%d syncs (%d writes) compared, %d disagreements", syncs, writes, disagreements)
	assert.Zero(t, disagreements)
}

// apply writes the sync's actions into the world and lets both controllers observe them
// as their informers would.
func (w *rsWorld) apply(res wprs.Result, logger klog.Logger) {
	for _, a := range res.Actions {
		if a.Err != "" {
			continue
		}
		switch a.Type {
		case wprs.ActionCreate:
			w.podSeq++
			pod := copyMap(a.Object)
			md := pod["metadata"].(map[string]any)
			md["name"] = fmt.Sprintf("%sc%d", md["generateName"], w.podSeq)
			md["uid"] = fmt.Sprintf("uid-c%d", w.podSeq)
			md["creationTimestamp"] = w.ts(0)
			pod["status"] = map[string]any{"phase": "Pending"}
			w.pods = append(w.pods, pod)
			w.refExp.CreationObserved(logger, "ns/web")
			w.ourExp = w.ourExp.CreationObserved()
		case wprs.ActionDelete:
			for i, p := range w.pods {
				if p["metadata"].(map[string]any)["name"] == a.Name {
					if w.r.IntN(2) == 0 {
						// Graceful: terminating first.
						p["metadata"].(map[string]any)["deletionTimestamp"] = w.ts(0)
					} else {
						w.pods = append(w.pods[:i], w.pods[i+1:]...)
					}
					w.refExp.DeletionObserved(logger, "ns/web", "ns/"+a.Name)
					w.ourExp = w.ourExp.DeletionObserved("ns/" + a.Name)
					break
				}
			}
		case wprs.ActionAdopt:
			for _, p := range w.pods {
				if p["metadata"].(map[string]any)["name"] == a.Name {
					p["metadata"].(map[string]any)["ownerReferences"] = copyMap(a.Patch)["metadata"].(map[string]any)["ownerReferences"]
				}
			}
		case wprs.ActionRelease:
			for _, p := range w.pods {
				if p["metadata"].(map[string]any)["name"] == a.Name {
					delete(p["metadata"].(map[string]any), "ownerReferences")
				}
			}
		case wprs.ActionUpdateStatus:
			w.rs["status"] = copyMap(a.Object)["status"].(map[string]any)
		}
	}
	// Terminating Pods go away now and then.
	kept := w.pods[:0]
	for _, p := range w.pods {
		if _, ok := p["metadata"].(map[string]any)["deletionTimestamp"]; ok && w.r.IntN(3) == 0 {
			continue
		}
		kept = append(kept, p)
	}
	w.pods = kept
}

func canonicalList(l []map[string]any) string {
	var parts []string
	for _, m := range l {
		parts = append(parts, canonical(m))
	}
	return strings.Join(parts, "\n")
}

func copyMap(m map[string]any) map[string]any {
	return toMapAny(m)
}

func toMapAny(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return toMapAny(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = copyValue(x)
		}
		return out
	}
	return v
}

var _ = reflect.DeepEqual
var _ = metav1.Now

// forgiveTies replaces, in got, each deleted Pod the reference did not delete by one the
// reference deleted instead when the reference's own ranking (ActivePodsWithRanks.Less)
// ties the two: the controller sorts with sort.Sort over informer order, which is a
// random map order, so among tied Pods any choice is the controller's.
func (w *rsWorld) forgiveTies(want, got []string, rss []map[string]any, now time.Time) ([]string, map[string]string) {
	inWant := map[string]bool{}
	for _, s := range want {
		inWant[s] = true
	}
	inGot := map[string]bool{}
	for _, s := range got {
		inGot[s] = true
	}
	var extraWant []string
	for _, s := range want {
		if strings.HasPrefix(s, "delete ") && !inGot[s] {
			extraWant = append(extraWant, strings.TrimPrefix(s, "delete "))
		}
	}
	if len(extraWant) == 0 {
		return got, nil
	}
	byName := map[string]*v1.Pod{}
	for _, p := range w.pods {
		var pod v1.Pod
		toTyped(p, &pod)
		byName[pod.Name] = &pod
	}
	// Ranks as getPodsRankedByRelatedPodsOnSameNode computes them.
	onNode := map[string]int{}
	if _, ok := w.rs["metadata"].(map[string]any)["ownerReferences"]; ok {
		seen := map[string]bool{}
		for _, rs := range rss {
			sel := rs["spec"].(map[string]any)["selector"].(map[string]any)["matchLabels"].(map[string]any)
			for _, p := range byName {
				if p.Labels["app"] == sel["app"] && !seen[p.Name] {
					seen[p.Name] = true
					if controller.IsPodActive(p) {
						onNode[p.Spec.NodeName]++
					}
				}
			}
		}
	}
	tied := func(a, b string) bool {
		pa, pb := byName[a], byName[b]
		if pa == nil || pb == nil {
			return false
		}
		s := controller.ActivePodsWithRanks{Pods: []*v1.Pod{pa, pb}, Rank: []int{onNode[pa.Spec.NodeName], onNode[pb.Spec.NodeName]}, Now: metav1.NewTime(now)}
		return !s.Less(0, 1) && !s.Less(1, 0)
	}
	out := make([]string, 0, len(got))
	used := map[string]bool{}
	renamed := map[string]string{}
	for _, s := range got {
		name, isDelete := strings.CutPrefix(s, "delete ")
		if isDelete && !inWant[s] {
			for _, cand := range extraWant {
				if !used[cand] && tied(name, cand) {
					used[cand] = true
					renamed[name] = cand
					s = "delete " + cand
					break
				}
			}
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out, renamed
}
