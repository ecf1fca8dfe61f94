package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// FuzzRegistrySteps: the registry's metadata steps (namespace, uid
// precondition, resourceVersion, stored system fields, ObjectMeta validation)
// never panic, never modify the request's objects and answer the same twice,
// for namespaced, cluster-scoped and custom kinds.
func FuzzRegistrySteps(f *testing.F) {
	f.Add(`{"metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"3"}}`, `{"metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"3","uid":"u"}}`, "ns1", 0, true)
	f.Add(`{"metadata":{"name":"r","namespace":"x","uid":"v"}}`, `{"metadata":{"name":"r","uid":"u","resourceVersion":"abc"}}`, "", 1, true)
	f.Add(`{"metadata":{"name":"w","resourceVersion":"0","generation":-1,"deletionGracePeriodSeconds":3}}`, `{"metadata":null}`, "ns1", 2, true)
	f.Add(`{"metadata":{"generateName":"x-","labels":{"a":"b"},"ownerReferences":[{"controller":true}]}}`, `{}`, "ns1", 0, false)
	f.Add(`{"metadata":"x"}`, `{"metadata":{"resourceVersion":7}}`, "", 2, true)
	kinds := []struct {
		kind schema.GroupVersionKind
		res  schema.GroupVersionResource
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
			schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}},
	}
	f.Fuzz(func(t *testing.T, newJSON, oldJSON, ns string, kind int, update bool) {
		obj, err := codec.DecodeObject([]byte(newJSON))
		if err != nil {
			return
		}
		old, err := codec.DecodeObject([]byte(oldJSON))
		if err != nil {
			return
		}
		k := kinds[(kind%len(kinds)+len(kinds))%len(kinds)]
		req := admission.Request{Operation: admission.Create, Kind: k.kind, Resource: k.res, Namespace: ns, Name: "n", Object: obj}
		if update {
			req.Operation = admission.Update
			req.OldObject = old
		}
		objBefore, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		oldBefore, err := value.DeepCopyMap(old)
		require.NoError(t, err)
		steps := registrySteps()
		steps.GenerateName = func(base string) string { return registry.GenerateName(base, func(int) int { return 0 }) } // the same name twice
		chain, err := admission.New(admission.Config{Env: fixedEnv()})
		require.NoError(t, err)
		r1, err1 := registry.Admit(context.Background(), chain, req, steps)
		r2, err2 := registry.Admit(context.Background(), chain, req, steps)
		if err1 != nil {
			require.Error(t, err2)
			assert.Equal(t, err1.Error(), err2.Error())
		} else {
			require.NoError(t, err2)
			assert.Equal(t, r1.Object, r2.Object)
		}
		assert.Equal(t, objBefore, obj, "object unchanged")
		assert.Equal(t, oldBefore, old, "old object unchanged")
	})
}
