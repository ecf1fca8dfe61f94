// Package admission compares writepath's admission chain with k8s.io/apiserver
// v0.37.2's ValidatingAdmissionPolicy dispatcher, set up as the plugin sets it
// up (compilePolicy's compiler and environments, the policy matcher over
// namespace informers, CollectParams over a ConfigMap informer), on generated
// policies, bindings, params and ConfigMap requests: the error (message and
// Status body), warnings and audit annotations must be equal. 150 cases
// normally, 100,000 with WRITEPATH_LONG=1.
//
// MutatingAdmissionPolicies: the mutating policy dispatcher (one pass, policies
// compiled as the plugin's compilePolicy does, the built-in type converter the
// apiserver builds from its OpenAPI) on generated ApplyConfiguration and
// JSONPatch mutations over ConfigMaps (150), and on ApplyConfiguration
// mutations of Pods and Deployments (200: list-maps by key, sets, atomic lists
// and structs, fields outside the schema) and of a custom resource merged by
// the type converter built from its CRD's OpenAPI v3 (150): the error or the
// mutated object must be equal (100,000 each with WRITEPATH_LONG=1).
//
// matchPolicy Equivalent: a three-version CRD registered as the
// apiextensions-apiserver registers it (the runtime EquivalentResourceRegistry,
// unstructured objects, the None strategy's converter) under generated
// webhooks, policies and bindings matching other versions, Exact or
// Equivalent, with exclusions, subresources and resource names: the validating
// and mutating policy dispatchers over the policy matcher (150 each; the
// denial message and the mutations print the kind, resource and object
// version the expressions saw), and k8s.io/apiserver's mutating webhook plugin
// (configurations from an informer, calls over HTTPS) whose AdmissionReview
// requests and patched objects must equal Admit's (60; 100,000 and 2,000 with
// WRITEPATH_LONG=1). ObjectMeta: the
// registry's ValidateObjectMetaAccessor and ValidateObjectMetaAccessorUpdate on
// generated metadata (500 normally).
//
// Params: objects of eight built-in kinds in their stored form, through
// protobuf, behind typed informers transformed as kube-apiserver's (TypeMeta
// cleared, managedFields dropped), read by generated probe expressions in
// validating policies (the dispatcher's wrappedParam: plain JSON with
// paramKind's apiVersion and kind) and mutating ones (the typed Go value,
// also as JSON Patch and apply configuration values): 300 cases, 100,000
// with WRITEPATH_LONG=1 (TestParamsOfBuiltinKinds); and which kinds come from
// typed informers at all (TestParamInformerKinds, every listable served
// resource against client-go's shared informer factory).
//
// The webhook code paths: admission.Review against request.CreateV1AdmissionReview
// on generated requests, and the chain's judgement of generated validating and
// mutating webhook answers against VerifyAdmissionResponse,
// webhookerrors.ToStatusErr, the mutating dispatcher's patch decoding and
// application (json-patch v4) and the failing-closed wrapping (500 each
// normally, 100,000 with WRITEPATH_LONG=1).
//
// Defaulting after mutation: k8s.io/apiserver's mutating webhook plugin with a
// custom resource handler's structural defaulter (TestWebhookPatchDefaulting,
// 300) and over typed Deployments with defaults.Builtin as the scheme's
// defaulter (TestWebhookPatchDefaultingBuiltin, 300), and the mutating policy
// dispatcher over typed Deployments (TestPolicyMutationDefaulting, 200): the
// reviews sent, reinvocations included, the admitted objects and the errors
// must be equal, encoding/json's type errors included (their innermost Go
// struct and Go type, from gotypes.DecodeError).
// Warnings: ResponseWarnings against filters.WithWarningRecorder
// (TestResponseWarnings, 1,500 sequences). 100,000 each with WRITEPATH_LONG=1.
package admission
