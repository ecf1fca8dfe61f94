// Package handlers decodes a JSON Patch the way kube-apiserver's PATCH handler
// pre-checks it when field validation is Warn or Strict. The package is named
// after k8s.io/apiserver/pkg/endpoints/handlers because encoding/json prints the
// Go type of the decoding target in its errors ("[]handlers.jsonPatchOp"), and
// clients see that text verbatim.
//
// # Usage
//
//	strict, err := handlers.StrictDecode(patchJSON)
//
// # Invariants
//
// Pure; decodes into a private value.
//
// # Errors
//
// The decoder's errors, verbatim (the apiserver wraps them as 400 "error decoding patch: ...").
package handlers
