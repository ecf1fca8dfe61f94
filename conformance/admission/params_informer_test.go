package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
)

// TestParamInformerKinds checks which params writepath reads as a typed
// informer holds them (managedFields dropped) against client-go's shared
// informer factory, which the policy source asks first
// (ensureParamsForPolicyLocked: ForResource, else a dynamic informer that
// keeps the object as served): for every resource a default 1.37 apiserver
// serves.
func TestParamInformerKinds(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0)
	kinds, err := wschema.BuiltinKinds()
	require.NoError(t, err)
	typed, dynamic := 0, 0
	for _, k := range kinds {
		if !k.ServedByDefault || k.Resource == "" || !contains(k.Verbs, "list") || !contains(k.Verbs, "watch") {
			continue
		}
		_, ferr := factory.ForResource(schema.GroupVersionResource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: k.Resource})
		md := map[string]any{"name": "p", "managedFields": []any{map[string]any{"manager": "m", "operation": "Update"}}}
		if k.Namespaced {
			md["namespace"] = "ns-a"
		}
		param := map[string]any{"apiVersion": k.GVK.GroupVersion().String(), "kind": k.GVK.Kind, "metadata": md}
		ref := map[string]any{"name": "p", "parameterNotFoundAction": "Deny"}
		if k.Namespaced {
			ref["namespace"] = "ns-a"
		}
		objs := []map[string]any{
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "p"},
				"spec": map[string]any{"paramKind": map[string]any{"apiVersion": param["apiVersion"], "kind": k.GVK.Kind},
					"matchConstraints": paramConstraints, "validations": []any{map[string]any{"expression": "!has(params.metadata.managedFields)"}}}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "b"},
				"spec": map[string]any{"policyName": "p", "validationActions": []any{"Deny"}, "paramRef": ref}},
		}
		chain, err := wadmission.New(wadmission.Config{Objects: objs, Params: []map[string]any{param}, Namespaces: newWorld(t).namespaces})
		require.NoError(t, err)
		_, err = chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
			Kind:     wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "cm1", Namespace: "ns-a",
			Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm1", "namespace": "ns-a"}}})
		if ferr == nil {
			typed++
			assert.NoError(t, err, "%s: a typed informer's param has no managedFields", k.GVK)
		} else {
			dynamic++
			assert.Error(t, err, "%s: a dynamic informer's param keeps managedFields", k.GVK)
		}
	}
	t.Logf("%d kinds behind typed informers, %d behind dynamic ones", typed, dynamic)
	assert.Greater(t, typed, 40)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
