// Package handlers decodes a JSON Patch the way kube-apiserver's PATCH handler
// pre-checks it when field validation is Warn or Strict. The package is named
// after k8s.io/apiserver/pkg/endpoints/handlers because encoding/json prints the
// Go type of the decoding target in its errors ("[]handlers.jsonPatchOp"), and
// clients see that text verbatim.
package handlers

import (
	kjson "sigs.k8s.io/json"
)

// jsonPatchOp has the fields and JSON names of the apiserver's own type.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// StrictDecode decodes data as the apiserver's []jsonPatchOp with
// sigs.k8s.io/json's strict decoder. It returns the strict errors (unknown or
// duplicate fields) and the decoding error, both with the apiserver's text.
func StrictDecode(data []byte) (strict []error, err error) {
	var v []jsonPatchOp
	return kjson.UnmarshalStrict(data, &v)
}
