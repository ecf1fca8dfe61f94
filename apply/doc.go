// Package apply computes server-side apply and the field ownership of every other write exactly
// as kube-apiserver 1.37 does, offline.
//
// structured-merge-diff (SMD) is the engine: its merge.Updater merges an apply configuration into
// the live object and moves ownership between managers. Around it the apiserver puts layers, and
// this package reproduces each one with its exact error texts: the fieldManager check (422), the
// decoding of the live managedFields (500), the kind and version check of the configuration (400),
// kubectl's client-side-apply upgrade (the "kubectl" manager may take fields its last-applied
// annotation still matches) and last-applied refresh, before-first-apply (the fields of an object
// that had no managedFields), manager identity (manager, operation, apiVersion for Update entries,
// subresource; an empty name becomes "unknown"), timestamps (set only when the manager's fields or
// the object changed), metadata fields that are never owned, the reset fields of the endpoint, at
// most 10 Update managers (older ones folded into "ancient-changes" per apiVersion), the 409 with
// its message and causes, and the storage layer's rule that a write changing only timestamps keeps
// the old ones.
//
// # Usage
//
//	res, err := apply.Apply(apply.Request{
//		Live:    live,          // nil: the object does not exist and apply creates it
//		Config:  config,        // the apply configuration
//		Manager: "my-operator", // fieldManager
//		Now:     now,           // recorded in managedFields; never read from the clock
//	})
//	var conflict *apply.ConflictError
//	if errors.As(err, &conflict) { ... conflict.Conflicts, conflict.Status (the 409) ... }
//	res.Object // the stored object, with metadata.managedFields
//
// Update records the ownership of a create, PUT or non-apply PATCH whose result is already known.
// Scale computes a write through /scale (the autoscaler's path): the parent's managedFields are
// mapped to the Scale and back as the apiserver's ScaleHandler does. Types come from
// Request.Types: Builtin (every built-in kind), Deduced (kinds without a schema), or Types built
// from SMD parseable types; ConfigureCRD fills a request for a custom resource from its CRD (types
// of every version, resets, structural defaulting). ResetFields and ResetPaths give the reset
// fields of each built-in endpoint (the REST strategies of Kubernetes 1.37); StrategyReset the
// value reset of Pod /ephemeralcontainers and /resize, whose storage hands the field manager no
// reset fields at all (their strategies' include filters are unused in 1.37: recorded, an apply
// through them records ownership of everything it sets, while only the ephemeral containers, or
// the containers' resources and resizePolicy and the pod-level resources, are written).
//
// Validation: StrategyValidation gives the update validation of Pod /resize (ValidatePodResize:
// QoS class, requests and limits removed, containers added or renamed, changes other than cpu
// and memory, static and Windows pods, nodes without resize support) and /ephemeralcontainers
// (ValidatePodEphemeralContainersUpdate: the ephemeral containers' own checks, removal, and
// changes, with the apiserver's unified diff in the message), for Request.Validate; it runs
// after the strategy's value reset and its 422 is the request's answer (a conflict, 409, comes
// first, as in the apiserver). Of the validation of the whole pod both also run, only what a
// resize can break is modelled (requests against limits, pod-level resources against the
// containers'), and the ephemeral containers' own checks. Recorded:
// testdata/apply/recorded/podresize and podephemeral; compared with the apiserver's strategies
// in conformance/defaults/podvalidation.
//
// Dry run: the apiserver answers a dryRun=All apply (kubectl apply --server-side
// --dry-run=server) with the same merged object, managedFields (times included) and conflicts as
// the write (recorded in testdata/apply/recorded/dryrun); only the storage layer differs: a dry-run
// create has a uid and creationTimestamp but no resourceVersion, a dry-run update keeps the stored
// resourceVersion, and nothing is stored. This package's result is therefore the same for both.
// The uid of a dry-run create (random in the apiserver) is not this package's output: callers
// that print the storage answer inject it (the CLI: writepath apply --server-side --dry-run
// --uid, a random UUID by default), as admission's system-fields step takes Env.UID.
//
// Defaulting: after the merge the apiserver's field manager defaults the object
// (structuredMergeManager.Apply: TypedToObject, toVersioned, the scheme's defaulter,
// toUnversioned). Apply does the same: Request.Default when set (ConfigureCRD sets the CRD's
// structural defaulting), otherwise, for a built-in kind typed by Builtin, defaults.Builtin
// at the endpoint's version with Request.Now as the clock (SetDefaults_* functions, +default
// markers, the internal round trip and the typed object's encoding: {} for empty structs,
// canonical quantities). The defaulted fields are owned by nobody (managedFields are those of the
// merge); NoDefault turns it off, as the k8s.io/apimachinery field manager with a no-op
// defaulter behaves. Update does not default: its Object is the object the write produced, and
// the apiserver decodes and defaults a PUT or PATCH body before the field manager compares it,
// so the writer owns the defaulted fields. Pass the body through defaults.Builtin first
// (a strategic merge patch's result through schema.DefaultBuiltinUnstructured: the apiserver
// converts the patched map as it converts an apply's merged object, so an out-of-range int32
// wraps there too, where a PUT or a JSON or merge patch is refused).
// A create (Live nil), for Apply and Update alike, starts from what the apiserver's
// scope.Creater.New gives: for built-in kinds the zero object of the Go type (schema/defaults.Zero),
// so the fields it already has (spec, status) get no "." entry, the strategy's status reset
// leaves "status": {}, and before-first-apply compares with it too; {apiVersion, kind} for
// custom resources. Request.CreateFrom and UpdateRequest.CreateFrom override it (the bare field
// manager starts from an empty object). Recorded: testdata/defaults (TestUpdateOwnsDefaults
// replays the kubectl-create entries of 51 creates) and the apply recordings' created objects.
//
// Numbers: the merged object reaches the Go type through the apiserver's unstructured converter
// (schema.DefaultBuiltinUnstructured), not the JSON decoder a PUT body goes through, so an apply
// keeps what a PUT refuses. An int32 field beyond its range wraps: replicas 4294967297 is stored
// as 1, 2147483648 as -2147483648 (which the Deployment's validation, not modelled here, then
// rejects with a 422 naming -2147483648); an integral float converts (replicas 1e3 is 1000,
// 1e30 is 0); a fraction is the 500 "failed to convert new object (...) to proper version:
// unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to
// int32"; an IntOrString beyond int32 is that 500 with "json: cannot unmarshal number ... into
// Go value of type int32"; int64 fields keep every digit of an integer (a float form such as
// 9007199254740993.0 is already rounded to a float64 by the apiserver's decoding of the body).
// The ownership recorded is the merge's: the applier owns a list item under the key it sent, so
// re-applying a containerPort that wrapped adds an item each time, as the apiserver does; a
// re-apply of a wrapped scalar is a no-op. Recorded: testdata/apply/realcluster-numbers
// (replayed by TestRecordedNumbers).
//
// Beyond the apiserver: Explain turns a *ConflictError into a report (owners with operation,
// apiVersion, time and subresource, live and requested values, what forcing takes from whom);
// WouldConflict answers whether an apply would conflict, without building the merged object when
// the object exists with managedFields recorded at the endpoint's version (a comparison of the
// live object with the configuration: the other managers' fields it adds or changes; checked
// against the whole apply by a property test on conformance/fieldmanager's generators);
// PlanRename says what renaming an applier changes (the CLI: writepath owners --rename).
//
// # Invariants
//
// Apply and Update are pure: they never change their inputs, never keep references into them, and
// never read the clock; the same request gives the same bytes. They are safe for concurrent use.
// Apply runs SMD's Updater.Apply step by step itself, computing once the field sets the Updater
// computes twice and skipping the last pruning passes when their outcome is provably empty; its
// results are the Updater's (the differential suite compares them with the apiserver's chain).
// Several API versions: managers recorded at another apiVersion are compared after converting the
// object with Request.Convert; with no converter (or a version the converter reports unknown, or a
// kind the TypeConverter has no type for) their entries are dropped, as the apiserver drops
// entries of versions it no longer serves.
//
// # Errors
//
// Every error carries an HTTP status (it is or wraps a *status.Error): 400 for a configuration of
// the wrong kind or version or carrying managedFields, 409 *ConflictError for conflicts (message
// and causes as the apiserver words them; causes sorted by manager, where the apiserver's order is
// random), 422 for an invalid fieldManager, 500 for what the apiserver reports as internal (a
// configuration SMD cannot type, such as duplicate keys in a keyed list: "failed to create typed
// patch object (ns/name; apps/v1, Kind=Deployment): ...", undecodable live managedFields, or a
// merged built-in object that does not convert to its Go type: "failed to convert new object
// (ns/name; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured object
// to apps/v1, Kind=Deployment: cannot convert float64 to int32").
package apply
