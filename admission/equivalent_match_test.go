package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
)

// TestEquivalentMatchConditionsSeeRequestResource: under an equivalent match a policy's
// validations see request.resource as matched, its match conditions the request's own resource
// with the matched kind (k8s.io/apiserver matchconditions.Matcher builds its request from
// versionedAttr.GetResource() and VersionedKind; validator.Validate from the matched resource).
func TestEquivalentMatchConditionsSeeRequestResource(t *testing.T) {
	crd, err := schema.FromCRDBytes([]byte(gadgetCRD))
	require.NoError(t, err)
	policy := func(condition string) map[string]any {
		return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"example.com"},
					"apiVersions": []any{"v1beta1"}, "operations": []any{"CREATE"}, "resources": []any{"gadgets"}}}},
				"matchConditions": []any{map[string]any{"name": "c", "expression": condition}},
				"validations": []any{map[string]any{"expression": "false",
					"messageExpression": "'resource ' + request.resource.version + ', kind ' + request.kind.version"}}}}
	}
	binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p", "validationActions": []any{"Warn"}}}
	req := admission.Request{Operation: admission.Create,
		Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"},
		Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"},
		Name:     "g", Namespace: "default",
		Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": "default"}}}
	for _, tc := range []struct {
		condition string
		warned    bool
	}{
		{"request.resource.version == 'v1' && request.kind.version == 'v1beta1'", true},
		{"request.resource.version == 'v1beta1'", false},
	} {
		chain, err := admission.New(admission.Config{Objects: []map[string]any{policy(tc.condition), binding},
			Versions: admission.Versions{CRDs: []*schema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*schema.CRD{crd}}}})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), req)
		require.NoError(t, err)
		if tc.warned {
			assert.Equal(t, []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': resource v1beta1, kind v1beta1"}, res.Warnings, tc.condition)
		} else {
			assert.Empty(t, res.Warnings, tc.condition)
		}
	}
}
