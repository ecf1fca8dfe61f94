package admission_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
)

var paramsNamespace = map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns"}}

// paramManifests are params as a client would write them: the chain reads
// built-in ones in their stored form (defaults, canonical quantities).
var paramManifests = []map[string]any{
	{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "namespace": "ns",
		"labels": map[string]any{"app": "x"}, "managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}}, "spec": map[string]any{
				"containers": []any{map[string]any{"name": "c", "image": "nginx", "resources": map[string]any{"limits": map[string]any{"cpu": "0.5"}},
					"env": []any{map[string]any{"name": "A", "value": ""}}, "bogus": 1}}}}}},
	{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "r"}, "rules": []any{}},
	{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns",
		"managedFields": []any{map[string]any{"manager": "kubectl"}}}, "spec": map[string]any{"size": 3, "tags": []any{}}},
	{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "bad", "namespace": "ns"},
		"spec": map[string]any{"ports": []any{map[string]any{"port": "eighty"}}}},
}

func paramPolicyObjects(mutating bool, apiVersion, kind, name string, probes []string) []map[string]any {
	ref := map[string]any{"name": name, "parameterNotFoundAction": "Deny"}
	if kind != "ClusterRole" {
		ref["namespace"] = "ns"
	}
	mc := map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
		"operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}}
	pk := map[string]any{"apiVersion": apiVersion, "kind": kind}
	if !mutating {
		var vals []any
		for _, p := range probes {
			vals = append(vals, map[string]any{"expression": "!(" + p + ")", "message": p})
		}
		return []map[string]any{
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "p"},
				"spec": map[string]any{"paramKind": pk, "matchConstraints": mc, "validations": vals}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "b"},
				"spec": map[string]any{"policyName": "p", "validationActions": []any{"Warn"}, "paramRef": ref}}}
	}
	var kv []string
	for i, p := range probes {
		kv = append(kv, fmt.Sprintf(`"k%d": string(%s)`, i, p))
	}
	return []map[string]any{
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": "p"},
			"spec": map[string]any{"paramKind": pk, "matchConstraints": mc, "reinvocationPolicy": "Never", "mutations": []any{map[string]any{
				"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/metadata/annotations", value: {` + strings.Join(kv, ", ") + `}}]`}}}}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "b"},
			"spec": map[string]any{"policyName": "p", "paramRef": ref}}}
}

// probeParam evaluates one boolean expression over a param: "true",
// "false" or the evaluation error.
func probeParam(t *testing.T, mutating bool, apiVersion, kind, name, expr string) string {
	chain, err := admission.New(admission.Config{Objects: paramPolicyObjects(mutating, apiVersion, kind, name, []string{expr}),
		Params: paramManifests, Namespaces: []map[string]any{paramsNamespace}})
	require.NoError(t, err)
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "ns"}}
	res, err := chain.Admit(context.Background(), configMapCreate(obj))
	if mutating {
		if err != nil {
			msg := err.Error()
			return msg[strings.LastIndex(msg, "resulted in error: ")+len("resulted in error: "):]
		}
		return res.Object["metadata"].(map[string]any)["annotations"].(map[string]any)["k0"].(string)
	}
	require.NoError(t, err)
	if len(res.Warnings) == 0 {
		return "false"
	}
	w := res.Warnings[0]
	if i := strings.Index(w, "resulted in error: "); i >= 0 {
		return w[i+len("resulted in error: "):]
	}
	return "true"
}

// TestParamPresentation shows how a param reads in a validating policy (the
// unstructured object with paramKind's apiVersion and kind) and in a
// mutating one (the typed Go value): has() on omitempty fields, comparisons
// with another type, fields the Go type does not have, defaults, quantities.
func TestParamPresentation(t *testing.T) {
	tests := []struct {
		apiVersion, kind, name, expr string
		vap, mapv                    string
	}{
		{"apps/v1", "Deployment", "d", "has(params.kind)", "true", "false"},
		{"apps/v1", "Deployment", "d", "has(params.apiVersion)", "true", "false"},
		{"apps/v1", "Deployment", "d", "has(params.metadata.managedFields)", "false", "false"},
		{"apps/v1", "Deployment", "d", "params.spec.replicas == 1", "true", "true"},
		{"apps/v1", "Deployment", "d", "has(params.spec.paused)", "false", "false"},
		{"apps/v1", "Deployment", "d", "has(params.status)", "true", "true"},
		{"apps/v1", "Deployment", "d", "params.spec == 'a'", "false", "no such overload"},
		{"apps/v1", "Deployment", "d", "'a' == params.spec", "false", "false"},
		{"apps/v1", "Deployment", "d", "params.metadata.labels == 1", "false", "no such overload"},
		{"apps/v1", "Deployment", "d", "params.spec.template.spec.containers == 1", "false", "no such overload"},
		{"apps/v1", "Deployment", "d", "params.metadata.labels == {'app': 'x'}", "true", "true"},
		{"apps/v1", "Deployment", "d", "params.spec.template.spec.containers[0].resources.limits.cpu == '500m'", "true", "true"},
		{"apps/v1", "Deployment", "d", "has(params.spec.template.spec.containers[0].bogus)", "false", "false"},
		{"apps/v1", "Deployment", "d", "has(params.spec.template.spec.containers[0].env[0].value)", "false", "false"},
		{"apps/v1", "Deployment", "d", "params.spec.template.spec.containers[3].name == 'c'", "index out of bounds: 3", "index out of bounds: 3"},
		{"apps/v1", "Deployment", "d", "size(params.spec) == 6", "true", "true"},
		{"apps/v1", "Deployment", "d", "params.spec.strategy.rollingUpdate.maxSurge == '25%'", "true", "true"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "r", "params.rules == null", "true", "true"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "r", "params.kind == 'ClusterRole'", "true", "no such key: kind"},
		{"example.com/v1", "Widget", "w", "has(params.metadata.managedFields)", "true", "true"},
		{"example.com/v1", "Widget", "w", "params.spec == 'a'", "false", "false"},
		{"example.com/v1", "Widget", "w", "params.spec.tags == []", "true", "true"},
		{"v1", "Service", "bad", "params.metadata.name == 'bad'",
			"param Service ns/bad: spec.ports[0].port: Invalid value: \"eighty\": expected an integer",
			"param Service ns/bad: spec.ports[0].port: Invalid value: \"eighty\": expected an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.kind+"/"+tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.vap, probeParam(t, false, tc.apiVersion, tc.kind, tc.name, tc.expr), "validating")
			assert.Equal(t, tc.mapv, probeParam(t, true, tc.apiVersion, tc.kind, tc.name, tc.expr), "mutating")
		})
	}
}

// TestParamScopeFromCatalogue: a cluster-scoped built-in paramKind is known
// as such without any param supplied (the RESTMapper's scope), so a
// binding's paramRef.namespace is refused as the apiserver refuses it.
func TestParamScopeFromCatalogue(t *testing.T) {
	objs := paramPolicyObjects(false, "networking.k8s.io/v1", "IngressClass", "ic", []string{"true"})
	objs[1]["spec"].(map[string]any)["paramRef"].(map[string]any)["namespace"] = "ns"
	chain, err := admission.New(admission.Config{Objects: objs, Namespaces: []map[string]any{paramsNamespace}})
	require.NoError(t, err)
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "ns"}}
	_, err = chain.Admit(context.Background(), configMapCreate(obj))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
}
