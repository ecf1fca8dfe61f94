// Package wire holds the shapes of the ConversionReview responses a webhook sends, mirrored
// from k8s.io/apiextensions-apiserver and k8s.io/apimachinery field for field, JSON tag for JSON
// tag, in packages named as theirs (v1, v1beta1, types, runtime): decoding a malformed response
// into them with sigs.k8s.io/json fails with the apiserver's exact words ("json: cannot
// unmarshal number into Go struct field ConversionReview.response.uid of type types.UID").
// Nothing else belongs here.
package wire
