package controllers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	rqadmission "k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	quota "k8s.io/apiserver/pkg/quota/v1"
	core "k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	testingclock "k8s.io/utils/clock/testing"

	wprq "github.com/writepath/writepath/controllers/resourcequota"
)

// The quota evaluators and the admission plugin's check against the reference's
// (k8s.io/kubernetes pkg/quota/v1/evaluator/core, k8s.io/apiserver
// plugin/resourcequota.CheckRequest) on seeded random Pods, Services, claims and quotas:
// the same usage (names and quantity strings) and, for one request against a namespace's
// quotas, the same refusal message or the same new status.used of every quota.

var quotaNow = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

var quantities = []string{"0", "100m", "250m", "1", "1.5", "2", "500Mi", "1Gi", "2G", "1e3", "3Ki", "0.5"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randList(r *rand.Rand, names []string) map[string]any {
	if r.IntN(4) == 0 {
		return nil
	}
	m := map[string]any{}
	for _, n := range names {
		if r.IntN(3) == 0 {
			m[n] = pick(r, quantities)
		}
	}
	return m
}

var podResourceNames = []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "deviceclass.resource.kubernetes.io/gpu"}

func randContainer(r *rand.Rand, name string, init bool) map[string]any {
	c := map[string]any{"name": name, "image": "x"}
	res := map[string]any{}
	if l := randList(r, podResourceNames); l != nil {
		res["requests"] = l
	}
	if l := randList(r, podResourceNames); l != nil {
		res["limits"] = l
	}
	if len(res) > 0 {
		c["resources"] = res
	}
	if init && r.IntN(2) == 0 {
		c["restartPolicy"] = "Always"
	}
	return c
}

func randPod(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{}
	var ctrs, inits []any
	var names []string
	for i := range r.IntN(3) + 1 {
		n := fmt.Sprintf("c%d", i)
		ctrs = append(ctrs, randContainer(r, n, false))
		names = append(names, n)
	}
	for i := range r.IntN(3) {
		n := fmt.Sprintf("i%d", i)
		inits = append(inits, randContainer(r, n, true))
		names = append(names, n)
	}
	spec["containers"] = ctrs
	if inits != nil {
		spec["initContainers"] = inits
	}
	if r.IntN(4) == 0 {
		spec["resources"] = map[string]any{"requests": randList(r, []string{"cpu", "memory", "hugepages-2Mi"}), "limits": randList(r, []string{"cpu", "memory"})}
	}
	if r.IntN(5) == 0 {
		spec["overhead"] = randList(r, []string{"cpu", "memory"})
	}
	if r.IntN(3) == 0 {
		spec["activeDeadlineSeconds"] = int64(r.IntN(3) - 1)
	}
	if r.IntN(3) == 0 {
		spec["priorityClassName"] = pick(r, []string{"high", "low"})
	}
	if r.IntN(5) == 0 {
		spec["affinity"] = map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"weight": int64(1), "podAffinityTerm": map[string]any{"topologyKey": "k", "namespaces": []any{"other"}}}}}}
	}
	meta := map[string]any{"name": name, "namespace": "ns", "resourceVersion": "7"}
	if r.IntN(5) == 0 {
		meta["deletionTimestamp"] = quotaNow.Add(-time.Duration(r.IntN(120)) * time.Second).Format(time.RFC3339)
		meta["deletionGracePeriodSeconds"] = int64(30)
	}
	st := map[string]any{"phase": pick(r, []string{"Pending", "Running", "Succeeded", "Failed"})}
	if r.IntN(3) == 0 {
		var css []any
		for _, n := range names {
			if r.IntN(2) == 0 {
				continue
			}
			cs := map[string]any{"name": n, "image": "x", "imageID": "", "ready": false, "restartCount": int64(0)}
			if l := randList(r, podResourceNames[:3]); l != nil {
				cs["allocatedResources"] = l
			}
			if r.IntN(2) == 0 {
				cs["resources"] = map[string]any{"requests": randList(r, podResourceNames[:3]), "limits": randList(r, podResourceNames[:3])}
			}
			css = append(css, cs)
		}
		st["containerStatuses"] = css
	}
	if r.IntN(5) == 0 {
		st["conditions"] = []any{map[string]any{"type": "PodResizePending", "status": "True", "reason": pick(r, []string{"Infeasible", "Deferred"})}}
	}
	if r.IntN(6) == 0 {
		st["qosClass"] = pick(r, []string{"BestEffort", "Burstable", "Guaranteed"})
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": st}
}

func randService(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{"type": pick(r, []string{"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"})}
	var ports []any
	for i := range r.IntN(4) {
		p := map[string]any{"port": int64(80 + i)}
		if r.IntN(2) == 0 {
			p["nodePort"] = int64(30000 + i)
		}
		ports = append(ports, p)
	}
	if ports != nil {
		spec["ports"] = ports
	}
	if r.IntN(2) == 0 {
		spec["allocateLoadBalancerNodePorts"] = r.IntN(2) == 0
	}
	return map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name, "namespace": "ns", "resourceVersion": "7"}, "spec": spec}
}

