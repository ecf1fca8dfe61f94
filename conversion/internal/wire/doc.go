// Package wire holds the shapes of the ConversionReview responses a webhook sends, mirrored
// from k8s.io/apiextensions-apiserver and k8s.io/apimachinery field for field, JSON tag for JSON
// tag, in sub-packages named as theirs (v1, v1beta1, types, runtime), so that decoding a
// malformed response fails with the apiserver's exact words ("json: cannot unmarshal number
// into Go struct field ConversionResponse.response.uid of type types.UID").
//
// # Usage
//
//	var w v1.ConversionReview
//	err := json.UnmarshalCaseSensitivePreserveInts(body, &w) // sigs.k8s.io/json, as the apiserver
//
// # Invariants
//
// Types only (and RawExtension's UnmarshalJSON, which keeps the bytes of anything but null):
// no behaviour of their own. Their names, packages, field order and tags must stay those of
// k8s.io v0.37.2; conformance/conversion checks the resulting error texts.
//
// # Errors
//
// None here: decoding errors are sigs.k8s.io/json's.
package wire
