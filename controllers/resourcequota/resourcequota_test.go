package resourcequota_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/writepath/writepath/controllers/resourcequota"
	"github.com/writepath/writepath/schema"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return normalize(m).(map[string]any)
}

// normalize turns encoding/json's float64 integers into int64, as the object model holds them.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}

func strings(l resourcequota.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[k] = v.String()
	}
	return out
}

var now = time.Date(2026, 12, 4, 19, 0, 0, 0, time.UTC)

func TestUsage(t *testing.T) {
	cases := []struct {
		name, group, resource, obj string
		want                       map[string]string
	}{
		{"pod with requests and limits", "", "pods",
			`{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"1Gi"},"limits":{"cpu":"200m"}}},{"name":"b","resources":{"requests":{"cpu":"1","example.com/gpu":"2","hugepages-2Mi":"4Mi"}}}]}}`,
			map[string]string{"count/pods": "1", "pods": "1", "cpu": "1100m", "requests.cpu": "1100m", "limits.cpu": "200m",
				"memory": "1Gi", "requests.memory": "1Gi", "requests.example.com/gpu": "2", "hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi"}},
		{"init container peak and sidecar", "", "pods",
			`{"spec":{"initContainers":[{"name":"i","resources":{"requests":{"cpu":"2"}}},{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}],"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}`,
			map[string]string{"count/pods": "1", "pods": "1", "cpu": "2", "requests.cpu": "2"}},
		{"terminal pod counts only itself", "", "pods",
			`{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]},"status":{"phase":"Succeeded"}}`,
			map[string]string{"count/pods": "1"}},
		{"pod deleted past its grace period", "", "pods",
			`{"metadata":{"deletionTimestamp":"2026-12-04T18:00:00Z","deletionGracePeriodSeconds":30},"spec":{"containers":[{"name":"a"}]}}`,
			map[string]string{"count/pods": "1"}},
		{"pod-level resources and overhead", "", "pods",
			`{"spec":{"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"4"}},"overhead":{"cpu":"100m"},"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}}`,
			map[string]string{"count/pods": "1", "pods": "1", "cpu": "2100m", "requests.cpu": "2100m", "limits.cpu": "4100m"}},
		{"load balancer service", "", "services",
			`{"spec":{"type":"LoadBalancer","ports":[{"port":80},{"port":443}]}}`,
			map[string]string{"count/services": "1", "services": "1", "services.loadbalancers": "1", "services.nodeports": "2"}},
		{"load balancer without node ports", "", "services",
			`{"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,"ports":[{"port":80,"nodePort":30000},{"port":443}]}}`,
			map[string]string{"count/services": "1", "services": "1", "services.loadbalancers": "1", "services.nodeports": "1"}},
		{"claim of a class", "", "persistentvolumeclaims",
			`{"spec":{"storageClassName":"gold","resources":{"requests":{"storage":"1.5"}}}}`,
			map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1", "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
				"requests.storage": "2", "gold.storageclass.storage.k8s.io/requests.storage": "2"}},
		{"claim allocated more", "", "persistentvolumeclaims",
			`{"spec":{"resources":{"requests":{"storage":"1Gi"}}},"status":{"allocatedResources":{"storage":"2Gi"}}}`,
			map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1", "requests.storage": "2Gi"}},
		{"resource claim", "resource.k8s.io", "resourceclaims",
			`{"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":2}},{"name":"b","firstAvailable":[{"name":"x","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"y","deviceClassName":"gpu","allocationMode":"All"}]}]}}}`,
			map[string]string{"count/resourceclaims.resource.k8s.io": "1", "gpu.deviceclass.resource.k8s.io/devices": "34"}},
		{"configmap", "", "configmaps", `{}`, map[string]string{"count/configmaps": "1", "configmaps": "1"}},
		{"custom resource", "example.com", "widgets", `{}`, map[string]string{"count/widgets.example.com": "1"}},
		{"event", "", "events", `{}`, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := resourcequota.Usage(c.group, c.resource, obj(t, c.obj), now)
			require.NoError(t, err)
			assert.Equal(t, c.want, strings(u), c.obj)
		})
	}
}

const quotaPods2 = `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","namespace":"demo","resourceVersion":"5"},
	"spec":{"hard":{"pods":"2","requests.cpu":"1"}},"status":{"hard":{"pods":"2","requests.cpu":"1"},"used":{"pods":"2","requests.cpu":"0"}}}`

