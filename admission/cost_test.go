package admission_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/admission"
)

// TestPerCallCostLimit: an expression over the per-call cost limit fails as
// the apiserver's does, and the failure policy decides.
func TestPerCallCostLimit(t *testing.T) {
	list := "[" + strings.TrimSuffix(strings.Repeat("1,", 60), ",") + "]"
	expr := list + ".all(a, " + list + ".all(b, " + list + ".all(c, a + b + c >= 0)))"
	for _, fp := range []string{"Fail", "Ignore"} {
		pol := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": "costly"},
			"spec":     map[string]any{"failurePolicy": fp, "validations": []any{map[string]any{"expression": expr}}}}
		b := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "costly"}, "spec": map[string]any{"policyName": "costly", "validationActions": []any{"Deny"}}}
		chain, err := admission.New(admission.Config{Objects: []map[string]any{pol, b}})
		require.NoError(t, err)
		_, err = chain.Admit(context.Background(), deployment(1))
		if fp == "Ignore" {
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err)
		assert.Equal(t, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: expression '`+expr+`' resulted in error: operation cancelled: actual cost limit exceeded`, err.Error())
	}
}
