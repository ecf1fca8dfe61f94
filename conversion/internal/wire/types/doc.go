// Package types mirrors the type name of k8s.io/apimachinery/pkg/types.UID, which a
// ConversionReview's decoding errors name ("of type types.UID"); package wire says why its types
// are mirrored.
//
// # Usage
//
//	var uid types.UID = "7f1c..."
//
// # Invariants
//
// Types only, with no behaviour of their own beyond what the mirrored types decode; their names,
// package name, field order and tags must stay those of k8s.io v0.37.2.
//
// # Errors
//
// None here: decoding errors are the JSON decoder's, naming these types as the apiserver's.
package types
