package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
)

// FuzzAdmit runs arbitrary policies (with arbitrary expressions) over
// arbitrary objects: no panic, inputs unchanged, same answer twice.
func FuzzAdmit(f *testing.F) {
	f.Add(examplePolicy, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"},"spec":{"replicas":5}}`, "object.spec.replicas < 3")
	f.Add(examplePolicy, `{"metadata":{"name":"Bad_Name","labels":{"a/b/c":"x"},"finalizers":["x"]}}`, "has(object.metadata.labels)")
	f.Add("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: m}\nspec:\n  mutations:\n  - patchType: JSONPatch\n    jsonPatch: {expression: '[JSONPatch{op: \"add\", path: \"/x\", value: 1}]'}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: m}\n",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"prod"}}`, "Object{spec: Object.spec{replicas: 2}}")
	f.Fuzz(func(t *testing.T, policies, object, expr string) {
		docs, err := codec.DecodeDocuments([]byte(policies))
		if err != nil {
			return
		}
		obj, err := codec.DecodeObject([]byte(object))
		if err != nil {
			return
		}
		// One more policy built around expr, as validation, message and mutation.
		docs = append(docs,
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
				"metadata": map[string]any{"name": "fuzz"},
				"spec": map[string]any{"variables": []any{map[string]any{"name": "v", "expression": expr}},
					"validations":      []any{map[string]any{"expression": expr, "messageExpression": expr}},
					"auditAnnotations": []any{map[string]any{"key": "k", "valueExpression": expr}},
					"matchConditions":  []any{map[string]any{"name": "m", "expression": "variables.v == variables.v"}}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": "fuzz"}, "spec": map[string]any{"policyName": "fuzz", "validationActions": []any{"Warn", "Audit"}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
				"metadata": map[string]any{"name": "fuzz"},
				"spec": map[string]any{"reinvocationPolicy": "IfNeeded", "mutations": []any{
					map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": expr}},
					map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": expr}}}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": "fuzz"}, "spec": map[string]any{"policyName": "fuzz"}},
		)
		before := make([]map[string]any, len(docs))
		for i, d := range docs {
			c, err := value.DeepCopyMap(d)
			require.NoError(t, err)
			before[i] = c
		}
		chain, err := admission.New(admission.Config{Objects: docs, Validate: registry.ValidateObjectMeta,
			Params: []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "prod"}, "data": map[string]any{"max": "3"}}}})
		if err != nil {
			return
		}
		objBefore, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete} {
			req := deployment(0)
			req.Operation = op
			req.Object = obj
			if op != admission.Create {
				req.OldObject = obj
			}
			if op == admission.Delete {
				req.Object = nil
			}
			r1, err1 := chain.Admit(context.Background(), req)
			r2, err2 := chain.Admit(context.Background(), req)
			assert.Equal(t, err1 == nil, err2 == nil, "same answer twice")
			if err1 == nil {
				assert.Equal(t, r1.Object, r2.Object)
			} else {
				assert.Equal(t, err1.Error(), err2.Error())
			}
		}
		assert.Equal(t, objBefore, obj, "object unchanged")
		assert.Equal(t, before, docs, "configuration unchanged")
	})
}

type cannedAnswer []byte

func (c cannedAnswer) Call(context.Context, admission.WebhookTarget, []byte) ([]byte, error) {
	return c, nil
}

// FuzzWebhookAnswer feeds arbitrary answers to a mutating and a validating
// webhook: no panic, the request unchanged, the same outcome twice.
func FuzzWebhookAnswer(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL2RhdGEvYiIsInZhbHVlIjoiMiJ9XQ=="}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"status":{"code":403,"message":"no"}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"eyJvcCI6ImFkZCJ9"}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, answer []byte) {
		hook := func(kind string) map[string]any {
			return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": kind},
				"webhooks": []any{map[string]any{"name": "h.example.com", "sideEffects": "None", "reinvocationPolicy": "IfNeeded",
					"clientConfig": map[string]any{"url": "https://127.0.0.1:1/"},
					"rules":        []any{map[string]any{"apiGroups": []any{"*"}, "apiVersions": []any{"*"}, "operations": []any{"*"}, "resources": []any{"*"}}}}}}
		}
		chain, err := admission.New(admission.Config{Objects: []map[string]any{hook("MutatingWebhookConfiguration"), hook("ValidatingWebhookConfiguration")},
			Client: cannedAnswer(answer), Env: admission.Env{ReviewUID: func() string { return "u" }}})
		require.NoError(t, err)
		req := deployment(2)
		before, err := value.DeepCopyMap(req.Object)
		require.NoError(t, err)
		r1, err1 := chain.Admit(context.Background(), req)
		r2, err2 := chain.Admit(context.Background(), req)
		assert.Equal(t, before, req.Object, "request unchanged")
		assert.Equal(t, err1 == nil, err2 == nil)
		if err1 == nil {
			assert.Equal(t, r1.Object, r2.Object)
		} else {
			assert.Equal(t, err1.Error(), err2.Error())
		}
	})
}
