package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/registry"
)

// pluginWorld is a Static world over objs whose writes are applied as they are answered.
func pluginWorld(t *testing.T, objs ...map[string]any) func(method, path, ct, body string) registry.Response {
	t.Helper()
	w, err := registry.NewStatic(objs, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	return func(method, path, ct, body string) registry.Response {
		resp, writes, err := registry.Handle(context.Background(), w, registry.Request{Method: method, Path: path, ContentType: ct, Body: []byte(body)})
		require.NoError(t, err)
		require.NoError(t, w.Apply(writes))
		return resp
	}
}

func class(apiVersion, kind, name, created string, isDefault map[string]any, extra map[string]any) map[string]any {
	o := map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "uid": "u-" + name, "resourceVersion": "1", "creationTimestamp": created, "annotations": isDefault}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func specOf(r registry.Response) map[string]any {
	s, _ := r.Object["spec"].(map[string]any)
	return s
}

// TestDefaultStorageClass: DefaultStorageClass gives a claim naming no class the default
// StorageClass, the newest of several and then the first by name; "" and the beta annotation
// name a class (recorded: admission-plugins/ap-default-storage-class).
func TestDefaultStorageClass(t *testing.T) {
	def := map[string]any{"storageclass.kubernetes.io/is-default-class": "true"}
	beta := map[string]any{"storageclass.beta.kubernetes.io/is-default-class": "true"}
	sc := func(name, created string, ann map[string]any) map[string]any {
		return class("storage.k8s.io/v1", "StorageClass", name, created, ann, map[string]any{"provisioner": "example.com/x"})
	}
	claim := func(meta, spec string) string {
		return `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":` + meta + `,"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}` + spec + `}}`
	}
	const pvcs = "/api/v1/namespaces/demo/persistentvolumeclaims"
	for _, tc := range []struct {
		name    string
		classes []map[string]any
		meta    string
		spec    string
		want    any
	}{
		{name: "no default", classes: []map[string]any{sc("plain", "2026-01-01T00:00:00Z", nil)}, meta: `{"name":"c"}`, want: nil},
		{name: "newest default", classes: []map[string]any{sc("a", "2026-01-01T00:00:00Z", def), sc("z", "2026-01-02T00:00:00Z", beta)}, meta: `{"name":"c"}`, want: "z"},
		{name: "same time: first by name", classes: []map[string]any{sc("b", "2026-01-01T00:00:00Z", def), sc("a", "2026-01-01T00:00:00Z", def)}, meta: `{"name":"c"}`, want: "a"},
		{name: "not exactly true", classes: []map[string]any{sc("a", "2026-01-01T00:00:00Z", map[string]any{"storageclass.kubernetes.io/is-default-class": "True"})}, meta: `{"name":"c"}`, want: nil},
		{name: "empty class kept", classes: []map[string]any{sc("a", "2026-01-01T00:00:00Z", def)}, meta: `{"name":"c"}`, spec: `,"storageClassName":""`, want: ""},
		{name: "named class kept", classes: []map[string]any{sc("a", "2026-01-01T00:00:00Z", def)}, meta: `{"name":"c"}`, spec: `,"storageClassName":"other"`, want: "other"},
		{name: "beta annotation kept", classes: []map[string]any{sc("a", "2026-01-01T00:00:00Z", def)}, meta: `{"name":"c","annotations":{"volume.beta.kubernetes.io/storage-class":"x"}}`, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			do := pluginWorld(t, tc.classes...)
			r := do("POST", pvcs, "application/json", claim(tc.meta, tc.spec))
			require.Equal(t, 201, r.Code, r.Object)
			assert.Equal(t, tc.want, specOf(r)["storageClassName"], tc.name)
		})
	}
}

