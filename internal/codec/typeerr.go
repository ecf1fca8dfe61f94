package codec

import gojson "encoding/json"

// typeError is the error sigs.k8s.io/json returns for a number out of float64 range
// (it aliases encoding/json's UnmarshalTypeError).
type typeError = gojson.UnmarshalTypeError