func randClaim(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{}
	if r.IntN(4) > 0 {
		spec["resources"] = map[string]any{"requests": map[string]any{"storage": pick(r, []string{"1", "1.5", "1Gi", "100m", "2G"})}}
	}
	if r.IntN(2) == 0 {
		spec["storageClassName"] = pick(r, []string{"gold", "silver"})
	}
	if r.IntN(4) == 0 {
		spec["volumeAttributesClassName"] = pick(r, []string{"fast", "slow"})
	}
	meta := map[string]any{"name": name, "namespace": "ns", "resourceVersion": "7"}
	if r.IntN(4) == 0 {
		meta["annotations"] = map[string]any{"volume.beta.kubernetes.io/storage-class": "bronze"}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}
	if r.IntN(3) == 0 {
		obj["status"] = map[string]any{"allocatedResources": map[string]any{"storage": pick(r, []string{"1", "3Gi", "1.5"})}}
	}
	return obj
}

var quotaNames = map[string][]string{
	"pods": {"pods", "count/pods", "cpu", "requests.cpu", "limits.cpu", "memory", "requests.memory", "limits.memory",
		"requests.ephemeral-storage", "limits.ephemeral-storage", "requests.hugepages-2Mi", "hugepages-2Mi", "requests.example.com/gpu"},
	"services":               {"services", "count/services", "services.nodeports", "services.loadbalancers"},
	"persistentvolumeclaims": {"persistentvolumeclaims", "requests.storage", "gold.storageclass.storage.k8s.io/requests.storage", "count/persistentvolumeclaims", "bronze.storageclass.storage.k8s.io/persistentvolumeclaims"},
}

func randQuota(r *rand.Rand, name, resource string) map[string]any {
	hard := map[string]any{}
	used := map[string]any{}
	names := append(append([]string(nil), quotaNames[resource]...), "configmaps")
	for _, n := range names {
		if r.IntN(3) == 0 {
			hard[n] = pick(r, []string{"0", "1", "2", "500m", "1Gi", "3", "10"})
			if r.IntN(8) > 0 {
				used[n] = pick(r, []string{"0", "1", "2", "100m", "1Gi", "3"})
			}
		}
	}
	spec := map[string]any{"hard": hard}
	switch r.IntN(8) {
	case 0:
		spec["scopes"] = []any{pick(r, []any{"BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"})}
	case 1:
		spec["scopeSelector"] = map[string]any{"matchExpressions": []any{pick(r, []any{
			map[string]any{"scopeName": "PriorityClass", "operator": "In", "values": []any{"high"}},
			map[string]any{"scopeName": "PriorityClass", "operator": "NotIn", "values": []any{"high"}},
			map[string]any{"scopeName": "PriorityClass", "operator": "Exists"},
			map[string]any{"scopeName": "PriorityClass", "operator": "DoesNotExist"},
			map[string]any{"scopeName": "VolumeAttributesClass", "operator": "In", "values": []any{"fast"}},
		})}}
	}
	return map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": name, "namespace": "ns", "resourceVersion": "3"},
		"spec": spec, "status": map[string]any{"hard": hard, "used": used}}
}

func typed[T any](t *testing.T, obj map[string]any) *T {
	t.Helper()
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	out := new(T)
	require.NoError(t, json.Unmarshal(b, out), string(b))
	return out
}

func refList(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[string(k)] = v.String()
	}
	return out
}

func wpList(l wprq.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[k] = v.String()
	}
	return out
}

// reference objects: the typed object of a resource
func refObject(t *testing.T, resource string, obj map[string]any) runtime.Object {
	switch resource {
	case "pods":
		return typed[corev1.Pod](t, obj)
	case "services":
		return typed[corev1.Service](t, obj)
	}
	return typed[corev1.PersistentVolumeClaim](t, obj)
}

func refEvaluator(resource string, clock *testingclock.FakeClock) quota.Evaluator {
	switch resource {
	case "pods":
		return core.NewPodEvaluator(nil, clock)
	case "services":
		return core.NewServiceEvaluator(nil)
	}
	return core.NewPersistentVolumeClaimEvaluator(nil)
}

