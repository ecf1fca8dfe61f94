package admission

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// mapLookup is a caller's store: namespaces it writes between requests.
type mapLookup struct {
	mu         sync.Mutex
	namespaces map[string]map[string]any
}

func (l *mapLookup) Namespace(name string) (map[string]any, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ns, ok := l.namespaces[name]
	return ns, ok
}

func (l *mapLookup) Params(apiVersion, kind string) []map[string]any { return nil }

func (l *mapLookup) put(ns map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.namespaces[getString(ns, "metadata", "name")] = ns
}

func namespaceWithEnv(name, env string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"env": env}}}
}

// TestNamespaceWriteCompilesNothing: the chain reads namespaces through the
// caller's Lookup, so a namespace written between two requests is seen by
// the second (its labels by a namespaceSelector, the object by
// namespaceObject) while no CEL program is compiled after New.
func TestNamespaceWriteCompilesNothing(t *testing.T) {
	policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""},
				"apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
				"namespaceSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "env", "operator": "Exists"}}}},
			"validations": []any{map[string]any{"expression": "namespaceObject.metadata.labels['env'] == 'prod'",
				"messageExpression": "'env is ' + namespaceObject.metadata.labels['env']"}}}}
	binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p", "validationActions": []any{"Deny"}}}
	lk := &mapLookup{namespaces: map[string]map[string]any{}}
	lk.put(namespaceWithEnv("ns1", "prod"))
	before := compilations.Load()
	chain, err := New(Config{Objects: []map[string]any{policy, binding}, Lookup: lk,
		Builtins: Builtins{NamespaceLifecycle: true}})
	require.NoError(t, err)
	compiled := compilations.Load()
	require.Equal(t, int64(2), compiled-before, "New compiles the expression and the messageExpression")

	req := Request{Operation: Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "cm", Namespace: "ns1",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "ns1"}}}
	ctx := context.Background()
	_, err = chain.Admit(ctx, req)
	require.NoError(t, err, "env=prod is allowed")

	lk.put(namespaceWithEnv("ns1", "dev"))
	_, err = chain.Admit(ctx, req)
	var st *status.Error
	require.ErrorAs(t, err, &st, "env=dev is denied once the namespace is written")
	assert.Contains(t, st.Message, "env is dev")
	_, err = chain.Validate(ctx, req, nil)
	require.ErrorAs(t, err, &st, "the validating phase alone")

	// Another lookup per call: the namespace without the label is not
	// selected; a missing one is NamespaceLifecycle's 404.
	other := &mapLookup{namespaces: map[string]map[string]any{"ns1": {"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "ns1"}}}}
	_, err = chain.Validate(ctx, req, other)
	require.NoError(t, err)
	_, err = chain.Mutate(ctx, req, &mapLookup{namespaces: map[string]map[string]any{}})
	require.ErrorAs(t, err, &st)
	assert.Equal(t, int32(404), st.Code)

	assert.Equal(t, compiled, compilations.Load(), "no program compiled by requests or namespace writes")
}

// TestMutateThenValidate: the two phases called one after the other, with the
// caller's step between them, give what Admit gives.
func TestMutateThenValidate(t *testing.T) {
	add := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
		"metadata": map[string]any{"name": "m"}, "spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""},
				"apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
			"reinvocationPolicy": "Never",
			"mutations": []any{map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{
				"expression": "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}"}}}}}
	addBinding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "mb"}, "spec": map[string]any{"policyName": "m"}}
	check := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "v"}, "spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""},
				"apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
			"validations": []any{map[string]any{"expression": "object.metadata.labels['seen'] == 'yes'"}}}}
	checkBinding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "vb"}, "spec": map[string]any{"policyName": "v", "validationActions": []any{"Deny"}}}
	chain, err := New(Config{Objects: []map[string]any{add, addBinding, check, checkBinding}})
	require.NoError(t, err)
	req := Request{Operation: Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "cm", Namespace: "ns1",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "ns1"}}}
	ctx := context.Background()
	whole, err := chain.Admit(ctx, req)
	require.NoError(t, err)

	mutated, err := chain.Mutate(ctx, req, nil)
	require.NoError(t, err)
	assert.Equal(t, whole.Object, mutated.Object)
	assert.Equal(t, whole.Patches, mutated.Patches)
	_, err = chain.Validate(ctx, req, nil)
	require.Error(t, err, "the request's own object has no label")
	validated := req
	validated.Object = mutated.Object
	_, err = chain.Validate(ctx, validated, nil)
	require.NoError(t, err)
	assert.Nil(t, req.Object["metadata"].(map[string]any)["labels"], "req not modified")
}
