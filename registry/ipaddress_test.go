package registry_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// svcWorld is a Static world with namespace demo and, when cidrs are given, the "kubernetes"
// ServiceCIDR holding them (Ready, as the apiserver's default ServiceCIDR controller leaves it).
func svcWorld(t *testing.T, objs ...string) *registry.Static {
	t.Helper()
	var in []map[string]any
	for _, o := range objs {
		in = append(in, decode(t, o))
	}
	w, err := registry.NewStatic(in, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	return w
}

const defaultCIDR = `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"kubernetes","resourceVersion":"1"},
 "spec":{"cidrs":["10.0.0.0/24"]},"status":{"conditions":[{"type":"Ready","status":"True","reason":"","message":"Kubernetes default Service CIDR is ready","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`

// send answers one request over w and applies its writes.
func send(t *testing.T, w *registry.Static, method, path, body string) (registry.Response, []registry.Write) {
	t.Helper()
	resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, Body: []byte(body),
		ContentType: contentTypeOf(method), UserAgent: "kubectl/v1.37.2", Now: now})
	require.NoError(t, err)
	require.NoError(t, w.Apply(writes))
	return resp, writes
}

func contentTypeOf(method string) string {
	if method == "PATCH" {
		return "application/merge-patch+json"
	}
	return ""
}

// summary is each write as "VERB resource/name@rv".
func summary(writes []registry.Write) []string {
	var out []string
	for _, w := range writes {
		verb := "PUT"
		if w.Delete {
			verb = "DELETE"
		}
		md, _ := w.Object["metadata"].(map[string]any)
		out = append(out, fmt.Sprintf("%s %s/%s@%v", verb, w.Resource.Resource, w.Name, md["resourceVersion"]))
	}
	return out
}

