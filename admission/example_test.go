package admission_test

import (
	"context"
	"fmt"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

const examplePolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= int(params.data.max)
    messageExpression: "'replicas must be at most ' + params.data.max"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-prod}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: limits, parameterNotFoundAction: Deny}
`

func deployment(replicas int64) admission.Request {
	return admission.Request{
		Operation: admission.Create,
		Kind:      schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource:  schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Name:      "web", Namespace: "prod",
		Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "prod"},
			"spec":     map[string]any{"replicas": replicas}},
	}
}

// A ValidatingAdmissionPolicy with a param, compiled once and used for two requests.
func ExampleNew() {
	policies, _ := codec.DecodeDocuments([]byte(examplePolicy))
	chain, err := admission.New(admission.Config{
		Objects: policies,
		Params: []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "limits", "namespace": "prod"}, "data": map[string]any{"max": "3"}}},
	})
	if err != nil {
		panic(err)
	}
	for _, n := range []int64{2, 5} {
		_, err := chain.Admit(context.Background(), deployment(n))
		fmt.Println(n, err)
	}
	// Output:
	// 2 <nil>
	// 5 deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-prod' denied request: replicas must be at most 3
}

type defaultReplicas struct{}

func (defaultReplicas) Name() string { return "default-replicas" }

func (defaultReplicas) Admit(_ context.Context, a admission.Attributes) (map[string]any, error) {
	spec := a.Object["spec"].(map[string]any)
	if _, ok := spec["replicas"]; !ok {
		spec["replicas"] = int64(1)
	}
	return a.Object, nil
}

// A Go mutating plugin (a controller-runtime Defaulter in-process). The
// registry's create steps around the chain (uid, creationTimestamp, a
// generated name) are registry.Admit's.
func ExampleChain_Admit() {
	chain, _ := admission.New(admission.Config{
		Mutators: []admission.Mutator{defaultReplicas{}},
		Env:      admission.Env{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	})
	req := deployment(0)
	req.Object = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "prod"}, "spec": map[string]any{}}
	res, err := chain.Admit(context.Background(), req)
	if err != nil {
		panic(err)
	}
	out, _ := codec.EncodeJSON(res.Object)
	fmt.Println(string(out))
	fmt.Println(res.Patches[0].Mutator, string(res.Patches[0].Patch))
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"},"spec":{"replicas":1}}
	// default-replicas [{"op":"add","path":"/spec/replicas","value":1}]
}

// The AdmissionReview a webhook receives.
func ExampleReview() {
	req := deployment(2)
	req.UserInfo = admission.UserInfo{Username: "alice"}
	body, _ := admission.Review(req, "705ab4f5-6393-11e8-b7cc-42010a800002")
	fmt.Println(string(body))
	// Output:
	// {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"dryRun":false,"kind":{"group":"apps","kind":"Deployment","version":"v1"},"name":"web","namespace":"prod","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"},"spec":{"replicas":2}},"oldObject":null,"operation":"CREATE","options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"},"requestKind":{"group":"apps","kind":"Deployment","version":"v1"},"requestResource":{"group":"apps","resource":"deployments","version":"v1"},"resource":{"group":"apps","resource":"deployments","version":"v1"},"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","userInfo":{"username":"alice"}}}
}

// The two phases on their own, as a registry calls them: mutating admission,
// the caller's validation of the mutated object, validating admission; the
// namespaces come from the caller's store at request time.
func ExampleChain_Mutate() {
	mutating := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
		"metadata": map[string]any{"name": "label"}, "spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""},
				"apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
			"reinvocationPolicy": "Never",
			"mutations": []any{map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{
				"expression": "Object{metadata: Object.metadata{labels: {'env': namespaceObject.metadata.labels['env']}}}"}}}}}
	mutatingBinding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "label"}, "spec": map[string]any{"policyName": "label"}}
	chain, err := admission.New(admission.Config{Objects: []map[string]any{mutating, mutatingBinding}})
	if err != nil {
		panic(err)
	}
	store := admission.StaticLookup([]map[string]any{{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "demo", "labels": map[string]any{"env": "test"}}}}, nil)
	req := admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:     "web", Namespace: "demo",
		Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web", "namespace": "demo"}}}
	mut, err := chain.Mutate(context.Background(), req, store)
	if err != nil {
		panic(err)
	}
	fmt.Println(mut.Object["metadata"])
	// ... validate mut.Object ...
	req.Object = mut.Object
	_, err = chain.Validate(context.Background(), req, store)
	fmt.Println(err)
	// Output:
	// map[labels:map[env:test] name:web namespace:demo]
	// <nil>
}
