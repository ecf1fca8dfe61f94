package admission_test

import (
	"context"
	"encoding/base64"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

type allowHook struct{}

func (allowHook) Call(_ context.Context, _ admission.WebhookTarget, body []byte) ([]byte, error) {
	review, err := codec.DecodeObject(body)
	if err != nil {
		return nil, err
	}
	req, _ := review["request"].(map[string]any)
	return codec.EncodeJSON(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": map[string]any{
		"uid": req["uid"], "allowed": true, "patchType": "JSONPatch",
		"patch": base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/metadata/labels","value":{"seen":"x"}}]`))}})
}

// FuzzAdmitEquivalent: webhooks and policies registered for arbitrary
// versions, requests through arbitrary versions of a CRD (and built-in
// resources): no panic, inputs unchanged.
func FuzzAdmitEquivalent(f *testing.F) {
	crd, err := schema.FromCRDBytes([]byte(gadgetCRD))
	require.NoError(f, err)
	f.Add("v1beta1", "Equivalent", "example.com", "v1", "gadgets", "", []byte(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`))
	f.Add("*", "", "autoscaling", "v2", "horizontalpodautoscalers", "status", []byte(`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"}`))
	f.Add("v1", "Exact", "events.k8s.io", "v1", "events", "", []byte(`{}`))
	f.Fuzz(func(t *testing.T, ruleVersion, matchPolicy, group, version, resource, sub string, data []byte) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := codec.DecodeObject(data)
		require.NoError(t, err)
		rules := []any{map[string]any{"apiGroups": []any{"*"}, "apiVersions": []any{ruleVersion}, "operations": []any{"*"}, "resources": []any{"*", "*/*"}}}
		objs := []map[string]any{
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration", "metadata": map[string]any{"name": "w"},
				"webhooks": []any{map[string]any{"name": "w.example.com", "rules": rules, "matchPolicy": matchPolicy, "sideEffects": "None",
					"clientConfig": map[string]any{"url": "https://127.0.0.1:1/"}}}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": "m"},
				"spec": map[string]any{"matchConstraints": map[string]any{"resourceRules": rules, "matchPolicy": matchPolicy},
					"mutations": []any{map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{
						"expression": `Object{metadata: Object.metadata{annotations: {"v": request.kind.version}}}`}}}}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "m"},
				"spec": map[string]any{"policyName": "m"}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "v"},
				"spec": map[string]any{"matchConstraints": map[string]any{"resourceRules": rules, "matchPolicy": matchPolicy},
					"validations": []any{map[string]any{"expression": "object == null || request.kind.version != ''"}}}},
			{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "v"},
				"spec": map[string]any{"policyName": "v", "validationActions": []any{"Deny"}}},
		}
		chain, err := admission.New(admission.Config{Objects: objs, Client: allowHook{}, Versions: admission.Versions{CRDs: []*schema.CRD{crd}}})
		require.NoError(t, err)
		kind, _ := obj["kind"].(string)
		_, _ = chain.Admit(context.Background(), admission.Request{Operation: admission.Create,
			Kind:        schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource:    schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
			SubResource: sub, Name: "g", Namespace: "default", Object: obj})
		assert.True(t, value.Equal(before, obj), "input modified")
	})
}
