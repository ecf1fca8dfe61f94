package admission_test

import (
	"context"
	"fmt"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`

// A policy written for v1beta1 of a CRD sees requests made through v1
// (matchPolicy Equivalent, the default), with the object converted to v1beta1.
func ExampleVersions() {
	crd, err := schema.FromCRDBytes([]byte(gadgetCRD))
	if err != nil {
		panic(err)
	}
	policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"example.com"},
				"apiVersions": []any{"v1beta1"}, "operations": []any{"CREATE"}, "resources": []any{"gadgets"}}}},
			"validations": []any{map[string]any{"expression": "false",
				"messageExpression": "'saw ' + object.apiVersion + ' as ' + request.kind.version + ', requested as ' + request.requestKind.version"}}}}
	binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p", "validationActions": []any{"Warn"}}}
	chain, err := admission.New(admission.Config{Objects: []map[string]any{policy, binding},
		Versions: admission.Versions{CRDs: []*schema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*schema.CRD{crd}}}})
	if err != nil {
		panic(err)
	}
	res, err := chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"},
		Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"},
		Name:     "g", Namespace: "default",
		Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": "default"}}})
	fmt.Println(res.Warnings, err)
	// Output:
	// [Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': saw example.com/v1beta1 as v1beta1, requested as v1] <nil>
}
