// Package runtime mirrors k8s.io/apimachinery's runtime.RawExtension decoding, so that a
// ConversionReview's objects decode, and fail, as the apiserver's do; package wire says why its
// types are mirrored.
//
// # Usage
//
//	var r runtime.RawExtension
//	err := json.Unmarshal(b, &r) // r.Raw holds b, unless b is null
//
// # Invariants
//
// Types only, with no behaviour of their own beyond what the mirrored types decode; their names,
// package name, field order and tags must stay those of k8s.io v0.37.2.
//
// # Errors
//
// None here: decoding errors are the JSON decoder's, naming these types as the apiserver's.
package runtime
