package admission

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/yaml"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	wschema "github.com/writepath/writepath/schema"
)

const thingsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing, listKind: ThingList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              args: {type: array, x-kubernetes-list-type: atomic, items: {type: string}}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    size: {type: integer}
                    opts: {type: object, additionalProperties: {type: string}}
              config:
                type: object
                x-kubernetes-map-type: atomic
                properties:
                  a: {type: string}
                  b: {type: string}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// crdTypes is the mutating plugin's type converter manager for the Thing CRD:
// the type converter the apiserver builds from the CRD's published OpenAPI v3.
type crdTypes struct{ tc managedfields.TypeConverter }

func (c crdTypes) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	if gvk.Group == "example.com" && gvk.Kind == "Thing" {
		return c.tc
	}
	return nil
}
func (crdTypes) Run(context.Context) {}

func newCRDTypes(t testing.TB) crdTypes {
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.UnmarshalStrict([]byte(thingsCRD), &crd))
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&crd)
	spec, err := builder.BuildOpenAPIV3(&crd, "v1", builder.Options{})
	require.NoError(t, err)
	tc, err := managedfields.NewTypeConverter(spec.Components.Schemas, false)
	require.NoError(t, err)
	return crdTypes{tc: tc}
}

var thingApplies = []string{
	`Object{spec: Object.spec{items: [Object.spec.items{name: "a", size: 9}]}}`,
	`Object{spec: Object.spec{items: [Object.spec.items{name: "z", opts: {"k": "v"}}]}}`,
	`Object{spec: Object.spec{items: [Object.spec.items{name: "b", opts: {"x": "y"}}]}}`,
	`Object{spec: Object.spec{tags: ["t1", "new"]}}`,
	`Object{spec: Object.spec{args: ["--x"]}}`,
	`Object{spec: Object.spec{config: Object.spec.config{a: "1"}}}`,
	`Object{spec: Object.spec{replicas: 3}}`,
	`Object{spec: Object.spec{replicas: "3"}}`,
	`Object{spec: Object.spec{unknown: 1}}`,
	`Object{spec: Object.spec{free: Object.spec.free{anything: [1, 2]}}}`,
	`Object{metadata: Object.metadata{labels: {"l": "v"}, finalizers: ["example.com/f"]}}`,
	`Object{spec: Object.spec{items: [Object.spec.items{size: 1}]}}`,
}

func genThing(r *rand.Rand) map[string]any {
	s := map[string]any{}
	if r.IntN(2) == 0 {
		s["replicas"] = int64(r.IntN(4))
	}
	if tags := some(r, 3, "t1", "t2", "t3"); len(tags) > 0 {
		seen := map[string]bool{}
		var l []any
		for _, x := range tags {
			if !seen[x] {
				seen[x] = true
				l = append(l, x)
			}
		}
		s["tags"] = l
	}
	if r.IntN(3) == 0 {
		s["args"] = []any{"--v=1"}
	}
	var items []any
	for _, n := range some(r, 3, "a", "b", "c") {
		it := map[string]any{"name": n, "size": int64(r.IntN(5))}
		if r.IntN(2) == 0 {
			it["opts"] = map[string]any{"o": pick(r, "1", "2")}
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		s["items"] = items
	}
	if r.IntN(3) == 0 {
		s["config"] = map[string]any{"b": "2"}
	}
	md := map[string]any{"name": "t1", "namespace": pick(r, "ns-a", "ns-b")}
	if r.IntN(3) == 0 {
		md["finalizers"] = []any{"example.com/g"}
	}
	return map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": md, "spec": s}
}

// TestMutatingPoliciesCRDSMD compares ApplyConfiguration mutations of custom
// resources with the mutating policy dispatcher given the type converter the
// apiserver builds from the CRD (list-map by name with duplicate keys in the
// live object, set, atomic list and map, preserved unknown fields, fields
// outside the schema): writepath merges by schema.Version's SMD type
// (Config.Versions.CRDs).
func TestMutatingPoliciesCRDSMD(t *testing.T) {
	w := newWorld(t)
	types := newCRDTypes(t)
	crd, err := wschema.FromCRDBytes([]byte(thingsCRD))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 99))
	n := sampleSize(150)
	mutated, denied := 0, 0
	for i := 0; i < n; i++ {
		var muts []any
		for m := 0; m < 1+r.IntN(2); m++ {
			muts = append(muts, map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": pick(r, thingApplies...)}})
		}
		policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
			"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
				"matchConstraints": map[string]any{"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent",
					"resourceRules": []any{map[string]any{"apiGroups": []any{"example.com"}, "apiVersions": []any{"v1"},
						"operations": []any{"*"}, "resources": []any{"things"}}}},
				"failurePolicy": "Fail", "reinvocationPolicy": "Never", "mutations": muts}}
		binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "p-b"}, "spec": map[string]any{"policyName": "p"}}
		obj := genThing(r)
		if r.IntN(8) == 0 {
			// A live list-map with a duplicate key (the apiserver reads live objects with AllowDuplicates).
			if items, ok := obj["spec"].(map[string]any)["items"].([]any); ok {
				obj["spec"].(map[string]any)["items"] = append(items, items[0])
			}
		}
		ns := obj["metadata"].(map[string]any)["namespace"].(string)
		var pol admissionregistrationv1.MutatingAdmissionPolicy
		var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
		fromMap(t, policy, &pol)
		fromMap(t, binding, &bd)
		hooks := []mutating.PolicyHook{{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)}}
		uobj := &unstructured.Unstructured{Object: deepCopy(obj)}
		attrs := admission.NewAttributesRecord(uobj, nil, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}, ns, "t1",
			schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
		refErr := mutating.NewDispatcher(nil, w.rawMatcher, types).Dispatch(context.Background(), attrs, admission.NewObjectInterfacesFromScheme(w.scheme), hooks)

		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{policy, binding}, Namespaces: w.namespaces,
			Versions: wadmission.Versions{CRDs: []*wschema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*wschema.CRD{crd}}}})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
			Kind:     wschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"},
			Resource: wschema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"},
			Name:     "t1", Namespace: ns, Object: obj, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ctx, _ := json.Marshal(map[string]any{"policy": policy, "obj": obj})
		if refErr != nil {
			denied++
			if !assert.Error(t, err, "case %d: %s", i, ctx) || !assert.Equal(t, refErr.Error(), err.Error(), "case %d: %s", i, ctx) {
				return
			}
			continue
		}
		if !assert.NoError(t, err, "case %d: %s", i, ctx) {
			return
		}
		want, _ := json.Marshal(uobj.Object)
		got, _ := json.Marshal(res.Object)
		if len(res.Patches) > 0 {
			mutated++
		}
		if !assert.JSONEq(t, string(want), string(got), "case %d: %s", i, ctx) {
			return
		}
	}
	require.Greater(t, mutated, n/10)
	require.Greater(t, denied, n/20)
	t.Logf("%d cases (%d mutated, %d denied), 0 disagreements", n, mutated, denied)
}
