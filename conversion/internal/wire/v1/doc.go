// Package v1 mirrors the apiextensions.k8s.io/v1 ConversionReview and the meta/v1 types it
// embeds, field for field and JSON tag for JSON tag, so that decoding a webhook's answer fails
// with the apiserver's words; package wire says why its types are mirrored.
//
// # Usage
//
//	var review v1.ConversionReview
//	err := json.UnmarshalCaseSensitivePreserveInts(body, &review) // sigs.k8s.io/json
//
// # Invariants
//
// Types only, with no behaviour of their own beyond what the mirrored types decode; their names,
// package name, field order and tags must stay those of k8s.io v0.37.2.
//
// # Errors
//
// None here: decoding errors are the JSON decoder's, naming these types as the apiserver's.
package v1
