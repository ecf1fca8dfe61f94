// Package jsonpatch decodes a JSON Patch document into operations exactly as
// gopkg.in/evanphx/json-patch.v4's DecodePatch does (encoding/json into a slice
// of maps of raw messages). It is named jsonpatch because encoding/json prints
// the target type in its errors ("jsonpatch.Patch") and the apiserver returns
// that text to clients.
//
// # Usage
//
//	ops, err := jsonpatch.Decode(patchJSON)
//
// # Invariants
//
// Pure; the operations hold copies of the raw members.
//
// # Errors
//
// encoding/json's errors, verbatim (the apiserver sends them as a 400).
package jsonpatch