func svc(name, spec string) string {
	return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

const services = "/api/v1/namespaces/demo/services"

// TestServiceIPAddresses: a Service's cluster IP is an IPAddress created through the API as the
// apiserver's loopback client before the Service is stored (its resourceVersion first), with the
// allocator's labels, the Service as parentRef and managedFields of kube-apiserver's Update, as
// the real server's bootstrap record (cluster/data/bootstrap.json.gz) has them; the Service's
// deletion deletes it after the Service.
func TestServiceIPAddresses(t *testing.T) {
	// Without a ServiceCIDR the world's ServiceNetwork stands for the default one.
	for _, objs := range [][]string{nil, {defaultCIDR}} {
		w := svcWorld(t, objs...)
		resp, writes := send(t, w, "POST", services, svc("web", `{"ports":[{"port":80}]}`))
		require.Equal(t, 201, resp.Code, string(resp.Body))
		ip := get(t, resp.Object, "spec", "clusterIP").(string)
		base := len(objs) // the ServiceCIDR's resourceVersion is 1
		assert.Equal(t, []string{fmt.Sprintf("PUT ipaddresses/%s@%d", ip, base+1), fmt.Sprintf("PUT services/web@%d", base+2)}, summary(writes))
		ipa := writes[0].Object
		assert.Equal(t, map[string]any{"resource": "services", "namespace": "demo", "name": "web"}, get(t, ipa, "spec", "parentRef"))
		assert.Equal(t, map[string]any{"ipaddress.kubernetes.io/ip-family": "IPv4", "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"},
			get(t, ipa, "metadata", "labels"))
		mf := get(t, ipa, "metadata", "managedFields").([]any)
		require.Len(t, mf, 1)
		assert.Equal(t, map[string]any{"apiVersion": "networking.k8s.io/v1", "fieldsType": "FieldsV1", "manager": "kube-apiserver", "operation": "Update",
			"time": "2026-01-02T03:04:05Z", "fieldsV1": map[string]any{
				"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}, "f:ipaddress.kubernetes.io/ip-family": map[string]any{}, "f:ipaddress.kubernetes.io/managed-by": map[string]any{}}},
				"f:spec":     map[string]any{"f:parentRef": map[string]any{".": map[string]any{}, "f:name": map[string]any{}, "f:namespace": map[string]any{}, "f:resource": map[string]any{}}}}},
			mf[0])
		assert.Equal(t, "2026-01-02T03:04:05Z", get(t, ipa, "metadata", "creationTimestamp"))
		assert.NotEqual(t, get(t, ipa, "metadata", "uid"), get(t, resp.Object, "metadata", "uid"))

		// A second Service gets another address.
		resp, writes = send(t, w, "POST", services, svc("api", `{"ports":[{"port":80}]}`))
		require.Equal(t, 201, resp.Code)
		apiIP := get(t, resp.Object, "spec", "clusterIP")
		assert.NotEqual(t, ip, apiIP)
		require.Len(t, writes, 2)

		resp, writes = send(t, w, "DELETE", services+"/web", "")
		require.Equal(t, 200, resp.Code, string(resp.Body))
		assert.Equal(t, []string{fmt.Sprintf("DELETE services/web@%d", base+5), fmt.Sprintf("DELETE ipaddresses/%s@%d", ip, base+6)}, summary(writes))

		// A collection's deletion releases each Service's address after it.
		resp, writes = send(t, w, "DELETE", services, "")
		require.Equal(t, 200, resp.Code, string(resp.Body))
		assert.Equal(t, []string{fmt.Sprintf("DELETE services/api@%d", base+7), fmt.Sprintf("DELETE ipaddresses/%s@%d", apiIP, base+8)}, summary(writes))
	}
}

// TestServiceIPAddressTaken: an IPAddress made by hand (any labels, any parent) takes its
// address: a Service asking for it is the allocator's 422, a Service asking for none gets
// another; a dry run checks the range only and writes nothing.
func TestServiceIPAddressTaken(t *testing.T) {
	w := svcWorld(t, defaultCIDR)
	resp, writes := send(t, w, "POST", "/apis/networking.k8s.io/v1/ipaddresses",
		`{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"10.0.0.100"},"spec":{"parentRef":{"resource":"services","namespace":"demo","name":"other"}}}`)
	require.Equal(t, 201, resp.Code, string(resp.Body))
	require.Len(t, writes, 1)

	resp, writes = send(t, w, "POST", services, svc("web", `{"clusterIP":"10.0.0.100","ports":[{"port":80}]}`))
	assert.Equal(t, 422, resp.Code)
	assert.Equal(t, `Service "web" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.100"]: failed to allocate IP 10.0.0.100: provided IP is already allocated`,
		resp.Object["message"])
	assert.Empty(t, writes)

	resp, writes = send(t, w, "POST", services+"?dryRun=All", svc("web", `{"clusterIP":"10.0.0.100","ports":[{"port":80}]}`))
	assert.Equal(t, 201, resp.Code, "the dry-run allocator checks the range only: %s", resp.Body)
	assert.Empty(t, writes)
	resp, _ = send(t, w, "POST", services+"?dryRun=All", svc("web", `{"ports":[{"port":80}]}`))
	assert.Equal(t, "10.0.0.0", get(t, resp.Object, "spec", "clusterIP"), "a dry run draws the range's network address")
	resp, _ = send(t, w, "POST", services+"?dryRun=All", svc("web", `{"clusterIP":"10.0.1.1","ports":[{"port":80}]}`))
	assert.Equal(t, `Service "web" is invalid: spec.clusterIPs: Invalid value: ["10.0.1.1"]: failed to allocate IP 10.0.1.1: the provided IP (10.0.1.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24`,
		resp.Object["message"])
	resp, _ = send(t, w, "POST", services, svc("web", `{"clusterIP":"10.0.1.1","ports":[{"port":80}]}`))
	assert.Equal(t, `Service "web" is invalid: spec.clusterIPs: Invalid value: ["10.0.1.1"]: failed to allocate IP 10.0.1.1: the provided network does not match the current range`,
		resp.Object["message"])

	resp, writes = send(t, w, "POST", services, svc("web", `{"clusterIP":"10.0.0.101","ports":[{"port":80}]}`))
	require.Equal(t, 201, resp.Code, string(resp.Body))
	assert.Equal(t, []string{"PUT ipaddresses/10.0.0.101@3", "PUT services/web@4"}, summary(writes))
}

// TestServiceIPAddressReverted: a Service create that fails after its allocation (the name is
// taken; validation) has created its IPAddress and deletes it again, each at a revision of its
// own, as the Service REST's transaction reverts; the client gets the Service's error.
func TestServiceIPAddressReverted(t *testing.T) {
	w := svcWorld(t, defaultCIDR)
	resp, _ := send(t, w, "POST", services, svc("web", `{"ports":[{"port":80}]}`))
	require.Equal(t, 201, resp.Code)
	resp, writes := send(t, w, "POST", services, svc("web", `{"clusterIP":"10.0.0.7","ports":[{"port":80}]}`))
	assert.Equal(t, 409, resp.Code)
	assert.Equal(t, []string{"PUT ipaddresses/10.0.0.7@4", "DELETE ipaddresses/10.0.0.7@5"}, summary(writes))
	resp, writes = send(t, w, "POST", services, svc("bad", `{"clusterIP":"10.0.0.8","ports":[{"port":80,"protocol":"SCTP","name":"x"},{"port":80,"protocol":"SCTP","name":"y"}]}`))
	assert.Equal(t, 422, resp.Code, string(resp.Body))
	assert.Equal(t, []string{"PUT ipaddresses/10.0.0.8@6", "DELETE ipaddresses/10.0.0.8@7"}, summary(writes))
	list, _ := send(t, w, "GET", "/apis/networking.k8s.io/v1/ipaddresses", "")
	assert.Len(t, list.Object["items"], 1)
}

// TestServiceIPAddressTypeChange: a Service that becomes ExternalName releases its address (the
// IPAddress is deleted before the Service is updated); one that stops being ExternalName gets
// one (created before). A headless Service has none.
func TestServiceIPAddressTypeChange(t *testing.T) {
	w := svcWorld(t, defaultCIDR)
	resp, _ := send(t, w, "POST", services, svc("web", `{"clusterIP":"10.0.0.9","ports":[{"port":80}]}`))
	require.Equal(t, 201, resp.Code)
	resp, writes := send(t, w, "PATCH", services+"/web", `{"spec":{"type":"ExternalName","externalName":"example.com","clusterIP":"","clusterIPs":null}}`)
	require.Equal(t, 200, resp.Code, string(resp.Body))
	assert.Equal(t, []string{"DELETE ipaddresses/10.0.0.9@4", "PUT services/web@5"}, summary(writes))
	resp, writes = send(t, w, "PATCH", services+"/web", `{"spec":{"type":"ClusterIP","externalName":null,"clusterIP":"10.0.0.10"}}`)
	require.Equal(t, 200, resp.Code, string(resp.Body))
	assert.Equal(t, []string{"PUT ipaddresses/10.0.0.10@6", "PUT services/web@7"}, summary(writes))

	resp, writes = send(t, w, "POST", services, svc("headless", `{"clusterIP":"None","ports":[{"port":80}]}`))
	require.Equal(t, 201, resp.Code)
	assert.Equal(t, []string{"PUT services/headless@8"}, summary(writes))
	resp, writes = send(t, w, "DELETE", services+"/headless", "")
	require.Equal(t, 200, resp.Code)
	assert.Equal(t, []string{"DELETE services/headless@9"}, summary(writes))
}

// TestServiceIPAddressFinalizer: a Service with a finalizer keeps its address while it is being
// deleted; the update that removes the last finalizer deletes it, then its IPAddress.
func TestServiceIPAddressFinalizer(t *testing.T) {
	w := svcWorld(t, defaultCIDR)
	resp, _ := send(t, w, "POST", services, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"lb","finalizers":["example.com/x"]},"spec":{"clusterIP":"10.0.0.11","ports":[{"port":80}]}}`)
	require.Equal(t, 201, resp.Code)
	resp, writes := send(t, w, "DELETE", services+"/lb", "")
	require.Equal(t, 200, resp.Code)
	assert.Equal(t, []string{"PUT services/lb@4"}, summary(writes))
	resp, writes = send(t, w, "PATCH", services+"/lb", `{"metadata":{"finalizers":null}}`)
	require.Equal(t, 200, resp.Code, string(resp.Body))
	assert.Equal(t, []string{"DELETE services/lb@4", "DELETE ipaddresses/10.0.0.11@5"}, summary(writes))
}

// TestServiceCIDRs: the ranges are the ServiceCIDRs': an address of a second ServiceCIDR is
// allocated, one of a ServiceCIDR that is not Ready is not; a full range is the 500 of
// AllocateNext.
func TestServiceCIDRs(t *testing.T) {
	w := svcWorld(t, `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"kubernetes"},"spec":{"cidrs":["10.0.0.0/30"]}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"extra"},"spec":{"cidrs":["10.1.0.0/24"]}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"notready"},"spec":{"cidrs":["10.2.0.0/24"]},"status":{"conditions":[{"type":"Ready","status":"False","reason":"Terminating","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	resp, writes := send(t, w, "POST", services, svc("a", `{"clusterIP":"10.1.0.5","ports":[{"port":80}]}`))
	require.Equal(t, 201, resp.Code, string(resp.Body))
	assert.Equal(t, "PUT ipaddresses/10.1.0.5@1", summary(writes)[0])
	resp, _ = send(t, w, "POST", services, svc("b", `{"clusterIP":"10.2.0.5","ports":[{"port":80}]}`))
	assert.Equal(t, `Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.2.0.5"]: failed to allocate IP 10.2.0.5: the provided network does not match the current range`, resp.Object["message"])

	// The default ServiceCIDR's two addresses first, then the other's.
	var got []any
	for _, n := range []string{"c", "d", "e"} {
		resp, _ = send(t, w, "POST", services, svc(n, `{"ports":[{"port":80}]}`))
		require.Equal(t, 201, resp.Code, string(resp.Body))
		got = append(got, get(t, resp.Object, "spec", "clusterIP"))
	}
	assert.Equal(t, []any{"10.0.0.1", "10.0.0.2", "10.1.0.17"}, got)

	full := svcWorld(t, `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"kubernetes"},"spec":{"cidrs":["10.0.0.0/30"]}}`)
	for _, n := range []string{"c", "d"} {
		resp, _ = send(t, full, "POST", services, svc(n, `{"ports":[{"port":80}]}`))
		require.Equal(t, 201, resp.Code)
	}
	resp, writes = send(t, full, "POST", services, svc("e", `{"ports":[{"port":80}]}`))
	assert.Equal(t, 500, resp.Code)
	assert.Equal(t, `Internal error occurred: failed to allocate a serviceIP for Service "e": range is full`, resp.Object["message"])
	assert.Empty(t, writes)
}
