// Package merge computes JSON merge patches (RFC 7386) and strategic merge
// patches exactly as kube-apiserver 1.37 applies them and as kubectl 1.37
// creates them, including kubectl's client-side apply.
//
// JSON merge patch: ApplyMergePatch is the apiserver's
// application/merge-patch+json path (gopkg.in/evanphx/json-patch.v4 MergePatch
// with the handler's checks); CreateMergePatch and CreateThreeWayMergePatch
// are what kubectl sends (for custom resources, kubectl apply uses the
// three-way form with the last-applied configuration as original).
//
// Strategic merge patch: ApplyStrategic, CreateStrategic and
// CreateThreeWayStrategic port k8s.io/apimachinery/pkg/util/strategicpatch over
// schema-driven patch metadata (the PatchMeta interface, which schema's
// built-in catalogue satisfies) instead of Go types. A kind without patch
// metadata (a custom resource) is refused with the apiserver's 415.
//
// Client-side apply: ClientSideApply computes kubectl apply's patch and
// result from the kubectl.kubernetes.io/last-applied-configuration
// annotation.
//
// # Usage
//
//	res, err := merge.ApplyMergePatch(live, []byte(`{"spec":{"replicas":3}}`), merge.Options{})
//	p, err := merge.CreateThreeWayMergePatch(lastApplied, config, live)
//
// # Invariants
//
// Functions are pure and safe for concurrent use; they never modify their
// arguments and return fresh values: no map or list of a result is shared
// with an argument (strings are immutable and may be; the strings a result
// takes from a strategic patch body share one private copy of that body). Output bytes are deterministic
// (encoding/json's sorted keys, as the reference writes them).
//
// # Errors
//
// Apply functions return *Error: Status is the apiserver's answer (400
// BadRequest for undecodable patches and misused directives, 413 for bodies
// over 3 MiB, 415 for strategic merge patch on a kind without metadata, 422
// for results that are not objects, strict field validation failures and
// the strategic-merge-patch errors the apiserver maps to 422), Cause the
// underlying error with apimachinery's text. Creation functions return
// apimachinery's errors (*ConflictError, *PreconditionError, ...).
package merge
