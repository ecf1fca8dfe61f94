package cluster_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// eventsOf lists a namespace's Events over HTTP, as `kubectl get events` reads them, keyed
// "<involvedObject.kind>/<involvedObject.name> <reason>" with their messages and counts.
func eventsOf(t *testing.T, c *client, ns string) map[string][]string {
	t.Helper()
	code, l, _ := c.do("GET", "/api/v1/namespaces/"+ns+"/events", "", "")
	require.Equal(t, 200, code, "%v", l)
	out := map[string][]string{}
	for _, x := range l["items"].([]any) {
		e := x.(map[string]any)
		io := e["involvedObject"].(map[string]any)
		k := fmt.Sprintf("%s/%s %s", io["kind"], io["name"], e["reason"])
		out[k] = append(out[k], fmt.Sprintf("%s x%v", e["message"], e["count"]))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// A rollout leaves the Events kube-controller-manager's Deployment and ReplicaSet controllers
// record: ScalingReplicaSet on the Deployment for every scale, SuccessfulCreate naming each Pod
// the apiserver generated and SuccessfulDelete on the ReplicaSets, with the recorder's fields,
// written by the controllers' service accounts.
func TestRolloutRecordsEvents(t *testing.T) {
	c := start(t, cluster.Options{})
	code, _, _ := c.do("POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, code)
	code, _, _ = c.do("POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(3, "nginx:1"))
	require.Equal(t, 201, code)
	_, rsl, _ := c.do("GET", "/apis/apps/v1/namespaces/demo/replicasets", "", "")
	first := rsl["items"].([]any)[0].(map[string]any)
	firstName := meta(first)["name"].(string)
	_, pl, _ := c.do("GET", "/api/v1/namespaces/demo/pods", "", "")
	var created []string
	for _, p := range pl["items"].([]any) {
		created = append(created, "Created pod: "+meta(p.(map[string]any))["name"].(string)+" x1")
	}
	sort.Strings(created)
	evs := eventsOf(t, c, "demo")
	assert.Equal(t, map[string][]string{
		"Deployment/web ScalingReplicaSet":              {"Scaled up replica set " + firstName + " from 0 to 3 x1"},
		"ReplicaSet/" + firstName + " SuccessfulCreate": created,
	}, evs)

	// One Event in full: the recorder's fields, and the field manager of the controllers.
	_, l, _ := c.do("GET", "/api/v1/namespaces/demo/events", "", "")
	var ev map[string]any
	for _, x := range l["items"].([]any) {
		if x.(map[string]any)["reason"] == "ScalingReplicaSet" {
			ev = x.(map[string]any)
		}
	}
	require.NotNil(t, ev)
	md := meta(ev)
	assert.True(t, strings.HasPrefix(md["name"].(string), "web."), "%v", md["name"])
	assert.Equal(t, fmt.Sprintf("web.%x", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixNano()), md["name"])
	assert.Equal(t, "kube-controller-manager", md["managedFields"].([]any)[0].(map[string]any)["manager"])
	_, d, _ := c.do("GET", "/apis/apps/v1/namespaces/demo/deployments/web", "", "")
	io := ev["involvedObject"].(map[string]any)
	assert.Equal(t, map[string]any{"kind": "Deployment", "namespace": "demo", "name": "web", "uid": meta(d)["uid"], "apiVersion": "apps/v1",
		"resourceVersion": io["resourceVersion"]}, io)
	assert.NotEmpty(t, io["resourceVersion"])
	assert.Equal(t, map[string]any{"component": "deployment-controller"}, ev["source"])
	assert.Equal(t, "deployment-controller", ev["reportingComponent"])
	assert.Equal(t, "", ev["reportingInstance"])
	assert.Equal(t, "Normal", ev["type"])
	assert.EqualValues(t, 1, ev["count"])
	assert.Equal(t, "2026-12-01T00:00:00Z", ev["firstTimestamp"])
	assert.Equal(t, "2026-12-01T00:00:00Z", ev["lastTimestamp"])
	assert.Nil(t, ev["eventTime"])

	// A new image: the new ReplicaSet is scaled up and the old one down in RollingUpdate's
	// steps (25 % surge and unavailability of 3: 1 and 0), each step an Event; the old Pods are
	// deleted by their ReplicaSet.
	code, _, _ = c.do("PATCH", "/apis/apps/v1/namespaces/demo/deployments/web", "application/strategic-merge-patch+json",
		`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)
	require.Equal(t, 200, code)
	_, rsl, _ = c.do("GET", "/apis/apps/v1/namespaces/demo/replicasets", "", "")
	var second string
	for _, x := range rsl["items"].([]any) {
		if n := meta(x.(map[string]any))["name"].(string); n != firstName {
			second = n
		}
	}
	evs = eventsOf(t, c, "demo")
	scaled := []string{
		"Scaled down replica set " + firstName + " from 1 to 0 x1",
		"Scaled down replica set " + firstName + " from 2 to 1 x1",
		"Scaled down replica set " + firstName + " from 3 to 2 x1",
		"Scaled up replica set " + firstName + " from 0 to 3 x1",
		"Scaled up replica set " + second + " from 0 to 1 x1",
		"Scaled up replica set " + second + " from 1 to 2 x1",
		"Scaled up replica set " + second + " from 2 to 3 x1",
	}
	sort.Strings(scaled)
	assert.Equal(t, scaled, evs["Deployment/web ScalingReplicaSet"])
	var deleted []string
	for _, m := range created {
		deleted = append(deleted, strings.Replace(m, "Created", "Deleted", 1))
	}
	assert.Equal(t, deleted, evs["ReplicaSet/"+firstName+" SuccessfulDelete"])
	assert.Len(t, evs["ReplicaSet/"+second+" SuccessfulCreate"], 3)
}

// The recorders' EventCorrelator: a ReplicaSet creating 30 Pods records 9 SuccessfulCreate
// Events, then (the tenth message within 10 minutes) one aggregate Event counted up by patches
// until the spam filter's burst of 25 per object is spent; the rest wait for its refill (one
// every 5 minutes), and the aggregate's count then includes the Events skipped meanwhile. A
// watch on Events sees each create and patch.
func TestEventsAggregatedAndRateLimited(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	ctx := context.Background()
	w, err := c.Store().Watch(ctx, cluster.Prefix{Resource: "events", Namespace: "demo"}, 0)
	require.NoError(t, err)
	defer w.Stop()
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(30, "nginx:1")).Code)
	require.Len(t, list(t, c, "/api/v1/namespaces/demo/pods"), 30)

	rsEvents := func() (plain []map[string]any, combined map[string]any) {
		for _, e := range list(t, c, "/api/v1/namespaces/demo/events") {
			if e["reason"] != "SuccessfulCreate" {
				continue
			}
			if strings.HasPrefix(e["message"].(string), "(combined from similar events): Created pod: ") {
				require.Nil(t, combined, "one aggregate Event")
				combined = e
			} else {
				plain = append(plain, e)
			}
		}
		return plain, combined
	}
	plain, combined := rsEvents()
	assert.Len(t, plain, 9)
	require.NotNil(t, combined)
	assert.Equal(t, int64(16), combined["count"], "the aggregate, created once and patched 15 times: the burst of 25")
	assert.Equal(t, "", combined["reportingComponent"], "the aggregator's Event has no reporting fields")
	assert.Equal(t, map[string]any{"component": "replicaset-controller"}, combined["source"])

	var added, modified int
	for n := 0; n < 26; n++ {
		select {
		case ev := <-w.Events():
			switch ev.Type {
			case cluster.Added:
				added++
			case cluster.Modified:
				modified++
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the watch saw %d Events", n)
		}
	}
	// The Deployment's one ScalingReplicaSet Event and 10 creates of the ReplicaSet's; 15 patches.
	assert.Equal(t, 11, added)
	assert.Equal(t, 15, modified)

	// Five minutes on: one token. Deleting a Pod makes the ReplicaSet create another, whose
	// Event (the 31st) patches the aggregate: count 16 + 5 skipped + 1.
	clock.Step(5 * time.Minute)
	pods := list(t, c, "/api/v1/namespaces/demo/pods")
	require.Equal(t, 200, do(t, c, "DELETE", "/api/v1/namespaces/demo/pods/"+meta(pods[0])["name"].(string), "", nil).Code)
	_, combined = rsEvents()
	assert.Equal(t, int64(22), combined["count"])
	assert.Equal(t, "2026-12-01T00:05:00Z", combined["lastTimestamp"])
	assert.Equal(t, "2026-12-01T00:00:00Z", combined["firstTimestamp"])
}

// A Pod create the API refuses (here a ValidatingAdmissionPolicy) is the ReplicaSet's
// FailedCreate Event with the API's words, which name the Pod the apiserver generated before
// admission refused it (so every refusal is another message); the controller tries again.
func TestRefusedPodCreateRecordsFailedCreate(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock})
	require.NoError(t, err)
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, do(t, c, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", "",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"no-pods"},
		"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]},
		"validations":[{"expression":"false","message":"no pods here"}]}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", "",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"no-pods"},
		"spec":{"policyName":"no-pods","validationActions":["Deny"]}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(2, "nginx:1")).Code)
	assert.Empty(t, list(t, c, "/api/v1/namespaces/demo/pods"))
	rs := list(t, c, "/apis/apps/v1/namespaces/demo/replicasets")[0]
	rsName := meta(rs)["name"].(string)

	failed := func() []map[string]any {
		var out []map[string]any
		for _, e := range list(t, c, "/api/v1/namespaces/demo/events") {
			if e["reason"] == "FailedCreate" {
				out = append(out, e)
			}
		}
		return out
	}
	evs := failed()
	require.NotEmpty(t, evs)
	for _, e := range evs {
		assert.Equal(t, "Warning", e["type"])
		assert.Equal(t, rsName, e["involvedObject"].(map[string]any)["name"])
		msg := e["message"].(string)
		assert.True(t, strings.HasPrefix(msg, "Error creating: pods \""+rsName+"-"), msg)
		assert.True(t, strings.HasSuffix(msg, "\" is forbidden: ValidatingAdmissionPolicy 'no-pods' with binding 'no-pods' denied request: no pods here"), msg)
	}
	clock.Step(time.Second)
	require.NoError(t, c.Settle(context.Background()))
	assert.Greater(t, len(failed()), len(evs), "the ReplicaSet tries again and records the refusal again")
}

// A ReplicaSet create the API refuses (here a ValidatingAdmissionPolicy) is the Deployment
// controller's FailedRSCreate, as getNewReplicaSet records it: the Progressing condition
// False with reason ReplicaSetCreateError and the API's words, written to the Deployment's
// status, and a Warning Event of that reason and message on the Deployment. The status write
// queues the Deployment again (its informer sees the update), and that sync is refused again:
// the same Event, counted up; so is each later sync (after a clock step), the condition kept.
func TestRefusedReplicaSetCreateRecordsFailedRSCreate(t *testing.T) {
	clock := cluster.NewFakeClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	c, err := cluster.New(cluster.Options{Clock: clock})
	require.NoError(t, err)
	do(t, c, "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	require.Equal(t, 201, do(t, c, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", "",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"no-rs"},
		"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["replicasets"]}]},
		"validations":[{"expression":"false","message":"no replica sets here"}]}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", "",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"no-rs"},
		"spec":{"policyName":"no-rs","validationActions":["Deny"]}}`).Code)
	require.Equal(t, 201, do(t, c, "POST", "/apis/apps/v1/namespaces/demo/deployments", "", deploymentJSON(2, "nginx:1")).Code)
	assert.Empty(t, list(t, c, "/apis/apps/v1/namespaces/demo/replicasets"))

	failed := func() []map[string]any {
		var out []map[string]any
		for _, e := range list(t, c, "/api/v1/namespaces/demo/events") {
			if e["reason"] == "ReplicaSetCreateError" {
				out = append(out, e)
			}
		}
		return out
	}
	evs := failed()
	require.Len(t, evs, 1)
	e := evs[0]
	msg := e["message"].(string)
	assert.Equal(t, "Warning", e["type"])
	assert.Equal(t, map[string]any{"component": "deployment-controller"}, e["source"])
	assert.Equal(t, "Deployment", e["involvedObject"].(map[string]any)["kind"])
	assert.Equal(t, "web", e["involvedObject"].(map[string]any)["name"])
	assert.Regexp(t, `^Failed to create new replica set "web-[a-z0-9]+": replicasets.apps "web-[a-z0-9]+" is forbidden: `+
		`ValidatingAdmissionPolicy 'no-rs' with binding 'no-rs' denied request: no replica sets here$`, msg)
	assert.Equal(t, int64(2), e["count"])

	st := statusOf(t, c)
	conds := st["conditions"].([]any)
	require.Len(t, conds, 1, "%v", st)
	cond := conds[0].(map[string]any)
	assert.Equal(t, "Progressing", cond["type"])
	assert.Equal(t, "False", cond["status"])
	assert.Equal(t, "ReplicaSetCreateError", cond["reason"])
	assert.Equal(t, msg, cond["message"])

	clock.Step(time.Second)
	require.NoError(t, c.Settle(context.Background()))
	evs = failed()
	require.Len(t, evs, 1, "the same Event, counted up")
	assert.Equal(t, int64(3), evs[0]["count"])
	assert.Equal(t, cond["lastTransitionTime"], statusOf(t, c)["conditions"].([]any)[0].(map[string]any)["lastTransitionTime"])
}
