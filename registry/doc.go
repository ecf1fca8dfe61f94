// Package registry is kube-apiserver 1.37's request path composed once, as a pure function: a
// request and the world it sees give the response the client receives and the writes storage
// makes.
//
// # Usage
//
//	resp, writes, err := registry.Handle(ctx, world, registry.Request{
//		Method: "PATCH", Path: "/apis/apps/v1/namespaces/demo/deployments/web",
//		ContentType: "application/strategic-merge-patch+json", Body: patch, Now: now,
//	})
//	// resp.Code, resp.Warnings (`299 - "unknown field \"spec.x\""`), resp.Body (the object or a
//	// metav1.Status); writes: put this object, delete that one (none on dryRun=All or errors)
//
// Every step is a function of a lower floor (schema, versions, patch, merge, managedfields, cel,
// apply, admission, gc); this package decides their order, which is the apiserver's. The
// steps of a write, with the file of k8s.io/apiserver (or k8s.io/kubernetes,
// apiextensions-apiserver) each one mirrors:
//
//  1. Routing: the URL names a built-in resource served by default or a served version of a CRD,
//     its scope and subresource (pkg/endpoints/request/requestinfo.go, installer.go); anything
//     else is the router's 404, a verb the route lacks its 405.
//  2. Negotiation and limits: Accept (406), Content-Type (415: the serializers for create and
//     update; the patch types, without strategic merge patch for custom resources), the 3 MiB
//     body limit (413) (pkg/endpoints/handlers/rest.go limitedReadBody, negotiation/).
//  3. Options: the query decoded and validated as CreateOptions, UpdateOptions, PatchOptions or
//     DeleteOptions (dryRun, fieldManager, fieldValidation, force; 422 "CreateOptions.meta.k8s.io
//     "" is invalid: ...") (handlers/create.go, update.go, patch.go, delete.go).
//  4. Decode, or patch: the body read with the endpoint's kind as default, the API version
//     checked (400); a PATCH applies JSON Patch, merge patch or strategic merge patch to the live
//     object (patch, merge), or server-side apply merges it (apply; create by apply when the
//     object does not exist) (handlers/patch.go).
//  5. Typed round trip (built-in kinds: the Go type's decoding and the scheme's defaulting,
//     defaults.Builtin; a value it refuses is a 400 for a body, a 422 naming the patch for a
//     patched object, in the decoder's words, gotypes.DecodeError) or the structural schema's
//     coercion, pruning and defaulting (custom resources, schema.Version.Coerce and Default);
//     unknown and duplicate fields under fieldValidation (default Warn: warnings; Strict: the
//     error) (k8s.io/apimachinery serializer/json, apiextensions-apiserver customresource_handler.go).
//  6. Identity: the namespace of the object against the URL's (400), on create the system fields
//     a client cannot set wiped, on update the name against the URL (400), after a patch the
//     patcher's checkName (400), the uid a PUT carries as a storage precondition (409), a uid in
//     an apply that creates (409) (rest/meta.go, handlers/update.go, patch.go).
//  7. Field manager: managedFields of the write (apply.Update; the Apply and Update managers of
//     apply.Apply), which never records the fields the endpoint's strategy resets as owned
//     (endpoints/handlers/fieldmanager, apply); their values are reset in 9.
//  8. Mutating admission: NamespaceLifecycle on create (404 for a missing namespace, 403 for a
//     terminating one); on a Pod create LimitRanger's defaults (limitranger.go), ServiceAccount
//     (the default service account, its token volume; 403 for a missing one), Priority and
//     DefaultTolerationSeconds (podadmission.go);
//     MutatingAdmissionPolicies and mutating webhooks (admission). Every modelled admission
//     plugin, mutating or validating (AdmissionPlugins), is skipped where the World disables it
//     (AdmissionPluginDisabler, kube-apiserver's --disable-admission-plugins): a disabled
//     plugin changes and refuses nothing, and a disabled policy or webhook plugin's
//     configuration objects are not compiled.
//  9. Storage fields and strategy (registry/generic/registry/store.go Create and Update,
//     rest/create.go BeforeCreate, rest/update.go BeforeUpdate): on create a uid, the
//     creationTimestamp and generateName's name; on update optimistic concurrency (versions:
//     422 without resourceVersion unless the kind allows unconditional updates, 409 when stale)
//     and the stored fields a client cannot change; the scope's namespace; generation (versions:
//     1 on create, bumped by the kind's rule on update); the strategy's value resets
//     (PrepareForCreate, PrepareForUpdate; apply.Prepare): the status on a create and on an
//     update of the main resource, everything but status on /status — after mutating
//     admission, which so sees what the client sent there and whose writes there are reset
//     (recorded: admission-order) — then the update validation of Pod /resize and
//     /ephemeralcontainers, and after the strategy the storage layer's rule that keeps
//     managedFields timestamps when nothing else changed (apply.KeepTimesOnNoop). Between the system fields and the
//     strategy the Service REST allocates (BeginCreate, BeginUpdate; service.go): IP families on
//     a single-stack cluster, node ports from ServiceNetwork's range (taken: the stored
//     Services'), and cluster IPs as kube-apiserver's MultiCIDRServiceAllocator does: from the
//     ServiceCIDRs (those Ready and not being deleted, of the cluster's family; a world without
//     any ServiceCIDR allocates from ServiceNetwork's range), an address being taken when an
//     IPAddress of its name exists (whoever made it) or a stored Service holds it. Each address
//     is allocated by creating its IPAddress through Handle itself as the apiserver's loopback
//     client (LoopbackUser, manager "kube-apiserver"; labels ipaddress.kubernetes.io/ip-family
//     and managed-by ipallocator.k8s.io, spec.parentRef the Service), so its writes come before
//     the Service's; a write failing after that (validation, admission, a taken name) returns
//     the IPAddress's creation and deletion with its error response (the transaction's Revert,
//     which watchers see); an update to ExternalName deletes the IPAddresses before the
//     Service's write, a Service's deletion (DELETE, a collection, the update removing its last
//     finalizer, on the object or /status) after it, for the addresses some ServiceCIDR holds.
//     A dry run creates nothing: a requested address is checked against the first range only
//     (the dry-run allocator: "the provided IP (...) is not in the valid range"), a drawn one is
//     the range's network address. 422 in the allocator's words ("provided IP is already
//     allocated", "the provided network does not match the current range"), 500 for a full
//     range. Answers of Services go through the store's Decorator (an ExternalName Service shows
//     no internalTrafficPolicy; watch events keep it, as the real server's watch cache sends them:
//     recorded, ipaddress/ipaddress-by-hand).
//  10. Validation: for custom resources the structural schema, list sets and maps, metadata,
//     embedded resources and the x-kubernetes-validations rules (schema, cel); for built-in kinds
//     ObjectMeta (schema.ValidateObjectMeta and ValidateObjectMetaUpdate) and the kind's own rules
//     (schema/validation, per subresource), in one 422 naming the object's kind; then the kind's
//     warnings (WarningsOnCreate, WarningsOnUpdate). On a create the strategy's Validate runs
//     first and the common ObjectMeta validation (names as path segments) only when it passed;
//     on an update (and /status) the common validation (ValidateObjectMetaAccessor, then
//     ValidateObjectMetaAccessorUpdate) comes first and the strategy's ValidateUpdate after it.
//     The k8s.io/kubernetes strategies merge that list declaratively (FilterCoveredHandwrittenErrors,
//     through ToAggregate): each message once. The custom resource, CustomResourceDefinition and
//     APIService strategies do not: their errors are concatenated, each of their
//     ValidateObjectMetaDeclaratively calls keeping its own messages once, so a bad label on an
//     update is listed three times for a custom resource or CRD (common, common update,
//     the strategy's update rules) and four times for an APIService (whose ValidateUpdate also
//     validates the whole object as a create); recorded: dupcauses.
//  11. Validating admission: the built-in validating plugins (LimitRanger's min, max and ratio
//     checks on Pods and claims, PodSecurity, ..., NodeDeclaredFeatureValidator and
//     PodResizeValidator last; plugins.go), then ValidatingAdmissionPolicies
//     and validating webhooks (admission).
//  12. Storage: 409 AlreadyExists on create, 500 for a create carrying a resourceVersion, a write
//     that changes nothing is not stored; the object gets World.NextResourceVersion and is
//     answered in the request's version (201 on create, 200 otherwise).
//
// DELETE reads DeleteOptions from the body or the query and runs gc.Delete (graceful deletion,
// preconditions, the orphan and foregroundDeletion finalizers the propagation policy adds,
// deletionTimestamp and deletionGracePeriodSeconds; the cascade itself is the garbage
// collector's), then validating admission (store.go Delete). DELETE on a collection deletes each
// listed object. GET answers an object, a subresource (/scale as an autoscaling/v1 Scale) or a
// list.
//
// # The world
//
// World is the caller's: cluster implements it over its store, the CLI over files (NewStatic),
// a custom API server over its storage. Its duties:
//
//  1. Get returns the stored object or nil, never an error for a missing object; a returned
//     object is not modified by Handle and must not be modified by the caller while Handle runs.
//     Objects of a custom resource are stored in their CRD's storage version: writes convert
//     to it, reads convert from it to the request's version (strategy None rewrites apiVersion,
//     and takes an object stored at another version of the CRD as it is; strategy Webhook calls
//     the conversion webhook through the converter of a World implementing Conversions, as
//     below); a built-in resource whose strategy names a StorageVersion
//     (HorizontalPodAutoscaler: autoscaling/v2) is stored in it, and its objects are converted
//     to the request's version on reads and to the storage version in the writes (the kind's
//     rules validate the storage version's shape, field ownership is kept at both versions);
//     other built-in objects are taken to be at the request's version.
//  2. List returns the stored objects of a resource in a namespace ("" for every namespace or a
//     cluster-scoped resource), in any order (Handle sorts them by namespace and name).
//  3. CRD returns the CustomResourceDefinition serving group and plural resource, or nil; a
//     CRD's versions' Served flags decide which versions are routed.
//  4. Admission returns the admission configuration objects and param objects, and the webhook
//     client: Handle compiles them per request, split into the mutating and the validating
//     phase. With no client no webhook is called (each fails as its failurePolicy says).
//  5. NewUID and GenerateName are the only sources of identifiers; they are called only for
//     creates (and for admission reviews' uids).
//  6. NextResourceVersion is called once for each object Handle returns in writes, and never on a
//     dry run or an error. Between Handle and storing the writes no other write to what Handle
//     read may land, or the optimistic concurrency Handle checked is void: the caller serialises
//     writes, or stores each with a compare-and-swap on the object as Handle read it and answers
//     the request again when one fails (cluster does). A storage that learns the revision only at
//     its commit (etcd) returns a placeholder that differs from every resourceVersion Handle read,
//     and the caller answers Stored(req, resp, promised -> stored revisions) after storing.
//  7. Storing the writes is the caller's: Handle only returns them, in order.
//  8. Conversions (optional) gives the converter of a CRD whose conversion strategy is Webhook
//     (conversion.New over the caller's webhook client). Handle then converts a custom resource
//     as apiextensions-apiserver's storage codec does: the object a write made is converted to
//     the storage version by a ConversionReview (without resourceVersion, as etcd holds it;
//     pruned by the storage version's schema) and stored so, and read back through the
//     request's version for the answer (a dry run too); gets, lists, the live object of updates
//     and patches, and the field manager's conversions for managers recorded at other versions
//     go through the webhook whenever the versions differ. The webhook's failures are the
//     apiserver's: a write's is 500 with the converter's message and no reason
//     ("conversion webhook for <group>/<version>, Kind=<kind> failed: ..."), a get's the
//     storage's corrupt-object InternalError, a list's a StorageReadError naming every object
//     that failed (conversion.WriteError, ReadError, ListReadError, recorded from
//     kube-apiserver 1.37 in testdata/conversion/realcluster-webhook). Admission's matchPolicy
//     Equivalent converts through the same converter (and AdmissionConfig.Converters). A World
//     without Conversions converts every custom resource as strategy None.
//
// # Invariants
//
// Handle is pure apart from World: it never modifies the Request or what World returns, reads
// no clock (Request.Now is the time), no randomness and no network (webhooks go through the
// World's client). Responses are deterministic: object bodies are JSON with sorted keys (the
// apiserver writes Go struct order; compare by meaning), Status bodies are byte for byte the
// apiserver's.
//
// # Errors
//
// Every answer the client can see is a Response: a refused request is the metav1.Status the
// apiserver sends, with its code, and err is nil. err is non-nil only when World failed or
// writepath could not process the request for an internal reason; the Response is then the 500
// the apiserver would send and there are no writes.
//
// # Not modelled
//
// The kinds' own validation rules that schema/validation does not model yet (ObjectMeta is
// validated for every kind), the strategies' PrepareForCreate effects other than
// resets and generation beyond the Pod, Namespace and Service ones and those schema/validation's
// PrepareForCreate and PrepareForUpdate model, built-in admission plugins
// other than NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority,
// DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection,
// PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning,
// ClusterTrustBundleAttest, CertificateSubjectRestriction, DefaultIngressClass, PodTopologyLabels
// (Pod creates with spec.nodeName and Bindings to a Node; podtopology.go),
// NodeDeclaredFeatureValidator (nodefeatures.go), PodResizeValidator (podresize.go) and
// ResourceQuota (NodeDeclaredFeatureValidator's ResourceSlice check runs only with the
// DRANodeAllocatableResources feature, alpha and off in 1.37, and is not modelled; a resize
// applied by server-side apply has its init containers' quantities compared as written
// canonically, not as the request spelled them; ResourceQuota runs with the default configuration — no limited
// resources — and checks several quotas in name order, where kube-apiserver's informer order
// is random, so with two refusing quotas the message may name the other; the DRA
// extended-resource charges of ResourceClaims are not modelled (controllers/resourcequota);
// PodGroupProtection is default on but inert, its
// GenericWorkload feature being off in 1.37; PodSecurity runs with the default configuration
// only — no exemptions, no admission configuration file; the certificate plugins ask
// kube-apiserver's authorizer as the review kinds do, and CertificateSigning tells an empty
// status.certificate from none only in the request's object, not in a stored one: kube-apiserver's
// protobuf storage keeps an empty certificate written over none as a new revision, after which
// every /status write of a user without "sign" is refused, while writepath's JSON objects drop
// it and the write changes nothing (recorded: testdata/cluster/scenarios/certificates.yaml); LimitRanger
// visits a namespace's LimitRanges by name, and the violations of one bound naming several
// resources by resource name, where kube-apiserver's order is its informer cache's and Go
// map order, so with several LimitRanges or resources the message may differ in order), list
// resourceVersions and selectors, watch, protobuf and CBOR bodies, pods/eviction and pods/log,
// namespaces/finalize. The review kinds are answered
// (reviews.go), with these differences: the reviews' field and label selectors
// (resourceAttributes.fieldSelector, labelSelector) are validated but not passed to the
// authorizer (RBAC ignores them), and where several bindings allow a request or a
// SelfSubjectRulesReview lists several bindings' rules, writepath visits the bindings by name
// while kube-apiserver visits its informer cache in no defined order, so the reason may name
// another binding and the rules come in another order. Handle itself never refuses a request for
// want of RBAC permission: kube-apiserver's authorization filter is not modelled.
//
// # Reviews
//
// A create of a review kind is answered, not stored (no writes; no uid, creationTimestamp or
// resourceVersion; 201), after the field manager and mutating admission and with validating
// admission before the answer, as the review RESTs do:
//   - SubjectAccessReview, LocalSubjectAccessReview (spec.user, groups, uid, extra) and
//     SelfSubjectAccessReview (the requesting user): status from kube-apiserver's authorizer
//     with --authorization-mode=RBAC: the system:masters group is allowed with no reason, then
//     package rbac over the World's stored ClusterRoleBindings, RoleBindings, ClusterRoles and
//     Roles; a request no rule allows has allowed false and the reason RBAC gives for it, prefixed
//     "rbac: " as the apiserver's authorizer chain does (a missing role:
//     `rbac: RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`), or no reason.
//   - SelfSubjectRulesReview: a new review (empty spec) with the requesting user's rules in
//     spec.namespace as RBAC lists them, incomplete false, RBAC's errors as evaluationError;
//     400 "no namespace on request" without a namespace.
//   - SelfSubjectReview: a new review, created now, with the requesting user's userInfo.
//   - TokenReview: 400 "token is required for TokenReview in authentication" without a token;
//     else the World's Authenticator (an optional interface) decides, audience-agnostic as a
//     static token file is: authenticated for the review's audiences (the API audiences when
//     it names none) that are API audiences, status.user and audiences set; otherwise
//     status.error "invalid bearer token". A World without an Authenticator gets the review back
//     as sent, as from an apiserver without a token authenticator.
//
// The review resources serve only a create on their collection: another verb there is 405, an
// item path 404, as the apiserver's routes.
package registry
