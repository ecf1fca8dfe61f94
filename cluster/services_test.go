package cluster_test

import (
	"context"
	"net/netip"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// TestServicesGetClusterIPsAndNodePorts: Services in a cluster get distinct cluster IPs from
// kube-apiserver's default range and node ports from its default range; a taken address or
// port is the allocator's 422; a type change to ClusterIP gives the node ports back.
func TestServicesGetClusterIPsAndNodePorts(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"svc"}}`).Code)
	create := func(body string) map[string]any {
		resp := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json", body)
		require.Equal(t, 201, resp.Code, resp.Object)
		return resp.Object["spec"].(map[string]any)
	}
	a := create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"selector":{"app":"a"},"ports":[{"port":80}]}}`)
	b := create(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"type":"NodePort","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`)
	r := netip.MustParsePrefix("10.0.0.0/24")
	for _, s := range []map[string]any{a, b} {
		ip := netip.MustParseAddr(s["clusterIP"].(string))
		assert.True(t, r.Contains(ip), ip)
		assert.Equal(t, []any{s["clusterIP"]}, s["clusterIPs"])
		assert.Equal(t, []any{"IPv4"}, s["ipFamilies"])
		assert.Equal(t, "SingleStack", s["ipFamilyPolicy"])
	}
	assert.NotEqual(t, a["clusterIP"], b["clusterIP"])
	ports := b["ports"].([]any)
	np0, np1 := ports[0].(map[string]any)["nodePort"].(int64), ports[1].(map[string]any)["nodePort"].(int64)
	assert.NotEqual(t, np0, np1)
	for _, p := range []int64{np0, np1} {
		assert.True(t, p >= 30000 && p <= 32767, p)
	}

	taken := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"c"},"spec":{"clusterIP":"`+a["clusterIP"].(string)+`","ports":[{"port":80}]}}`)
	assert.Equal(t, 422, taken.Code)
	assert.Equal(t, `Service "c" is invalid: spec.clusterIPs: Invalid value: ["`+a["clusterIP"].(string)+`"]: failed to allocate IP `+a["clusterIP"].(string)+`: provided IP is already allocated`, taken.Object["message"])

	back := do(t, c, "PATCH", "/api/v1/namespaces/svc/services/b", "application/merge-patch+json", `{"spec":{"type":"ClusterIP"}}`)
	require.Equal(t, 200, back.Code, back.Object)
	for _, p := range back.Object["spec"].(map[string]any)["ports"].([]any) {
		assert.NotContains(t, p, "nodePort")
	}
	reuse := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"d"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":`+strconv.FormatInt(np0, 10)+`}]}}`)
	assert.Equal(t, 201, reuse.Code, "a node port given back is free again: %v", reuse.Object)
}

// TestServicesIPAddresses: a Service's cluster IP is an IPAddress the allocator created before
// the Service (a smaller resourceVersion); an IPAddress made by hand takes its address; the
// Services the garbage collector and the namespace controller delete give theirs back, as the
// Service REST's AfterDelete does when they delete through the API.
func TestServicesIPAddresses(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Bootstrap(ctx))
	require.Equal(t, 201, do(t, c, "POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"svc"}}`).Code)
	ipas := func() []string {
		resp := do(t, c, "GET", "/apis/networking.k8s.io/v1/ipaddresses", "", nil)
		require.Equal(t, 200, resp.Code)
		var out []string
		for _, it := range resp.Object["items"].([]any) {
			md := it.(map[string]any)["metadata"].(map[string]any)
			ref := it.(map[string]any)["spec"].(map[string]any)["parentRef"].(map[string]any)
			out = append(out, md["name"].(string)+" "+ref["namespace"].(string)+"/"+ref["name"].(string))
		}
		return out
	}
	assert.Equal(t, []string{"10.0.0.1 default/kubernetes"}, ipas())

	owner := do(t, c, "POST", "/api/v1/namespaces/svc/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	require.Equal(t, 201, owner.Code)
	uid := owner.Object["metadata"].(map[string]any)["uid"].(string)
	a := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"`+uid+`"}]},"spec":{"clusterIP":"10.0.0.50","ports":[{"port":80}]}}`)
	require.Equal(t, 201, a.Code, a.Object)
	ipa := do(t, c, "GET", "/apis/networking.k8s.io/v1/ipaddresses/10.0.0.50", "", nil)
	require.Equal(t, 200, ipa.Code)
	rv := func(o map[string]any) int {
		n, err := strconv.Atoi(o["metadata"].(map[string]any)["resourceVersion"].(string))
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, rv(a.Object)-1, rv(ipa.Object), "the IPAddress is stored just before its Service")

	hand := do(t, c, "POST", "/apis/networking.k8s.io/v1/ipaddresses", "application/json",
		`{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"10.0.0.60"},"spec":{"parentRef":{"resource":"services","namespace":"svc","name":"nobody"}}}`)
	require.Equal(t, 201, hand.Code, hand.Object)
	taken := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"clusterIP":"10.0.0.60","ports":[{"port":80}]}}`)
	assert.Equal(t, 422, taken.Code)
	assert.Equal(t, `Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.60"]: failed to allocate IP 10.0.0.60: provided IP is already allocated`, taken.Object["message"])
	b := do(t, c, "POST", "/api/v1/namespaces/svc/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"clusterIP":"10.0.0.61","ports":[{"port":80}]}}`)
	require.Equal(t, 201, b.Code, b.Object)

	require.Equal(t, 200, do(t, c, "DELETE", "/api/v1/namespaces/svc/configmaps/owner", "", nil).Code)
	require.NoError(t, c.Settle(ctx))
	assert.Equal(t, 404, do(t, c, "GET", "/api/v1/namespaces/svc/services/a", "", nil).Code, "collected")
	assert.Equal(t, []string{"10.0.0.1 default/kubernetes", "10.0.0.60 svc/nobody", "10.0.0.61 svc/b"}, ipas())

	require.Equal(t, 200, do(t, c, "DELETE", "/api/v1/namespaces/svc", "", nil).Code)
	require.NoError(t, c.Settle(ctx))
	assert.Equal(t, []string{"10.0.0.1 default/kubernetes", "10.0.0.60 svc/nobody"}, ipas(), "a hand-made IPAddress stays (the repair loop removes only the allocator's)")
}
