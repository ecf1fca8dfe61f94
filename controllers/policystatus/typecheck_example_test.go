package policystatus_test

import (
	"fmt"

	"github.com/writepath/writepath/controllers/policystatus"
)

// ExampleTypeCheck shows the warning kube-controller-manager would write to a
// policy's status.typeChecking for a misspelled field of Deployment.
func ExampleTypeCheck() {
	policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "replicas"},
		"spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
				"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"deployments"}}}},
			"validations": []any{map[string]any{"expression": "object.spec.replicaz <= 5"}},
		}}
	warnings, err := policystatus.TypeCheck(policy, policystatus.Options{})
	if err != nil {
		panic(err)
	}
	for _, w := range warnings {
		fmt.Printf("%s:\n%s", w.FieldRef, w.Warning)
	}
	// Output:
	// spec.validations[0].expression:
	// apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'
	//  | object.spec.replicaz <= 5
	//  | ...........^
}
