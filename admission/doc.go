// Package admission is kube-apiserver 1.37's admission as pure functions: a
// compiled configuration (Go plugins, MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations, MutatingAdmissionPolicies and
// ValidatingAdmissionPolicies with their bindings) takes a request
// (operation, kind, resource, objects, user) through the mutating phase
// (NamespaceLifecycle, Go mutators, MutatingAdmissionPolicies, mutating
// webhooks, and the reinvocation of those with reinvocationPolicy IfNeeded)
// and the validating phase (Go validators, ValidatingAdmissionPolicies,
// validating webhooks, called in parallel), and gives the object that would
// be stored, the patch each mutator applied, the warnings and audit
// annotations, or the rejection worded as the apiserver words it. Between the
// phases the apiserver validates the object: the caller's step (package
// registry composes them), or Config.Validate when Admit runs the whole
// chain. Namespaces and params are read at request time through a Lookup the
// caller implements, so that the compiled chain is never rebuilt for them;
// versions are converted for matchPolicy Equivalent by the Converter the
// caller configures (conversion.Builtin for kube-apiserver's).
//
// # Usage
//
//	chain, err := admission.New(admission.Config{Objects: policies, Lookup: store,
//		Versions: admission.Versions{CRDs: crds, Converter: conversion.Builtin{CRDs: crds}}})
//	...
//	mut, err := chain.Mutate(ctx, req, nil)   // after decoding and defaulting
//	// ... validate mut.Object (schema, CEL rules, the kind's own rules) ...
//	req.Object = mut.Object
//	val, err := chain.Validate(ctx, req, nil) // err is a *status.Error (403/422/404/...) or nil
//	warnings := admission.ResponseWarnings(append(mut.RawWarnings, val.RawWarnings...))
//
// Admit runs both phases with Config.Validate in between (the whole chain in
// one call, for `writepath admit`, whose Validate is
// registry.ValidateObjectMeta; registry.Admit adds the registry's other steps):
//
//	res, err := chain.Admit(ctx, admission.Request{Operation: admission.Create, Kind: gvk, Resource: gvr,
//		Namespace: "ns", Name: "x", Object: obj})
//
// # Invariants
//
//   - New compiles every CEL expression once; a Chain is read-only afterwards
//     and safe for concurrent use. Requests compile nothing: a namespace or a
//     param written between two requests is read through the Lookup.
//   - Admit, Mutate and Validate never modify the request's objects and
//     return fresh values.
//   - Time, uids, random name suffixes and AdmissionReview uids come from
//     Config.Env; the only effect is the WebhookClient (HTTPSClient by
//     default, a real HTTPS POST trusting the caBundle), which must be safe
//     for concurrent use (validating webhooks are called in parallel).
//   - Policies, bindings and webhook configurations are processed in name
//     order, as the apiserver lists them.
//
// # Errors
//
// Rejections are *status.Error values with the apiserver's code, reason,
// message and causes: `configmaps "x" is forbidden: ValidatingAdmissionPolicy
// 'p' with binding 'b' denied request: ...` (422 Invalid unless the validation
// sets a reason), `admission webhook "w" denied the request: ...`, `Internal
// error occurred: failed calling webhook "w": ...` (failurePolicy Fail), 404
// for a missing namespace, and the registry steps' 400, 409 and 422. New
// fails only on objects it cannot use (unknown kinds, bad selectors); a
// policy whose expressions do not compile is stored, as by the apiserver, and
// fails the requests it matches according to its failurePolicy. Result
// carries the warnings on rejection too: Warnings as the response's Warning
// headers (ResponseWarnings: empty and repeated texts dropped, texts cut past
// 4096 runes), RawWarnings as the steps added them, to merge with other
// steps' warnings.
//
// # Fidelity notes
//
// CEL: expressions compile in plugin/cel's environments (object, oldObject
// and params dyn; request and namespaceObject of the declared
// kubernetes.AdmissionRequest and kubernetes.Namespace types, so
// `request.nope` does not compile, with the apiserver's message; authorizer
// everywhere but in messageExpressions); matchConditions see namespaceObject
// as null and evaluate variables afresh. The environments, the declared types
// and the composition of variables are package cel's (cel.NewComposition); the
// type checking kube-controller-manager does for status.typeChecking is package
// controllers/policystatus.
//
// matchPolicy Equivalent: rules are tried against the request's resource,
// then its equivalents (other versions of the stored resource, core and
// events.k8s.io Events, every version of Versions.CRDs); a match through an
// equivalent converts the objects to the kind served there, the
// AdmissionReview carries kind, resource and subResource as matched and
// request* as requested, and a webhook's patch or a policy's mutation is
// converted back into the object held (schema.OntoConverter), as recorded
// from kube-apiserver 1.37 (testdata/admission/realcluster-equivalent). A
// policy's mutation of a built-in kind is converted to the request's version
// before defaulting, so through another group or version it fails as the
// scheme's conversion does ("... is not suitable for converting to ...",
// "unknown conversion").
//
// Defaulting after mutation: a webhook's patched object and each policy
// mutation's result are decoded and defaulted at the version the webhook or
// policy saw (defaults.Builtin for built-in kinds; the CRD's structural
// defaults when it is in Versions.CRDs) before the next one sees it, as
// recorded in testdata/admission/realcluster-defaulting. A patched object
// that does not decode is a 500 whatever the failurePolicy, worded by
// gotypes.DecodeError; a JSONPatch mutation decodes strictly; an
// ApplyConfiguration that does not convert is the policy's error.
// ApplyConfiguration mutations merge with the kind's structured-merge-diff
// type (list-maps by key, sets as sets, "may not mutate atomic arrays, maps or
// structs"); a CEL null reaches it as the plugin's structpb.NullValue.
//
// Built-in plugin (Builtins): NamespaceLifecycle (404 for a missing
// namespace, 403 for a terminating one, the three system namespaces not
// deletable). The registry's steps around admission (the handler's namespace
// and name checks, system fields, optimistic concurrency, ObjectMeta
// validation) are package registry's: registry.Admit runs a chain with them.
//
// Validating webhooks run in parallel: the matching ones are chosen in order
// (a failing match condition under failurePolicy Fail answers 403 before any
// call), then called at once; the answer is the first error to arrive, so
// with several rejections which one the client sees depends on timing, in the
// apiserver and here alike. Warnings and audit annotations are added in order
// of arrival; failed-open annotations are indexed among the matching webhooks;
// review uids are drawn before the calls, in configuration order.
//
// # Differences from kube-apiserver
//
//   - A webhook's answer is converted back to the request's version at once;
//     the apiserver keeps the converted object until a later webhook needs
//     another version. They agree when conversions round-trip (a
//     HorizontalPodAutoscaler's v1 form does not always).
//   - params are presented as the apiserver presents them (params.go): a
//     built-in kind's as its typed informer holds it, plain JSON in a
//     ValidatingAdmissionPolicy, the typed Go value in a
//     MutatingAdmissionPolicy; server-set fields and admission plugins'
//     defaults are what the Lookup supplies; a type error of an apply
//     configuration holding a typed value prints the value as JSON, the
//     apiserver's with Go syntax.
//   - A custom resource whose CRD is not in Versions.CRDs gets a deduced
//     merge type (maps merged, lists replaced) and no defaulting after
//     mutation, nor do kinds of versions a default apiserver does not serve.
//   - The strategy's own steps on an update (PrepareForUpdate, the generation
//     bump) and its kind-specific validation are not applied here.
package admission
