// Package policystatus is kube-controller-manager's ValidatingAdmissionPolicy status controller
// as a pure function: a ValidatingAdmissionPolicy (and the CRDs the cluster serves) goes in, the
// status.typeChecking.expressionWarnings the controller would write come out. Reference:
// k8s.io/kubernetes v1.37.2 pkg/controller/validatingadmissionpolicystatus and the apiserver's
// TypeChecker (k8s.io/apiserver/pkg/admission/plugin/policy/validating).
//
// The model: the kinds a policy's matchConstraints.resourceRules name are found as the
// discovery RESTMapper finds them (built-in kinds served by default, in discovery order, then
// the CRDs' served versions; rules with a wildcard group or version are skipped, so are
// wildcard and subresource resources, and each rule contributes at most 10 kinds); each kind is
// typed by its OpenAPI v3 schema (cel.BuiltinOpenAPI for built-in kinds, the structural schema
// for a CRD); every validation's expression and messageExpression is compiled, after the
// policy's variables, in cel.TypeCheckEnv for each kind, and a kind's compile errors become a
// warning on the expression's field path.
//
// # Usage
//
//	warnings, err := policystatus.TypeCheck(policy, policystatus.Options{CRDs: crds})
//	for _, w := range warnings {
//		fmt.Println(w.FieldRef, w.Warning) // spec.validations[0].expression, "apps/v1, Kind=Deployment: ERROR: ..."
//	}
//
// # Invariants
//
//   - Pure: the policy and the CRDs are read, never modified or retained; the same input gives
//     the same warnings. Options.Now is the only clock: it names the checked types
//     (Kind<nanosecond>) as the controller's clock does; the zero value names them Kind0.
//   - Safe for concurrent use: the built-in kinds' mapping and schemas are read-only data
//     decoded once.
//
// # Errors
//
// An object that is not a ValidatingAdmissionPolicy is an error; so is a CEL environment that
// cannot be built (never with the embedded data). Expressions that do not compile are not
// errors: they are the warnings. Kinds without a schema are not checked.
//
// # Fidelity notes
//
// The kinds and schemas come from recorded OpenAPI v3 documents of a real 1.37 apiserver (the
// controller uses the Go definitions they are generated from).
package policystatus
