// Package schema knows the shape of Kubernetes objects the way kube-apiserver 1.37 does: the
// built-in kinds (a generated, embedded catalogue) and custom resources (read from their
// CustomResourceDefinitions), with what the write path derives from a shape — list and map
// semantics for apply, strategic-merge-patch metadata, unknown fields, defaults, validation.
//
// The built-in catalogue is generated from k8s.io/api, client-go's apply-configuration schemas,
// apiextensions-apiserver and kube-aggregator v0.37.2 by internal/gen and embedded: Builtin and
// BuiltinForResource give a Kind (resource, scope, subresources with their scale paths,
// discovery facts) whose SMDType is the structured-merge-diff type the apiserver's field manager
// uses, whose PatchMeta holds the strategic-merge-patch strategies and merge keys of k8s.io/api's
// struct tags (which differ from the server-side-apply keys in places), and whose Explain shows
// both for a field path. The catalogue is parsed once, on first use. It is the one resource
// table: group, versions, kind, plural, singular, short names, scope, subresources and verbs of
// every built-in kind come from it, and GuessResource is the one plural rule for kinds it does not
// know (meta.UnsafeGuessKindToResource's).
//
// Strategy is the rest of what a kind's REST strategy and storage decide on a write, by group and
// kind (BuiltinStrategy, Kind.Strategy; CustomResourceStrategy for apiextensions-apiserver's):
// unconditional updates, the generation rule (GenerationRule; package versions applies it), the
// subresources that go through a strategy or around it, graceful deletion, the default
// garbage-collection policy (package gc applies it), whether a DELETE answers with the object,
// the storage prefix, and the reset fields per subresource (package apply hands them to the field
// manager). It is hand-written from k8s.io/kubernetes/pkg/registry v1.37.2; every stored resource
// of the catalogue has one (TestBuiltinStrategyCoversCatalogue).
//
// Built-in defaulting (the Go types' decoding, SetDefaults_*, the internal round trip,
// encoding) is package schema/defaults, and the Go types of the built-in kinds as reflect and
// encoding/json see them (the JSON decoder's type errors, the serializer's field order) package
// schema/gotypes, both above this one.
//
// A CustomResourceDefinition (apiextensions.k8s.io/v1) is read by FromCRD into a CRD with one
// Version per spec.versions entry. A Version holds the schema as written (Props), its structural
// schema (Structural, KEP 1002: the shape, with x-kubernetes-list-type, list-map-keys,
// map-type, preserve-unknown-fields, int-or-string, embedded-resource, nullable, defaults and
// the x-kubernetes-validations rules kept for CEL) and the compiled OpenAPI Validator. The
// functions follow k8s.io/apiextensions-apiserver v0.37.2 step by step — structural-schema
// construction and rules, pruning, metadata coercion, defaulting, the kube-openapi schema
// validator with Kubernetes formats and validation ratcheting, list-set and list-map
// uniqueness, metadata validation — and agree with it on the differential suite in
// conformance/schemacrd (generated schemas and objects, the Gateway API CRDs and objects
// apiextensions ships for its ratcheting tests, and whole writes through the custom resource
// strategy, the structured-merge-diff types of the CRD OpenAPI builder and schemaconv).
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
// Functions never modify their inputs and return fresh values. CRD, Version, Structural, Props
// and Validator are read-only after construction and safe for concurrent use. Nothing reads the
// clock or the network. Patterns use Go's regexp (RE2, linear time), as the apiserver does.
// Schemas are followed to any depth a decoded CRD can have (the decoder stops at 10000 nested
// values, as the apiserver's does); schemas built in code nested deeper are refused.
//
// Not implemented here: CEL (x-kubernetes-validations rules, their static checks and cost
// limits are another package's), the conversion (webhook) checks of CRD validation, CRD
// updates (ValidateCustomResourceDefinitionUpdate, which lets an unchanged list of more than 8
// selectable fields stay), and the fields the apiserver generates on create (uid,
// creationTimestamp, resourceVersion). Where the apiserver dereferences a missing schema while
// checking a selectable field path (a step below additionalProperties: true, or below a schema
// that does not convert) and fails with a 500, FromCRD reports the path as not referring to a
// valid field.
//
// # Errors
//
// Validation failures are field.ErrorList values with apiextensions' exact messages; where the
// apiserver iterates Go maps (properties of an object, keys of embedded resources) it reports
// errors in random order, writepath in sorted key order. FromCRD returns a *status.Error: 400
// BadRequest for a CRD that does not decode into the API types, 422 Invalid (causes with
// apiextensions' fields and messages, including the spec.validation paths the apiserver reports
// when every version has the same schema). Version.Process and Coerce return 400 *status.Error
// values for what the apiserver rejects while decoding.
package schema
