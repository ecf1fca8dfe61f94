// Package admission compares writepath's admission chain with k8s.io/apiserver
// v0.37.2's ValidatingAdmissionPolicy dispatcher, set up as the plugin sets it
// up (compilePolicy's compiler and environments, the policy matcher over
// namespace informers, CollectParams over a ConfigMap informer), on generated
// policies, bindings, params and ConfigMap requests: the error (message and
// Status body), warnings and audit annotations must be equal. 150 cases
// normally, 100,000 with WRITEPATH_LONG=1.
//
// MutatingAdmissionPolicies: the mutating policy dispatcher (one pass, policies
// compiled as the plugin's compilePolicy does, the deduced type converter the
// apiserver uses for kinds without OpenAPI) on generated ApplyConfiguration and
// JSONPatch mutations over ConfigMaps: the error or the mutated object must be
// equal (150 normally, 100,000 with WRITEPATH_LONG=1). ObjectMeta: the
// registry's ValidateObjectMetaAccessor and ValidateObjectMetaAccessorUpdate on
// generated metadata (500 normally).
//
// The webhook code paths: admission.Review against request.CreateV1AdmissionReview
// on generated requests, and the chain's judgement of generated validating and
// mutating webhook answers against VerifyAdmissionResponse,
// webhookerrors.ToStatusErr, the mutating dispatcher's patch decoding and
// application (json-patch v4) and the failing-closed wrapping (500 each
// normally, 100,000 with WRITEPATH_LONG=1).
package admission
