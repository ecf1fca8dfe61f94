// Package validation is the validation kube-apiserver 1.37 runs on a built-in object in its REST
// strategy: Validate is the strategy's Validate on create, ValidateUpdate its ValidateUpdate
// (the status, resize, ephemeralcontainers, ... subresources' strategies with
// Options.Subresource), Warnings its WarningsOnCreate or WarningsOnUpdate. The object handed in
// is what the registry holds at that point: the request body after the typed round trip and
// defaulting (defaults.Builtin), since the apiserver validates the defaulted internal
// object. ObjectMeta is validated by package schema's ValidateObjectMeta; the kinds' own rules
// live here, each shared validator (quantities, resource requirements, containers, probes,
// volumes, affinity, tolerations, topology spread, ...) once.
//
// PrepareForCreate and PrepareForUpdate are a strategy's own effects on the object beyond what
// the registry does for every kind (resets, generation, system fields): fields dropped or
// derived. The registry applies them after the generation and before Validate; kinds without
// modelled effects get the object back unchanged. A kind's errors are what its strategy's Validate or
// ValidateUpdate and the declarative validation return; the generic ObjectMeta check
// rest.ValidateCreate/ValidateUpdate add around them (path-segment names) is the registry's.
// Errors that print alike are listed once, as the declarative validation's merge does.
//
// Which kinds are modelled: the dispatch table in kinds.go lists every kind with its own rules
// (they are listed below, under Kinds modelled); a kind not in it returns no errors and no
// warnings (not modelled yet). Feature gates are at their 1.37 defaults.
//
// # Usage
//
//	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
//	obj, err := defaults.Builtin(gvk, body, defaults.Options{Now: now}) // the typed round trip and defaults
//	if err != nil { ... }
//	if errs := validation.Validate(gvk, obj, validation.Options{}); len(errs) > 0 {
//		return status.Invalid(status.GroupKind{Kind: gvk.Kind}, name, errs)
//	}
//	warnings := validation.Warnings(gvk, obj, nil, validation.Options{})
//
// # Invariants
//
// Every function is pure: it reads its arguments, never mutates them, keeps no reference to
// them and returns fresh values. There is no package state; everything is safe for concurrent
// use. An object of any shape (even one the typed round trip would refuse) yields errors, never
// a panic.
//
// # Errors
//
// Validation errors are field.ErrorList values in the apiserver's order, with its types, paths,
// bad values and words; the registry wraps them in a 422 Invalid status. Where the apiserver's
// order depends on Go map iteration (resource names, node selector keys), the list is in
// sorted key order.
//
// # Kinds modelled
//
// Each with its differential row in conformance/defaults/validation: ConfigMap,
// Secret (types, immutable, the TLS key-pair warning), ServiceAccount (the
// enforce-mountable-secrets warning), Namespace (create, update, /status, /finalize), Service
// (create, update, /status and its warnings), Role, ClusterRole, RoleBinding, ClusterRoleBinding
// (with 1.37's enforced declarative rules, which come after the hand-written errors), Deployment,
// ReplicaSet, DaemonSet and StatefulSet (create, update, /status and the warnings; the pod
// template through ValidatePodTemplateSpec, StatefulSet's claim templates through
// PersistentVolumeClaimSpec), Job (create, update, /status with the transition rules of
// JobManagedBy, and the warnings; its PrepareForCreate, the generated selector, is the
// registry's), CronJob (create, update and the warnings; the schedule parsed as robfig/cron/v3
// parses it, the time zone loaded from the embedded database as kube-apiserver does; its /status
// strategy validates nothing), HorizontalPodAutoscaler (create, update, /status; the
// autoscaling/v2 rules, which v1 objects get only in part, see hpa.go), Lease, PriorityClass,
// PodDisruptionBudget (and its /status, MetaConditions), Ingress (create, update, /status and the
// warnings), IngressClass, NetworkPolicy (with its CIDR warnings), Endpoints, EndpointSlice (with
// its PrepareForCreate/PrepareForUpdate effect: v1 drops deprecatedTopology),
// PersistentVolumeClaim (create, update with the resize and bound-claim rules, /status, the
// warnings, and the data source normalisation of PrepareForCreate/PrepareForUpdate), StorageClass
// (with its enforced declarative immutability and the deprecated topology key warnings),
// PersistentVolume (create, update with the immutable source and node affinity, /status, the
// warnings, and the phase transition time its PrepareForCreate and /status PrepareForUpdate record
// from Options.Now), ResourceQuota (create, update, /status, the request-over-limit warnings),
// LimitRange, ReplicationController (create, update, /status and the warnings, with its enforced
// declarative rules; /scale is the registry's), ControllerRevision (data compared as a value, not
// as the bytes sent, see controllerrevision.go), Event of core v1 and of events.k8s.io/v1 (one
// strategy whose rules depend on the request's group: kindOf dispatches on it), Node (create,
// update, /status, the warnings, the scheduler annotations decoded as the apiserver decodes them,
// and the fields its PrepareForCreate/PrepareForUpdate drop).
//
// ValidatingAdmissionPolicyBinding and MutatingAdmissionPolicyBinding (their paramRef
// authorization, which asks the authorizer, is not modelled) are modelled too, and so are
// ValidatingAdmissionPolicy (create, update, /status), MutatingAdmissionPolicy,
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration (create, update, warnings):
// their CEL expressions are compiled by the Options.Expressions compiler (this package sits
// below package cel; registry passes admission.ExpressionCompiler), with the apiserver's
// environments and output types; with none, expressions are checked for presence only. The
// policies' paramKind authorization is not modelled.
//
// RuntimeClass (node.k8s.io; its handler's enforced declarative rules), CSIDriver, CSINode (and
// /status, whose storage health CSIVolumeHealth, off, drops unless stored), CSIStorageCapacity,
// VolumeAttachment (and /status; an inline volume spec through ValidatePersistentVolumeSpec's
// inline rules), VolumeAttributesClass, IPAddress, ServiceCIDR (and /status), FlowSchema and
// PriorityLevelConfiguration (and their /status; the mandatory objects' fixed specs) are
// modelled too.
//
// ResourceSlice (resource.k8s.io/v1; create, update, the driver-name warnings, and the fields
// PrepareForCreate/PrepareForUpdate drop under 1.37's disabled gates) is modelled with its
// enforced declarative rules (see resourceslice.go); its attributes, capacities and counters are
// validated in sorted key order, where the reference ranges over Go maps.
//
// ResourceClaim and ResourceClaimTemplate creates asking for admin access read the namespace
// through Options.Namespace (its resource.kubernetes.io/admin-access label must be "true"), and
// so does a claim /status granting it. A claim's /status (claimstatus.go: reservations, device
// status, the allocation, new or immutable, with the enforced declarative rules; its
// PrepareForUpdate's deallocated device status) is modelled but for the strategy's
// authorization of the resourceclaims/binding and resourceclaims/driver subresources, which
// asks the authorizer (not modelled: the caller is allowed).
//
// Of resource.k8s.io/v1, DeviceClass (create, update) is modelled: its device selectors are CEL
// compiled by Options.Expressions' DeviceSelector in the DRA environment (registry passes
// admission.ExpressionCompiler, which uses cel.CompileDeviceSelector), an unchanged list not
// compiled again; its enforced declarative rules replace the hand-written errors they cover by
// type, field and origin (merge).
//
// Pod (create, update, /status, /resize, /ephemeralcontainers, and the create warnings) and
// PodTemplate (create, update, warnings) are modelled; a workload validates its pod template with
// ValidatePodTemplateSpec (options from NewPodOptions on the old and new specs) and warns with
// PodTemplateWarnings. What of ValidatePodSpec is not modelled is listed on ValidatePodSpec.
// PodSubresourceChecks is the /resize and /ephemeralcontainers checks without the whole pod's
// validation, for callers that run nothing else.
package validation
