package cluster_test

import (
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
