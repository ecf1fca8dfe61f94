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