func TestQuotaUsageAgainstReference(t *testing.T) {
	n := sampleSize(3000, 100000)
	r := rand.New(rand.NewPCG(17, 1))
	clock := testingclock.NewFakeClock(quotaNow)
	disagreements := 0
	for i := range n {
		resource := pick(r, []string{"pods", "pods", "services", "persistentvolumeclaims"})
		var obj map[string]any
		switch resource {
		case "pods":
			obj = randPod(r, "p")
		case "services":
			obj = randService(r, "s")
		default:
			obj = randClaim(r, "c")
		}
		want, err := refEvaluator(resource, clock).Usage(refObject(t, resource, obj))
		require.NoError(t, err)
		got, err := wprq.Usage("", resource, normalizeJSON(t, obj), quotaNow)
		require.NoError(t, err)
		if fmt.Sprint(refList(want)) != fmt.Sprint(wpList(got)) {
			disagreements++
			if disagreements <= 5 {
				b, _ := json.Marshal(obj)
				t.Errorf("case %d %s: %s\nreference %v\nwritepath %v", i, resource, b, refList(want), wpList(got))
			}
		}
	}
	t.Logf("%d objects, %d disagreements", n, disagreements)
}

// normalizeJSON is obj through JSON into the object model (int64 integers).
func normalizeJSON(t *testing.T, obj map[string]any) map[string]any { return toMap(obj) }

func TestQuotaAdmissionAgainstReference(t *testing.T) {
	n := sampleSize(3000, 100000)
	r := rand.New(rand.NewPCG(17, 2))
	clock := testingclock.NewFakeClock(quotaNow)
	disagreements, refused, charged := 0, 0, 0
	kinds := map[string]int{}
	for i := range n {
		resource := pick(r, []string{"pods", "pods", "services", "persistentvolumeclaims"})
		gen := map[string]func(*rand.Rand, string) map[string]any{"pods": randPod, "services": randService, "persistentvolumeclaims": randClaim}[resource]
		obj := gen(r, "o")
		if resource == "pods" {
			obj["status"] = map[string]any{}
		}
		var old map[string]any
		op := admission.Create
		if resource != "pods" && r.IntN(2) == 0 {
			op, old = admission.Update, gen(r, "o")
		}
		var quotas []map[string]any
		for j := range r.IntN(3) + 1 {
			quotas = append(quotas, randQuota(r, fmt.Sprintf("q%d", j), resource))
		}
		var refQuotas []corev1.ResourceQuota
		for _, q := range quotas {
			refQuotas = append(refQuotas, *typed[corev1.ResourceQuota](t, q))
		}
		gvr := schema.GroupVersionResource{Version: "v1", Resource: resource}
		var refOld runtime.Object
		if old != nil {
			refOld = refObject(t, resource, old)
		}
		attrs := admission.NewAttributesRecord(refObject(t, resource, obj), refOld, schema.GroupVersionKind{}, "ns", "o", gvr, "", op, nil, false, nil)
		outQuotas, refErr := rqadmission.CheckRequest(refQuotas, attrs, refEvaluator(resource, clock), nil)
		want := ""
		if refErr != nil {
			var se *apierrors.StatusError
			if errors.As(refErr, &se) {
				want = se.ErrStatus.Message
			} else {
				want = "error: " + refErr.Error()
			}
		} else {
			var lines []string
			for j := range refQuotas {
				if !quota.Equals(refQuotas[j].Status.Used, outQuotas[j].Status.Used) {
					lines = append(lines, fmt.Sprint(refQuotas[j].Name, refList(outQuotas[j].Status.Used)))
				}
			}
			sort.Strings(lines)
			want = fmt.Sprint(lines)
		}
		var wpQuotas []map[string]any
		for _, q := range quotas {
			wpQuotas = append(wpQuotas, normalizeJSON(t, q))
		}
		wop := wprq.Create
		var wpOld map[string]any
		if op == admission.Update {
			wop, wpOld = wprq.Update, normalizeJSON(t, old)
		}
		chargedQuotas, err := wprq.Admit(wpQuotas, wprq.Attributes{Resource: resource, Namespace: "ns", Operation: wop, Object: normalizeJSON(t, obj), OldObject: wpOld}, quotaNow)
		got := ""
		if msg, ok := wprq.IsForbidden(err); ok {
			got = fmt.Sprintf("%s %q is forbidden: %s", resource, "o", msg)
			refused++
			kinds[strings.SplitN(msg, ":", 2)[0]]++
		} else if err != nil {
			got = "error: " + err.Error()
		} else {
			var lines []string
			for _, q := range chargedQuotas {
				used := map[string]string{}
				for k, v := range q["status"].(map[string]any)["used"].(map[string]any) {
					used[k] = v.(string)
				}
				lines = append(lines, fmt.Sprint(q["metadata"].(map[string]any)["name"], used))
			}
			if len(lines) > 0 {
				charged++
			}
			sort.Strings(lines)
			got = fmt.Sprint(lines)
		}
		if got != want {
			disagreements++
			if disagreements <= 5 {
				b, _ := json.Marshal(map[string]any{"obj": obj, "old": old, "quotas": quotas})
				t.Errorf("case %d %s %s: %s\nreference %s\nwritepath %s", i, resource, op, b, want, got)
			}
		}
	}
	t.Logf("%d requests (%d refused %v, %d charged), %d disagreements", n, refused, kinds, charged, disagreements)
}
