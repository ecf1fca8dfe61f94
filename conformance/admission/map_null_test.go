package admission

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/authentication/user"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	wschema "github.com/writepath/writepath/schema"
)

// nullApplies are ApplyConfiguration expressions with a CEL null at every
// position SMD checks: a string, number, boolean, map and list field, a map
// value, a list item, a field of an untyped (preserve-unknown-fields) object,
// and nested in literals; and, on the CRD, the other values whose conversion
// follows the plugin's (a literal's items are CEL's own values: uints,
// timestamps, nested literals, the object's maps and lists).
var nullApplies = map[string][]string{
	"ConfigMap": {
		`Object{data: Object.data{v: null}}`,
		`Object{data: {"v": null}}`,
		`Object{data: null}`,
		`Object{data: {"v": "x", "w": null}}`,
		`Object{metadata: Object.metadata{labels: {"l": null}}}`,
		`Object{metadata: Object.metadata{labels: null}}`,
		`Object{metadata: Object.metadata{finalizers: [null]}}`,
		`Object{metadata: Object.metadata{finalizers: ["a", null]}}`,
		`Object{metadata: Object.metadata{finalizers: null}}`,
		`Object{metadata: null}`,
		`Object{immutable: null}`,
		`Object{binaryData: {"b": null}}`,
		`Object{metadata: Object.metadata{ownerReferences: [null]}}`,
		`Object{metadata: Object.metadata{annotations: {"a": null}, labels: {"l": "v"}}}`,
	},
	"Deployment": {
		`Object{spec: Object.spec{replicas: null}}`,
		`Object{spec: Object.spec{paused: null}}`,
		`Object{spec: Object.spec{selector: null}}`,
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", image: null}]}}}}`,
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", args: [null]}]}}}}`,
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [null]}}}}`,
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", ports: [Object.spec.template.spec.containers.ports{containerPort: null}]}]}}}}`,
		`Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxSurge: null}}}}`,
	},
	"Thing": {
		`Object{spec: Object.spec{replicas: null}}`,
		`Object{spec: Object.spec{free: Object.spec.free{anything: null}}}`,
		`Object{spec: Object.spec{free: Object.spec.free{anything: [1, null]}}}`,
		`Object{spec: Object.spec{free: {"a": {"b": null}}}}`,
		`Object{spec: Object.spec{free: null}}`,
		`Object{spec: Object.spec{tags: [null]}}`,
		`Object{spec: Object.spec{items: [Object.spec.items{name: "a", size: null}]}}`,
		`Object{spec: Object.spec{items: [Object.spec.items{name: "a", opts: {"k": null}}]}}`,
		`Object{spec: Object.spec{unknown: null}}`,
		`Object{spec: null}`,
		`Object{spec: Object.spec{free: Object.spec.free{x: [object.metadata, object.spec.free]}}}`,
		`Object{spec: Object.spec{free: {"x": object.spec, "y": object.spec}}}`,
		`Object{spec: Object.spec{free: Object.spec.free{x: [3u, 4u], y: 5u, z: [[1], {"a": 1}]}}}`,
		`Object{spec: Object.spec{free: Object.spec.free{x: [1, 2], y: [[1]]}}}`,
		`Object{spec: Object.spec{replicas: 3u}}`,
		`Object{spec: Object.spec{free: Object.spec.free{t: timestamp("2020-01-01T00:00:00Z")}}}`,
		`Object{spec: Object.spec{free: Object.spec.free{t: [object.spec.replicas, object.metadata.name]}}}`,
	},
}

// nullRealCluster holds the cases where the in-process reference's type
// converter (client-go's apply-configuration schema) is not the apiserver's
// (built from its OpenAPI v3): the expression and the real cluster's answer
// (testdata/admission/realcluster-null). IntOrString is scalar-only in the
// former, untyped with list and map sides in the latter, as in writepath.
var nullRealCluster = map[string]string{
	`Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxSurge: null}}}}`: "maxsurge-null.txt",
}

