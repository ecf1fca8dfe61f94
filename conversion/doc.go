// Package conversion converts custom resources between the versions of their
// CustomResourceDefinition exactly as kube-apiserver 1.37 does, talks to real conversion
// webhooks, and checks what the apiserver never checks: whether a conversion loses data.
//
// A custom resource lives in one storage version and is read and written through every served
// version. On a write the apiserver decodes, defaults and admits the object at the version of
// the request, then its storage codec converts it to the storage version and prunes it by that
// version's schema (ToStorage). On a read (get, list item by item, watch, and the response of a
// write) the stored object is coerced and defaulted at the version it was stored in, converted
// to the version of the request and pruned by that version's schema (Read). Conversion itself
// is the CRD's strategy: None rewrites apiVersion only, so a field the target schema does not
// specify is dropped unless preserved (x-kubernetes-preserve-unknown-fields); Webhook sends a
// ConversionReview (apiextensions.k8s.io/v1, or v1beta1 when the CRD lists it first) and
// validates the answer the way the apiserver does — the response uid, the result status, the
// number of objects, apiVersion and kind, unchanged name, namespace and uid, metadata changes
// only in labels and annotations (the rest of the metadata is restored from the original).
// A version that is not served has no route: 404 "404 page not found" (CRD.Plan). Deprecated
// versions carry a warning on every request (CRD.Warnings): the version's deprecationWarning,
// or "<group>/<version> <Kind> is deprecated; use <group>/<newer> <Kind>".
//
// Built-in kinds are converted as kube-apiserver's scheme converts them (Builtin, a
// schema.Converter): HorizontalPodAutoscaler autoscaling/v1 <-> v2 through the internal version,
// what v1 cannot express kept in the autoscaling.alpha.kubernetes.io annotations; core/v1 and
// events.k8s.io/v1 Events by renaming fields; a CRD's versions by the None strategy, or by its
// Converter when Builtin.Custom has one. Admission takes it through its configuration for
// matchPolicy Equivalent.
//
// Beyond the apiserver: Registry runs hub-and-spoke converters in process through the same
// webhook protocol, CheckRoundTrip reports each field lost by A → storage → A and
// storage → B → storage, and PlanMigration predicts a read-then-write storage migration and
// the objects a failing converter strands.
//
// # Usage
//
//	crd, err := conversion.FromCRDBytes(crdYAML)      // 422 for a CRD the apiserver rejects
//	c, err := conversion.New(crd, conversion.Options{}) // Webhook: HTTPS client from clientConfig
//	stored, err := c.ToStorage(admitted)               // what etcd gets
//	obj, err := c.Read(stored, "v1beta1")              // what a GET through v1beta1 returns
//	warnings := crd.Warnings("v1beta1")                // deprecation warning headers
//	v1, err := conversion.Builtin{}.Convert(hpaV2, autoscalingV2HPA, autoscalingV1HPA) // built-in kinds
//	for _, rt := range c.CheckRoundTrip(objs) { ... }  // rt.Changes: lost/changed fields by path
//
// To test hub-and-spoke converters without a webhook:
//
//	reg := conversion.NewRegistry("v1")
//	reg.Register("v1beta1", conversion.Spoke{ToHub: up, FromHub: down})
//	c, err := conversion.New(crd, conversion.Options{Caller: reg})
//
// # Invariants
//
// Functions never modify their inputs and return fresh values. CRD is read-only and a
// Converter holds no mutable state: both are safe for concurrent use (a Registry once its
// spokes are registered). Nothing reads the clock or generates randomness: the uid of a
// ConversionReview comes from Options.UID or is derived from the request's content. The only
// network access is the webhook Client's, and only for the Webhook strategy; Caller replaces
// it.
//
// # Errors
//
// FromCRD returns *status.Error values: 400 for a CRD that does not decode, 422 Invalid with
// apiextensions' messages (zero or two storage versions: "must have exactly one version marked
// as storage version"; spec.conversion rules at their internal paths,
// spec.conversion.webhookClientConfig...). Conversion failures are *Error values whose text is
// the apiserver converter's: "request to convert CR to an invalid group/version: ...",
// "conversion webhook for <gvk> failed: ...", "conversion webhook for <gvk> returned 1
// objects, expected 2", "... returned invalid object: must have the same name: a != b".
// WriteError, ReadError and ListReadError turn them into what clients receive, as recorded
// from kube-apiserver 1.37: a write answers 500 with the message and no reason; a get answers
// 500 InternalError "Internal error occurred: StorageError: corrupt object, ...: <message>"; a
// list answers 500 StorageReadError "failed to read one or more <plural>.<group> from the
// storage: ... (and N more)".
// Metadata errors of the coercion after a conversion are 400 *status.Error values from package
// schema. A request through an unserved version is a *NotServedError (404).
//
// Malformed webhook answers fail with the apiserver's words down to the Go type names of its
// JSON errors ("json: cannot unmarshal number into Go struct field
// ConversionResponse.response.uid of type types.UID"): the answer is decoded into mirrors of
// the apiserver's types (conversion/internal/wire).
//
// Not modelled: service references (no cluster to resolve them; give a URL), the apiserver's
// webhook authentication (kubeconfig-based client credentials), HTTP proxies other than the
// environment's, and the scale subresource's autoscaling/v1 conversion.
package conversion
