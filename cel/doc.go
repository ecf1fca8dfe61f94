// Package cel is kube-apiserver 1.37's CEL: the base environment the apiserver builds at a
// compatibility version (cel-go options, the cel-go extension libraries it enables, and the
// Kubernetes libraries lists, regex, urls, ip, cidr, quantity, semver, format and the
// authorizer's call shape), their static and runtime cost prices, the CEL types and values of
// structural schemas (ValueOf), the values admission expressions see (UnstructuredValue for
// unstructured content; RequestValue, NamespaceValue and TypedValueOf for typed Go objects, as
// SchemalessTypedToVal gives them), and the evaluation of CRD x-kubernetes-validations rules as apiextensions'
// schema/cel validator does it (messages, messageExpression, reason, fieldPath, transition rules
// and optionalOldSelf, ratcheting, per-call and per-request cost budgets), plus the checks the
// apiserver runs on those rules when a CRD is written (compilation, oldSelf correlation, static
// cost limits).
//
// The model: a rule is compiled once per schema node against the node's CEL type (objects are
// object types named selfType0, selfType0.spec, ...; property names are escaped: a-b is
// a__dash__b, namespace is __namespace__ or namespace, ...), and evaluated with self (and
// oldSelf on updates) bound to the object model value typed by the schema: lists compare and
// concatenate by x-kubernetes-list-type (set and map ignore order, + unions / merges by key),
// strings with format date-time, date, duration and byte are timestamps, durations and bytes,
// int-or-string is dynamic.
//
// # Usage
//
//	crd, _ := schema.FromCRDBytes(crdYAML)
//	if errs := cel.ValidateCRD(crd, cel.Options{}); len(errs) > 0 { ... } // rules the apiserver rejects
//	errs := cel.ValidateCRDUpdate(crd, storedCRD, cel.Options{})             // the same, replacing storedCRD
//	v := crd.Version("v1")
//	res, _ := v.Process(schema.Request{Object: obj, Old: old})
//	var validators cel.Validators // held by the caller: each schema's rules compiled once
//	celRes := validators.ValidateCustomResource(ctx, v, res.Object, old, res.Errors)
//	errs := append(res.Errors, celRes.Errors...) // what the 422 lists; celRes.Warnings are ratcheted failures
//
// For expressions outside CRDs (admission policies), BaseEnv(V1_37) is the environment to extend
// with variables; programs built from it carry the apiserver's cost tracking and per-call limit.
//
// # Invariants
//
//   - Inputs (schemas, objects, old objects) are never modified and never retained beyond the
//     call; results are fresh values.
//   - Environments, compiled Validators and a Validators set are safe for concurrent use. No
//     state is kept by the package: a Validators value compiles each schema once and keeps it
//     for as long as its owner keeps the Validators (drop it with the schemas).
//   - Evaluation is bounded: every rule stops at PerCallLimit, a request at its budget
//     (RuntimeCELCostBudget for a custom resource), with the apiserver's errors. Regular
//     expressions are RE2 (linear time). Quantity arithmetic that the apiserver would run
//     without bound (10^2000000000) is refused with an error here.
//   - Deterministic: properties are visited in sorted order and object equality compares fields
//     in sorted order (the apiserver uses Go map order; where that order changes its answer,
//     writepath gives one of the apiserver's answers, always the same one). Object type names
//     use the fixed suffix "selfType0" where the apiserver uses the clock ("selfType123456789").
//
// # Errors
//
// Rule failures are field.Errors exactly as the apiserver words them: "spec: Invalid value:
// \"object\": ... evaluating rule: ...", "failed rule: <rule>", the message or the evaluated
// messageExpression, Forbidden/Required/Duplicate by reason, at fieldPath when given; budget
// exhaustion ("validation failed due to running out of cost budget, no further validation
// rules will be run") and per-call limits ("operation cancelled: actual cost limit exceeded").
// CRD-time errors carry CRD paths
// (spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule) and the
// apiserver's compilation and cost messages. ValidateCRD has create semantics: every
// expression compiles at Options.Version (default V1_36, kube-apiserver 1.37's compatibility
// version for new expressions) and meets the cost limits. ValidateCRDUpdate has update
// semantics: an expression whose text occurs anywhere in the stored CRD compiles with the
// stored expressions environment (V1_37, every library), and a version whose schema is
// unchanged (semantically: nil and empty lists are equal) is not refused for one expression's
// estimated cost; the limit for a whole schema still applies. Library functions fail with the apiserver's texts
// ("IP Address \"x\" parse error during conversion from string: ...", "quantities must match
// the regular expression ...", "Illegal regex: ...").
package cel