// TestMutatingPoliciesNullInApply compares ApplyConfiguration mutations with a
// CEL null (the apiserver hands it to SMD as structpb.NullValue) on ConfigMap,
// Deployment and a CRD with the reference.
func TestMutatingPoliciesNullInApply(t *testing.T) {
	w := newWorld(t)
	thingTypes := newCRDTypes(t)
	crd, err := wschema.FromCRDBytes([]byte(thingsCRD))
	require.NoError(t, err)
	kinds := map[string]struct {
		gvk schema.GroupVersionKind
		res string
		obj map[string]any
	}{
		"ConfigMap": {schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "configmaps",
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "o1", "namespace": "ns-a", "labels": map[string]any{"x": "y"}}, "data": map[string]any{"x": "y"}}},
		"Deployment": {schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployments",
			defaultedWorkload(t, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "o1", "namespace": "ns-a"},
				"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
					"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}},
						"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}})},
		"Thing": {schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}, "things",
			map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "o1", "namespace": "ns-a"},
				"spec": map[string]any{"replicas": int64(1), "free": map[string]any{"k": "v"}}}},
	}
	n, denied, realCluster := 0, 0, 0
	for _, kind := range []string{"ConfigMap", "Deployment", "Thing"} {
		k := kinds[kind]
		for _, expr := range nullApplies[kind] {
			n++
			policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
				"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
					"matchConstraints": map[string]any{"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent",
						"resourceRules": []any{map[string]any{"apiGroups": []any{k.gvk.Group}, "apiVersions": []any{"v1"},
							"operations": []any{"*"}, "resources": []any{k.res}}}},
					"failurePolicy": "Fail", "reinvocationPolicy": "Never",
					"mutations": []any{map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": expr}}}}}
			binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": "p-b"}, "spec": map[string]any{"policyName": "p"}}
			var pol admissionregistrationv1.MutatingAdmissionPolicy
			var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
			fromMap(t, policy, &pol)
			fromMap(t, binding, &bd)
			hooks := []mutating.PolicyHook{{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)}}
			uobj := &unstructured.Unstructured{Object: deepCopy(k.obj)}
			attrs := admission.NewAttributesRecord(uobj, nil, k.gvk, "ns-a", "o1",
				schema.GroupVersionResource{Group: k.gvk.Group, Version: "v1", Resource: k.res}, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
			var refErr error
			if kind == "Thing" {
				refErr = mutating.NewDispatcher(nil, w.rawMatcher, thingTypes).Dispatch(context.Background(), attrs, admission.NewObjectInterfacesFromScheme(w.scheme), hooks)
			} else {
				refErr = mutating.NewDispatcher(nil, w.rawMatcher, builtinTypes{}).Dispatch(context.Background(), attrs, schemeDefaulting{admission.NewObjectInterfacesFromScheme(w.scheme)}, hooks)
			}
			chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{policy, binding}, Namespaces: w.namespaces,
				Versions: wadmission.Versions{CRDs: []*wschema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*wschema.CRD{crd}}}})
			require.NoError(t, err)
			res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
				Kind:     wschema.GroupVersionKind{Group: k.gvk.Group, Version: "v1", Kind: kind},
				Resource: wschema.GroupVersionResource{Group: k.gvk.Group, Version: "v1", Resource: k.res},
				Name:     "o1", Namespace: "ns-a", Object: deepCopy(k.obj), UserInfo: wadmission.UserInfo{Username: "alice"}})
			if fixture, ok := nullRealCluster[expr]; ok {
				b, rerr := os.ReadFile("../../testdata/admission/realcluster-null/" + fixture)
				require.NoError(t, rerr)
				_, want, _ := strings.Cut(strings.TrimSpace(string(b)), " denied request: ")
				denied++
				realCluster++
				if assert.Error(t, err, "%s %s", kind, expr) {
					_, got, _ := strings.Cut(err.Error(), " denied request: ")
					assert.Equal(t, want, got, "%s %s (real cluster)", kind, expr)
				}
				continue
			}
			if refErr != nil {
				denied++
				if assert.Error(t, err, "%s %s", kind, expr) {
					assert.Equal(t, refErr.Error(), err.Error(), "%s %s", kind, expr)
				}
				continue
			}
			if !assert.NoError(t, err, "%s %s", kind, expr) {
				continue
			}
			want, _ := json.Marshal(uobj.Object)
			got, _ := json.Marshal(res.Object)
			assert.JSONEq(t, string(want), string(got), "%s %s", kind, expr)
		}
	}
	require.Equal(t, len(nullRealCluster), realCluster)
	t.Logf("%d cases (%d denied; %d compared with the real cluster's recorded answer), 0 disagreements", n, denied, realCluster)
}
