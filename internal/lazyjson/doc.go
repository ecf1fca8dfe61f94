// Package lazyjson renders the text kube-apiserver 1.37's patcher holds after a JSON merge patch
// or a JSON Patch (RFC 6902) of a built-in object: the bytes it quotes in the 422 it answers when
// the patched object does not decode ("patch: Invalid value: \"{...}\": json: cannot unmarshal
// ..."; "strict decoding error: unknown field ...").
//
// # Model
//
// The apiserver patches text, not objects: it encodes the live object as JSON (a built-in in its
// Go struct's field order), then gopkg.in/evanphx/json-patch.v4 applies the patch to that text
// lazily. A value is kept as the text it was read from until the patch has to look inside it;
// an object the patch looked inside is written back as a Go map, with its keys sorted. So the
// result's key order depends on which objects the patch went through:
//
//   - MergePatch decodes the document's top level and every object the patch merges into;
//     untouched values keep their text. A value the patch inserts where the document had none
//     (or null) is decoded all the way down, its nulls pruned; a value replacing a non-object
//     likewise; a non-object patch value replacing an object keeps its text.
//   - ApplyPatch decodes the top level and every container on an operation's path; values
//     added or replaced keep the operation's text; "test" decodes the value it compares; "copy"
//     writes the source as it renders at that moment.
//
// Text is re-emitted as encoding/json.Marshal does: compacted, with <, > and & escaped.
//
// # Usage
//
//	out, err := lazyjson.MergePatch(docText, patchBody)
//	out, err := lazyjson.ApplyPatch(docText, patchBody)
//
// # Invariants
//
// The inputs are not modified; results are fresh bytes. No package state: safe for concurrent
// use. Work is linear in the size of the texts times the depth of the patch's paths.
//
// # Errors
//
// An error means the patch does not apply the way the library applies it (malformed text, a
// missing path, a failed test): callers that already applied the patch with the writepath
// engines fall back to their own rendering.
package lazyjson
