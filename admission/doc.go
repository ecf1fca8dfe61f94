// Package admission is kube-apiserver 1.37's admission chain as a pure
// function: a request (operation, kind, resource, objects, user) and a
// configuration (Go plugins, webhook configurations, ValidatingAdmissionPolicies
// and their bindings, params, namespaces) give the object that would be
// stored, the patch each mutator applied, the warnings and audit annotations,
// or the rejection worded as the apiserver words it.
//
// The order is the apiserver's: the handler's namespace step, the storage
// precondition of an update (the uid sent), NamespaceLifecycle, Go mutators,
// MutatingAdmissionPolicies and mutating webhooks (those with
// reinvocationPolicy IfNeeded run once more when a later one changed the
// object), the store's resourceVersion check of an update, the registry's
// create or update steps (namespace; uid, creationTimestamp, generateName on
// create; the stored system fields on update), ObjectMeta validation, the
// caller's validation step (schema validation, for example with package
// schema), then Go validators, ValidatingAdmissionPolicies and validating
// webhooks.
//
// # Metadata steps of the registry
//
// Builtins.SystemFields removes, on create, the uid, creationTimestamp,
// deletion fields and selfLink the client sent before admission
// (WipeObjectMetaSystemFields), sets metadata.namespace from the request
// before admission (EnsureObjectNamespaceMatchesRequestNamespace: an object in
// another namespace is a 400 "the namespace of the provided object does not
// match the namespace sent on the request"; an update of an object whose name
// is not Request.Name is a 400 "the name of the object (x) does not match the
// name on the URL (y)"), and again after mutating
// admission with the resource's scope: a cluster-scoped object's namespace is
// cleared, a mutator that moved the object is a 400. The scope is the
// catalogue's for built-in resources and, for custom resources, whether the
// request has a namespace (the apiserver only serves writes of a namespaced
// resource under /namespaces/<ns>/). On update it keeps the stored
// generation, creationTimestamp, deletionTimestamp, uid (when none was sent)
// and deletionGracePeriodSeconds (likewise), as rest.BeforeUpdate does; the
// strategy's generation bump (versions.NextGeneration) is not applied.
// Builtins.Concurrency checks an update against the stored object with
// package versions: the uid sent is a storage precondition checked before
// mutating admission (409 "Precondition failed: UID in precondition: ..."),
// then, on the mutated object, a missing or "0" resourceVersion is a 422
// "metadata.resourceVersion: Invalid value: 0: must be specified for an
// update" unless the kind allows unconditional updates (it then gets the
// stored resourceVersion), another one a 409 "the object has been modified;
// please apply your changes to the latest version and try again". An old
// object without a resourceVersion was not read from a server: only the 422
// is predicted. Builtins.ObjectMeta is apimachinery's ValidateObjectMeta on
// create and, as rest.ValidateUpdate runs them for every kind, ValidateObjectMeta
// then ValidateObjectMetaUpdate on update, an error both report answered once
// (package schema's implementation, shared with custom resources): so an
// update is refused for a bad finalizer or generateName too;
// metadata.namespace is required for namespaced resources and forbidden for
// cluster-scoped ones; the update check of the resourceVersion is left to
// Concurrency, since it never answers in the apiserver.
//
// CEL expressions compile in the apiserver's environments (plugin/cel):
// object, oldObject and params are dyn; request and namespaceObject have the
// declared object types of BuildRequestType and BuildNamespaceType
// (kubernetes.AdmissionRequest, kubernetes.Namespace: `request.nope`,
// `namespaceObject.metadata.uid` or `request.name == 1` do not compile, with
// the apiserver's message); authorizer is declared everywhere but in
// messageExpressions; a variable's type is its expression's, with object
// types turned into dyn.
// matchConditions see namespaceObject as null and evaluate variables afresh,
// as the apiserver's matcher does.
//
// TypeCheck gives the status.typeChecking.expressionWarnings
// kube-controller-manager writes for a ValidatingAdmissionPolicy: the kinds
// its resourceRules match (RESTMapper semantics: a group "" matches every
// group of that version, singular names and <kind>lists resolve, wildcard
// groups or versions skip the rule, at most 10 kinds a rule), each with its
// OpenAPI schema as the type of object and oldObject (and the paramKind's as
// params), and the compile errors of every validation expression and
// messageExpression, per kind, worded as the apiserver's TypeChecker words
// them.
//
// # Usage
//
//	chain, err := admission.New(admission.Config{Objects: policies, Params: params, Namespaces: namespaces})
//	...
//	res, err := chain.Admit(ctx, admission.Request{Operation: admission.Create, Kind: gvk, Resource: gvr,
//		Namespace: "ns", Name: "x", Object: obj})
//	// err is a *status.Error (403/422/404/...) or nil; res.Object, res.Warnings, res.AuditAnnotations
//
//	warnings, err := admission.TypeCheck(vap, admission.TypeCheckOptions{CRDs: crds})
//	// []ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: ERROR: ..."}}
//
// # Versions
//
// matchPolicy Equivalent, which the API defaults webhooks and policies to, is
// kube-apiserver's: a webhook's or policy's rules are tried against the
// request's resource, then against its equivalent resources (the other versions
// of the same stored resource, and cohabiting groups: the built-in catalogue's
// resources served by default, and every version of the CRDs in
// Config.Versions.CRDs). A match through an equivalent converts the object and
// old object to the kind served there (Config.Versions.Converter; by default
// BuiltinConverter, the None strategy for CRDs); the AdmissionReview carries
// kind, resource and subResource as matched and requestKind, requestResource
// and requestSubResource as requested (a policy's match conditions, as the
// apiserver's matcher builds their request, see the matched kind with the
// request's own resource), and a webhook's patch or a policy's mutations are
// converted back. The mutating policy dispatcher converts once per
// kind when it starts, as the apiserver does: policies matched through different
// versions each start from the request's object, and the last one to mutate
// decides the result.
//
// BuiltinConverter converts HorizontalPodAutoscalers between autoscaling/v1
// and autoscaling/v2 (both served by default) as kube-apiserver does, through
// the internal version: the first Resource cpu metric with an
// averageUtilization is v1's targetCPUUtilizationPercentage; the other metrics,
// the current metrics, the behavior and the conditions travel in the
// autoscaling.alpha.kubernetes.io/metrics, current-metrics, behavior and
// conditions annotations (the JSON encoding/json writes of the v1 types, and of
// the internal behavior type with its Go field names), read back leniently
// (an annotation that does not decode is ignored), the annotation's metrics
// first and the CPU target last, with the 80 % CPU target when nothing else
// is left; quantities come out in canonical form unless apimachinery kept the
// string they were parsed from; the round-trip annotations are dropped from
// every converted object. The dispatchers convert a v1 result back into the
// internal object they hold rather than a fresh one, so what v1 cannot say
// keeps that object's value: a v2 object without a CPU metric whose v1 form a
// webhook patched comes back with its old metrics after the annotation's (its
// only metric twice; with more, an empty metric that validation rejects; a
// CPU target the webhook removed stays instead of the 80 % default), as
// recorded from kube-apiserver 1.37 (testdata/admission/realcluster-equivalent/
// hpa-onto*). BuiltinConverter is an OntoConverter for that conversion into
// an existing object, and Admit converts a webhook's or policy's result back
// with ConvertOnto when the configured Converter has it (Convert otherwise).
//
// # Defaulting after mutation
//
// As kube-apiserver's dispatchers do, the object a mutating webhook's patch
// produced, and the result of each MutatingAdmissionPolicy mutation, is decoded
// into the kind and defaulted at the version the webhook or policy saw it,
// before it is converted back and before the next webhook, policy or mutation
// sees it (the next webhook's AdmissionReview, and a reinvoked one's, carry
// the defaults, as recorded from kube-apiserver 1.37 in
// testdata/admission/realcluster-defaulting). A built-in kind gets the
// scheme's defaulting (schema.DefaultBuiltin: a container added without
// imagePullPolicy or terminationMessagePath gets them, a Deployment whose
// strategy a patch removed gets RollingUpdate 25%/25%, fields the Go type does
// not have are dropped); a custom resource gets its CRD's structural defaults
// for the version its apiVersion names, when the CRD is in Versions.CRDs. A
// patched object that does not decode fails the request with a 500 whatever
// the failurePolicy ("Internal error occurred: json: cannot unmarshal string
// into Go struct field DeploymentSpec.spec.replicas of type int32", worded by
// schema.GoDecodeError as the apiserver's decoder words it: the innermost Go
// struct, the field stack, the Go type; a quantity's or time's own parse
// error, "Object 'Kind' is missing in '<json>'" for a custom resource without
// kind); a JSONPatch mutation is decoded strictly ("Internal error occurred:
// strict decoding error: unknown field "spec.x""); an ApplyConfiguration
// result that does not convert is the policy's error, under its failurePolicy
// ("unable to convert unstructured object to apps/v1, Kind=Deployment: ...").
// A policy's
// mutation of a built-in kind is converted, before defaulting, to the
// request's group version (dispatchOne's ConvertToVersion takes the request's
// kind, not the matched one): through an equivalent in another group (a
// policy for events.k8s.io/v1 Events on a core/v1 Event) every mutation fails
// with the scheme's "v1.Event is not suitable for converting to "v1" in
// scheme ..." as the policy's error, and through another version of its group
// (a policy for autoscaling/v1 HorizontalPodAutoscalers on an autoscaling/v2
// one, or the reverse) with "converting (v1.HorizontalPodAutoscaler) to
// (v2.HorizontalPodAutoscaler): unknown conversion", the scheme converting
// versions only through the internal one (so such a policy never changes
// the object), as recorded from kube-apiserver 1.37
// (testdata/admission/realcluster-equivalent/hpaq-map-*). A webhook's patched
// object is defaulted at the webhook's version without the kind's internal
// round trip when that is not the request's version
// (schema.DefaultOptions.SkipInternalRoundTrip): the conversion back into the
// object held stands for it, so an autoscaling/v1 form without a CPU target
// does not get the 80 % one there.
// Request.Object is taken as the apiserver holds it, decoded and defaulted:
// the first mutation that changes an undefaulted object also fills in the
// defaults the request lacked.
//
// # Warnings
//
// Result.Warnings are the texts of the Warning headers the apiserver's
// response carries, on success and on rejection (ResponseWarnings, the rule of
// its warning recorder): empty texts, repeats and texts a header cannot carry
// (control characters, invalid UTF-8) are dropped; once the texts pass 4096
// runes in all, every text is cut to its first 256 runes (no marker) and texts
// are dropped once 4096 runes have been written again. Result.RawWarnings
// keeps every step's warnings as added. Warnings other steps add to the same
// response (a deprecated version's, field validation's) share the recorder:
// pass them, in the apiserver's order, with RawWarnings to ResponseWarnings.
//
// # Invariants
//
// New compiles every CEL expression once; a Chain is read-only afterwards and
// safe for concurrent use. Admit never modifies the request's objects and
// returns fresh values. Time, uids, random name suffixes and AdmissionReview
// uids come from Config.Env; the only effect is the WebhookClient (HTTPSClient
// by default, a real HTTPS POST trusting the caBundle).
//
// # Errors
//
// Rejections are *status.Error values with the apiserver's code, reason,
// message and causes: `configmaps "x" is forbidden: ValidatingAdmissionPolicy
// 'p' with binding 'b' denied request: ...` (422 Invalid unless the validation
// sets a reason), `admission webhook "w" denied the request: ...`, `Internal
// error occurred: failed calling webhook "w": ...` (failurePolicy Fail),
// 422 Invalid for metadata, 404 for a missing namespace. New fails only on
// objects it cannot use (unknown kinds, bad selectors); a policy whose
// expressions do not compile fails, as in the apiserver, the requests it
// matches according to its failurePolicy.
//
// # Validating webhooks run in parallel
//
// As in the apiserver's validating dispatcher, the validating webhooks that
// match a request are chosen one after the other (a match condition that fails
// under failurePolicy Fail answers 403 at once, before any call), then all are
// called at the same time through the WebhookClient, which must therefore be
// safe for concurrent use; timeouts overlap, so the request takes about as
// long as the slowest webhook. When every call has returned, the answer is the
// first error to have arrived: when several webhooks reject a request, which
// rejection the client sees depends on timing, in the apiserver and in Admit
// alike. Warnings are appended, and audit annotations added, in order of
// arrival (annotation keys carry the webhook's name, so only same-named
// webhooks in different configurations compete: the first to arrive keeps the
// key). A webhook that fails to answer under failurePolicy Ignore adds
// failed-open.validating.webhook.admission.k8s.io/round_0_index_<i>, where i
// counts matching webhooks only, in configuration order; a panicking
// WebhookClient fails the request with a 500 (or fails open). Review uids are
// drawn from Env.ReviewUID before the calls, in configuration order. Mutating
// webhooks are called one after the other.
//
// # Differences from kube-apiserver
//
//   - The HorizontalPodAutoscaler conversion reads only metadata.annotations
//     of the objects' metadata as a Go type: other metadata fields are copied
//     as they are, not checked or normalised by a typed round trip.
//   - A webhook's answer is converted back to the request's version at once;
//     the apiserver keeps the converted object until a later webhook needs
//     another version. Both agree when conversions round-trip (a
//     HorizontalPodAutoscaler's v1 form does not always: a CPU target a
//     webhook removed comes back from the object held, so a later webhook
//     registered for v1 is sent it again, where the apiserver sends the v1
//     object without it).
//   - params are presented as the apiserver presents them (params.go): a
//     built-in kind's param as its typed informer holds it
//     (schema.DefaultBuiltin's stored form, empty lists and maps null, no
//     managedFields), plain JSON with paramKind's apiVersion and kind in a
//     ValidatingAdmissionPolicy, the typed Go value (structs and maps that
//     compare with another type with "no such overload", no apiVersion or
//     kind) in a MutatingAdmissionPolicy, where a JSON Patch value holding
//     one fails as the apiserver's structpb conversion does; other kinds'
//     params as given. A param that does not decode into its Go type makes
//     the expressions that read it fail. Server-set fields (uid,
//     resourceVersion, a Service's clusterIP) and the defaults of admission
//     plugins (a Pod's tolerations) are what the caller supplies; a type
//     error of an apply configuration holding a typed value prints the
//     value as JSON, the apiserver's with Go syntax.
//   - ApplyConfiguration mutations merge with the kind's structured-merge-diff
//     type as the apiserver's do (built-in kinds from package schema's
//     catalogue, custom resources from Versions.CRDs): list-maps by key, sets
//     as sets, and "may not mutate atomic arrays, maps or structs" for atomic
//     lists, maps and structs the configuration sets. A custom resource whose
//     CRD is not in Versions.CRDs gets the deduced type (maps merged, lists
//     replaced); the apiserver always has the CRD's schema. A CEL null in the
//     configuration reaches SMD as the plugin's structpb.NullValue (0), so it
//     is refused at every typed position with the apiserver's words
//     (".data.v: expected string, got &value.valueUnstructured{Value:0}").
//   - Policies, bindings and webhook configurations are processed in name
//     order.
//   - TypeCheck resolves kinds from the built-in kinds served by default and
//     the CRDs it is given, with schemas from the OpenAPI v3 documents a real
//     1.37 apiserver serves (the status controller uses the Go definitions
//     they are generated from). Its type names end in the nanosecond of
//     TypeCheckOptions.Now, the apiserver's in the clock's.
//   - Kinds of versions a default apiserver does not serve (alpha, most beta)
//     and custom resources whose CRD is not in Versions.CRDs are not
//     defaulted after mutation.
//   - The strategy's own steps on an update (PrepareForUpdate: the generation
//     bump, status reset) and its kind-specific validation are not applied;
//     versions.NextGeneration and package schema model them.
package admission
