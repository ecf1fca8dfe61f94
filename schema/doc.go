// Package schema is what kube-apiserver 1.37 knows of a kind before it writes an object of it:
// the kind's row of the resource table, its REST strategy, and its shape — a structural schema —
// with what the write path derives from a shape: list and map semantics for apply,
// strategic-merge-patch metadata, unknown fields, pruning, defaulting and validation. A built-in
// kind has all three from the embedded catalogue; a custom resource from its
// CustomResourceDefinition. Each of these facts is stated here once, and every other package
// reads it from here.
//
//   - The resource table: Builtin and BuiltinForResource give a Kind (group, versions, kind,
//     plural, singular, short names, scope, subresources with their scale paths, verbs,
//     discovery facts); GuessResource is the one plural rule for kinds nobody declared
//     (meta.UnsafeGuessKindToResource's). A Kind's SMDType is the structured-merge-diff type of
//     the apiserver's field manager, its PatchMeta the strategic-merge-patch strategies and merge
//     keys of k8s.io/api's struct tags (which differ from the server-side-apply keys in places),
//     and Explain shows both for a field path.
//   - Strategies: Strategy is what a kind's REST strategy and storage decide on a write, by group
//     and kind (BuiltinStrategy, Kind.Strategy; CustomResourceStrategy for custom resources):
//     unconditional updates, the generation rule (GenerationRule; package versions applies it),
//     the subresources that go through a strategy or around it, graceful deletion, the default
//     garbage-collection policy (package gc applies it), whether a DELETE answers with the
//     object, the storage prefix, and the reset fields per subresource (package apply hands them
//     to the field manager). Every stored resource of the catalogue has one.
//   - Shapes: a Structural is a structural schema (KEP 1002): the type of every node, with
//     x-kubernetes-list-type, list-map-keys, map-type, preserve-unknown-fields, int-or-string,
//     embedded-resource, nullable, defaults and the x-kubernetes-validations rules kept for
//     CEL. FromCRD reads a CustomResourceDefinition (apiextensions.k8s.io/v1) into a CRD with one
//     Version per spec.versions entry, holding the schema as written (Props), its Structural and
//     the compiled OpenAPI Validator; Version.Process takes an object of it through what the
//     apiserver does on decode and write: metadata coercion through ObjectMeta, pruning,
//     defaulting, validation with ratcheting, list-set and list-map uniqueness, metadata
//     validation.
//
// Built-in defaulting (the Go types' decoding, SetDefaults_*, the internal round trip, encoding)
// is package schema/defaults, the built-in kinds' strategy validation package
// schema/validation, and the Go types of the built-in kinds as reflect and encoding/json see
// them (the JSON decoder's type errors, the serializer's field order) package schema/gotypes:
// all three above this one, reading its table.
//
// # Usage
//
//	crd, err := schema.FromCRDBytes(crdYAML) // 422 *status.Error for a CRD the apiserver rejects
//	if err != nil { ... }
//	v := crd.Version("v1")
//	res, err := v.Process(schema.Request{Object: obj, Old: old, FieldValidation: schema.FieldValidationStrict})
//	if err != nil { ... }                  // 400: strict field validation, undecodable metadata
//	store(res.Object)                      // pruned, metadata normalised, defaulted
//	warn(res.Warnings)                     // unknown/duplicate fields under Warn, deprecations, finalizers
//	if len(res.Errors) > 0 { return v.Invalid(res.Object, res.Errors) } // the apiserver's 422
//
//	k, _ := schema.Builtin(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
//	st, _ := k.Strategy()            // st.Generation.Compare: [spec metadata.annotations]
//	plural, _ := schema.GuessResource("Widget") // "widgets", for a kind nobody declared
//
// Request.Subresource "status" is a write to the status subresource (ValidateStatusUpdate);
// Version.Read is the storage decoding (malformed metadata dropped, defaulting on read).
// The steps are also available one by one: Version.Coerce (decode-time: root metadata through
// ObjectMeta, Prune, non-nullable nulls, embedded metadata), Default, Validator.Validate and
// ValidateUpdate (ratcheting), ValidateListSetsAndMaps, ValidateEmbeddedResources,
// Version.ValidateCreate and ValidateUpdate (what the custom resource strategy validates),
// FieldValidationFindings (Strict/Warn/Ignore over duplicate and unknown fields; for built-in
// kinds UnknownFields finds the unknown paths over Kind.SMDType, as strict decoding into the Go
// types does). Version.SMDType is the structured-merge-diff type the apiserver's field manager
// uses for the custom resource (list and map semantics for apply, deduced types where the schema
// preserves unknown fields); SMDSchema builds it from any structural schema. Version.Explain
// describes a field path of a custom resource with the same FieldInfo as Kind.Explain: its
// server-side-apply shape from that type, the structural schema's type, nullable, default and
// x-kubernetes extensions, and no strategic-merge-patch strategy (the apiserver refuses
// strategic merge patches of custom resources with a 415).
//
// # Invariants
//
// Functions never modify their inputs and return fresh values. Kind, Strategy, CRD, Version,
// Structural, Props and Validator are read-only after construction and safe for concurrent use.
// The catalogue is parsed once, on first use; there is no other package state. Nothing reads
// the clock or the network. Patterns use Go's regexp (RE2, linear time), as the apiserver does.
// Schemas are followed to any depth a decoded CRD can have (the decoder stops at 10000 nested
// values, as the apiserver's does); schemas built in code nested deeper are refused.
//
// # Errors
//
// Validation failures are field.ErrorList values with apiextensions' exact messages. FromCRD
// returns a *status.Error: 400 BadRequest for a CRD that does not decode into the API types, 422
// Invalid (causes with apiextensions' fields and messages, including the spec.validation paths
// the apiserver reports when every version has the same schema). Version.Process and Coerce
// return 400 *status.Error values for what the apiserver rejects while decoding. Builtin and
// BuiltinForResource return a *NotFoundError (404 NotFound) for a kind or resource the catalogue
// does not hold; BuiltinStrategy and Kind.Strategy say ok false where a kind has no strategy.
//
// # Fidelity notes
//
// The catalogue is generated by internal/gen from k8s.io/api, client-go's apply-configuration
// schemas, apiextensions-apiserver and kube-aggregator v0.37.2 and embedded. The strategies are
// hand-written from k8s.io/kubernetes/pkg/registry v1.37.2 (TestBuiltinStrategyCoversCatalogue).
// The CRD functions follow k8s.io/apiextensions-apiserver v0.37.2 step by step —
// structural-schema construction and rules, pruning, metadata coercion, defaulting, the
// kube-openapi schema validator with Kubernetes formats and validation ratcheting — and agree
// with it on the differential suite in conformance/schemacrd (generated schemas and objects, the
// Gateway API CRDs and objects apiextensions ships for its ratcheting tests, and whole writes
// through the custom resource strategy, the structured-merge-diff types of the CRD OpenAPI
// builder and schemaconv).
//
// Where the apiserver iterates Go maps (properties of an object, keys of embedded resources) it
// reports errors in random order, writepath in sorted key order. Where it dereferences a missing
// schema while checking a selectable field path (a step below additionalProperties: true, or
// below a schema that does not convert) and fails with a 500, FromCRD reports the path as not
// referring to a valid field.
//
// Not here: CEL (x-kubernetes-validations rules, their static checks and cost limits are package
// cel's), the conversion (webhook) checks of CRD validation, CRD updates
// (ValidateCustomResourceDefinitionUpdate, which lets an unchanged list of more than 8 selectable
// fields stay), and the fields the apiserver generates on create (uid, creationTimestamp,
// resourceVersion).
package schema