func TestAdmit(t *testing.T) {
	pod := `{"metadata":{"name":"p","namespace":"demo"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}}`
	cases := []struct {
		name, quota, pod string
		want             string // the refusal, or the new status.used
	}{
		{"exceeded", quotaPods2, pod, "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"},
		{"status unknown", `{"kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"2"}},"status":{"hard":{"pods":"2"}}}`, pod,
			"status unknown for quota: q, resources: pods"},
		{"failed quota", `{"kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"limits.cpu":"2","requests.memory":"1"}},"status":{"hard":{"limits.cpu":"2","requests.memory":"1"},"used":{"limits.cpu":"0","requests.memory":"0"}}}`,
			`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"},{"name":"d","resources":{"limits":{"cpu":"1"}}}]}}`,
			"failed quota: q: must specify limits.cpu for: c; requests.memory for: c,d"},
		{"charged", `{"kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"3","requests.cpu":"1"}},"status":{"hard":{"pods":"3","requests.cpu":"1"},"used":{"pods":"1","requests.cpu":"200m"}}}`, pod,
			`{"pods":"2","requests.cpu":"300m"}`},
		{"scope not matched", `{"kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"1"},"scopes":["BestEffort"]},"status":{"hard":{"pods":"1"},"used":{"pods":"1"}}}`, pod,
			`null`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := obj(t, c.quota)
			charged, err := resourcequota.Admit([]map[string]any{q}, resourcequota.Attributes{Resource: "pods", Namespace: "demo",
				Operation: resourcequota.Create, Object: obj(t, c.pod)}, now)
			if msg, ok := resourcequota.IsForbidden(err); ok {
				assert.Equal(t, c.want, msg)
				return
			}
			require.NoError(t, err)
			var got any
			if len(charged) == 1 {
				got = charged[0]["status"].(map[string]any)["used"]
			}
			b, _ := json.Marshal(got)
			assert.JSONEq(t, c.want, string(b))
			assert.Equal(t, obj(t, c.quota), q, "the quota is not modified")
		})
	}
}

func TestAdmitUpdateChargesDelta(t *testing.T) {
	q := obj(t, `{"kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"services.nodeports":"2"}},"status":{"hard":{"services.nodeports":"2"},"used":{"services.nodeports":"1"}}}`)
	old := obj(t, `{"metadata":{"name":"s","resourceVersion":"3"},"spec":{"type":"NodePort","ports":[{"port":1}]}}`)
	cur := obj(t, `{"metadata":{"name":"s","resourceVersion":"3"},"spec":{"type":"NodePort","ports":[{"port":1},{"port":2},{"port":3}]}}`)
	_, err := resourcequota.Admit([]map[string]any{q}, resourcequota.Attributes{Resource: "services", Namespace: "demo", Operation: resourcequota.Update, Object: cur, OldObject: old}, now)
	msg, ok := resourcequota.IsForbidden(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2", msg)
	dry, err := resourcequota.Admit([]map[string]any{q}, resourcequota.Attributes{Resource: "services", Namespace: "demo", Operation: resourcequota.Update,
		Object: old, OldObject: old, DryRun: true}, now)
	require.NoError(t, err)
	assert.Nil(t, dry)
}

func TestSync(t *testing.T) {
	q := obj(t, `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","namespace":"demo"},"spec":{"hard":{"pods":"10","count/widgets.example.com":"5","configmaps":"3","requests.memory":"1Gi"}}}`)
	objects := map[string][]map[string]any{
		"pods": {obj(t, `{"spec":{"containers":[{"name":"a","resources":{"requests":{"memory":"100Mi"}}}]}}`),
			obj(t, `{"spec":{"containers":[{"name":"a","resources":{"requests":{"memory":"200Mi"}}}]},"status":{"phase":"Failed"}}`)},
		"configmaps":          {obj(t, `{}`), obj(t, `{}`)},
		"example.com/widgets": {obj(t, `{}`)},
	}
	list := func(r schema.GroupVersionResource) ([]map[string]any, error) {
		if r.Group != "" {
			return objects[r.Group+"/"+r.Resource], nil
		}
		return objects[r.Resource], nil
	}
	res, err := resourcequota.Sync(resourcequota.Input{Quota: q, Objects: list,
		Resources: []schema.GroupVersionResource{{Group: "example.com", Version: "v1", Resource: "widgets"}}}, resourcequota.Options{Now: now})
	require.NoError(t, err)
	require.NotNil(t, res.Quota)
	b, _ := json.Marshal(res.Quota["status"])
	assert.JSONEq(t, `{"hard":{"pods":"10","count/widgets.example.com":"5","configmaps":"3","requests.memory":"1Gi"},
		"used":{"pods":"1","count/widgets.example.com":"1","configmaps":"2","requests.memory":"100Mi"}}`, string(b))
	again, err := resourcequota.Sync(resourcequota.Input{Quota: res.Quota, Objects: list,
		Resources: []schema.GroupVersionResource{{Group: "example.com", Version: "v1", Resource: "widgets"}}}, resourcequota.Options{Now: now})
	require.NoError(t, err)
	assert.Nil(t, again.Quota, "a synced quota is not written again")
}