// TestClaimResize: PersistentVolumeClaimResize refuses growing a Bound claim whose StorageClass
// does not allow volume expansion, or is missing (recorded: admission-plugins/ap-claim-resize).
func TestClaimResize(t *testing.T) {
	do := pluginWorld(t,
		class("storage.k8s.io/v1", "StorageClass", "grow", "2026-01-01T00:00:00Z", nil, map[string]any{"provisioner": "example.com/x", "allowVolumeExpansion": true}),
		class("storage.k8s.io/v1", "StorageClass", "fixed", "2026-01-01T00:00:00Z", nil, map[string]any{"provisioner": "example.com/x"}))
	const pvcs = "/api/v1/namespaces/demo/persistentvolumeclaims"
	for _, name := range []string{"grow", "fixed", "none"} {
		r := do("POST", pvcs, "application/json", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"`+name+`"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"`+name+`","resources":{"requests":{"storage":"1Gi"}}}}`)
		require.Equal(t, 201, r.Code, r.Object)
		r = do("PATCH", pvcs+"/"+name+"/status", "application/merge-patch+json", `{"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}}`)
		require.Equal(t, 200, r.Code, r.Object)
	}
	grow := func(name, size string) registry.Response {
		return do("PATCH", pvcs+"/"+name, "application/merge-patch+json", `{"spec":{"resources":{"requests":{"storage":"`+size+`"}}}}`)
	}
	const refused = `persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
	r := grow("fixed", "2Gi")
	assert.Equal(t, 403, r.Code)
	assert.Equal(t, refused, r.Object["message"])
	r = grow("none", "2Gi")
	assert.Equal(t, 403, r.Code, "a missing class allows no expansion")
	r = grow("fixed", "1024Mi")
	assert.Equal(t, 200, r.Code, "the same size in other units does not grow: %v", r.Object)
	r = grow("grow", "2Gi")
	assert.Equal(t, 200, r.Code, r.Object)
}

// TestTaintNodesByCondition: a created Node gets the not-ready NoSchedule taint unless it has
// a taint of that key and effect; updates add nothing (recorded: admission-plugins/ap-node-taint).
func TestTaintNodesByCondition(t *testing.T) {
	do := pluginWorld(t)
	notReady := map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
	r := do("POST", "/api/v1/nodes", "application/json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"bare"}}`)
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, []any{notReady}, specOf(r)["taints"])
	r = do("POST", "/api/v1/nodes", "application/json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"has"},"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","value":"v","effect":"NoSchedule"}]}}`)
	require.Equal(t, 201, r.Code, r.Object)
	assert.Len(t, specOf(r)["taints"], 1, "a taint of that key and effect is enough")
	r = do("POST", "/api/v1/nodes", "application/json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"other"},"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}]}}`)
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, []any{map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}, notReady}, specOf(r)["taints"])
	r = do("PATCH", "/api/v1/nodes/bare", "application/merge-patch+json", `{"spec":{"taints":null}}`)
	require.Equal(t, 200, r.Code, r.Object)
	assert.Nil(t, specOf(r)["taints"], "an update is not tainted")
}

// TestDefaultIngressClass: an Ingress naming no class, by field or annotation, gets the
// default IngressClass (recorded: admission-plugins/ap-default-ingress-class).
func TestDefaultIngressClass(t *testing.T) {
	def := map[string]any{"ingressclass.kubernetes.io/is-default-class": "true"}
	ic := func(name, created string) map[string]any {
		return class("networking.k8s.io/v1", "IngressClass", name, created, def, map[string]any{"spec": map[string]any{"controller": "example.com/x"}})
	}
	do := pluginWorld(t, ic("old", "2026-01-01T00:00:00Z"), ic("new", "2026-01-02T00:00:00Z"))
	ing := func(meta, spec string) string {
		return `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":` + meta + `,"spec":{"defaultBackend":{"service":{"name":"web","port":{"number":80}}}` + spec + `}}`
	}
	const ings = "/apis/networking.k8s.io/v1/namespaces/demo/ingresses"
	r := do("POST", ings, "application/json", ing(`{"name":"a"}`, ""))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, "new", specOf(r)["ingressClassName"])
	r = do("POST", ings, "application/json", ing(`{"name":"b"}`, `,"ingressClassName":"old"`))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Equal(t, "old", specOf(r)["ingressClassName"])
	r = do("POST", ings, "application/json", ing(`{"name":"c","annotations":{"kubernetes.io/ingress.class":"nginx"}}`, ""))
	require.Equal(t, 201, r.Code, r.Object)
	assert.Nil(t, specOf(r)["ingressClassName"])
	r = do("PATCH", ings+"/c", "application/merge-patch+json", `{"metadata":{"annotations":null}}`)
	require.Equal(t, 200, r.Code, r.Object)
	assert.Nil(t, specOf(r)["ingressClassName"], "an update is not defaulted")
}
