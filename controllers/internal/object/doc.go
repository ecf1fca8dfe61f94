// Package object holds the object-model accessors the controllers share: metadata fields,
// controller references, Pod readiness and availability as k8s.io/kubernetes
// pkg/api/v1/pod reads them, and RFC 3339 times as metav1.Time stores them.
//
// # Usage
//
//	if object.PodAvailable(pod, minReadySeconds, opts.Now) { ... }
//	ref, ok := object.ControllerOf(rs) // the controller ownerReference, ok false when none
//
// # Invariants
//
// Accessors read their arguments and never modify them; there is no package state. A value of
// the wrong type where a field is expected reads as absent, never a panic.
//
// # Errors
//
// None: a missing or malformed field is its zero value (an unparsable time is the zero time).
package object
