package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// FuzzWebhookPatchDefaulting: a webhook answering with an arbitrary JSON
// Patch over an arbitrary object of a built-in kind: no panic, the request's
// object unchanged, and an admitted object is one defaulting leaves as it is
// (the dispatcher defaulted it after the patch), the one the next webhook was
// sent.
func FuzzWebhookPatchDefaulting(f *testing.F) {
	f.Add(uint8(0), dfltDeployment, `[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"s","image":"busybox"}}]`)
	f.Add(uint8(0), dfltDeployment, `[{"op":"remove","path":"/spec/strategy"}]`)
	f.Add(uint8(0), dfltDeployment, `[{"op":"replace","path":"/spec/replicas","value":"3"}]`)
	f.Add(uint8(1), dfltPod, `[{"op":"add","path":"/spec/bogus","value":{"a":1}}]`)
	f.Add(uint8(1), dfltPod, `[{"op":"add","path":"/spec/containers/0/resources","value":{"limits":{"cpu":"lots"}}}]`)
	f.Add(uint8(1), dfltPod, `[{"op":"remove","path":"/kind"}]`)
	f.Add(uint8(1), dfltPod, `[{"op":"replace","path":"","value":[]}]`)
	f.Add(uint8(2), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: ns1}\ndata: {a: b}\n", `[{"op":"add","path":"/binaryData","value":{"x":"%%%"}}]`)
	reqs := []func(map[string]any) admission.Request{deploymentRequest, podRequest, func(o map[string]any) admission.Request {
		return admission.Request{Operation: admission.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "p", Namespace: "ns1", Object: o}
	}}
	f.Fuzz(func(t *testing.T, which uint8, object, patch string) {
		obj, err := codec.DecodeObject([]byte(object))
		if err != nil {
			return
		}
		req := reqs[int(which)%len(reqs)](obj)
		cl := &patchClient{patches: map[string]string{"first": patch}}
		chain, err := admission.New(admission.Config{Namespaces: nsList(), Client: cl, Objects: []map[string]any{
			mutatingHook("first", "a", req.Resource.Resource, req.Resource.Group, "v1"),
			mutatingHook("second", "b", req.Resource.Resource, req.Resource.Group, "v1")}})
		require.NoError(t, err)
		keep, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), req)
		assert.True(t, value.Equal(keep, obj), "request object modified")
		if err != nil || len(res.Patches) == 0 {
			return
		}
		k := req.Kind
		again, derr := defaults.Builtin(schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}, res.Object, defaults.Options{})
		require.NoError(t, derr, "an admitted object decodes")
		assert.True(t, value.Equal(again, res.Object), "an admitted object is defaulted")
		require.Len(t, cl.received, 2)
		assert.True(t, value.Equal(res.Object, cl.received[1]["object"].(map[string]any)), "the next webhook is sent the defaulted object")
	})
}
