package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminAccessNamespace: a ResourceClaim or ResourceClaimTemplate whose request asks for admin
// access is created only in a namespace labelled resource.kubernetes.io/admin-access=true
// (pkg/registry/resource AuthorizedForAdmin reads the namespace); elsewhere it is a 422 with a
// Forbidden cause at the first such request. A request without admin access needs no label.
func TestAdminAccessNamespace(t *testing.T) {
	ns := func(name string, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "uid": "u-" + name,
			"resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z", "labels": labels}, "status": map[string]any{"phase": "Active"}}
	}
	do := pluginWorld(t, ns("admins", map[string]any{"resource.kubernetes.io/admin-access": "true"}),
		ns("plain", map[string]any{"resource.kubernetes.io/admin-access": "yes"}))
	devices := func(admin bool) string {
		a := ""
		if admin {
			a = `,"adminAccess":true`
		}
		return `{"requests":[{"name":"a","exactly":{"deviceClassName":"c"}},{"name":"b","exactly":{"deviceClassName":"c"` + a + `}}]}`
	}
	claim := func(name string, admin bool) string {
		return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"` + name + `"},"spec":{"devices":` + devices(admin) + `}}`
	}
	tmpl := func(name string, admin bool) string {
		return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"` + name + `"},"spec":{"spec":{"devices":` + devices(admin) + `}}}`
	}
	const forbidden = "spec.devices.requests[1].adminAccess: Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace"
	for _, tc := range []struct {
		ns, resource, body string
		code               int
		message            string
	}{
		{"admins", "resourceclaims", claim("c1", true), 201, ""},
		{"plain", "resourceclaims", claim("c2", false), 201, ""},
		{"plain", "resourceclaims", claim("c3", true), 422, `ResourceClaim.resource.k8s.io "c3" is invalid: ` + forbidden},
		{"admins", "resourceclaimtemplates", tmpl("t1", true), 201, ""},
		{"plain", "resourceclaimtemplates", tmpl("t2", true), 422, `ResourceClaimTemplate.resource.k8s.io "t2" is invalid: ` + forbidden},
	} {
		r := do("POST", "/apis/resource.k8s.io/v1/namespaces/"+tc.ns+"/"+tc.resource, "application/json", tc.body)
		require.Equal(t, tc.code, r.Code, "%s %s: %v", tc.ns, tc.body, r.Object)
		if tc.message != "" {
			assert.Equal(t, tc.message, r.Object["message"], tc.body)
		}
	}

	// A /status write granting admin access (AuthorizedForAdminStatus) reads the namespace too.
	for _, tc := range []struct {
		ns, name string
		code     int
	}{{"plain", "c2", 422}, {"admins", "c1", 200}} {
		path := "/apis/resource.k8s.io/v1/namespaces/" + tc.ns + "/resourceclaims/" + tc.name
		var claim map[string]any
		require.NoError(t, json.Unmarshal(do("GET", path, "", "").Body, &claim))
		claim["status"] = map[string]any{"allocation": map[string]any{"devices": map[string]any{"results": []any{
			map[string]any{"request": "b", "driver": "d.example.com", "pool": "p", "device": "x", "adminAccess": true}}}}}
		body, err := json.Marshal(claim)
		require.NoError(t, err)
		r := do("PUT", path+"/status", "application/json", string(body))
		require.Equal(t, tc.code, r.Code, "%s: %v", tc.ns, r.Object)
		if tc.code == 422 {
			assert.Equal(t, `ResourceClaim.resource.k8s.io "c2" is invalid: status.allocation.devices.results[0].adminAccess: Forbidden: admin access to devices requires the `+
				"`resource.kubernetes.io/admin-access: true` label on the containing namespace", r.Object["message"])
		}
	}
}
