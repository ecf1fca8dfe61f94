// Package codec reads and writes objects in writepath's object model: JSON and YAML in,
// deterministic JSON and YAML out, exactly as kube-apiserver 1.37 and kubectl do.
//
// An object is a map[string]any holding only nil, bool, int64, float64, string, []any and
// map[string]any. Decoding goes through the same libraries as the apiserver:
// sigs.k8s.io/json (case-sensitive; a number without '.' that fits int64 becomes int64, any
// other number float64; a number beyond float64's range is an error) and, for YAML,
// sigs.k8s.io/yaml's YAMLToJSON (YAML 1.1: yes/no/on/off are booleans, non-string keys become
// strings, a float such as 1.0 re-encodes as 1 and so decodes as int64 1, an integer beyond
// int64 becomes float64). No value is changed beyond what the apiserver itself would change.
// Encoding writes encoding/json's bytes (what the apiserver writes for unstructured objects),
// `kubectl -o json` and `kubectl -o yaml` output.
//
// # Usage
//
//	obj, err := codec.DecodeObject(body)            // one document, like a request body
//	docs, err := codec.ReadDocuments("-", os.Stdin) // a stream, like kubectl -f -
//	docs, err = codec.FlattenLists(docs)            // expand kind: List documents
//	out, err := codec.EncodeJSON(obj)               // compact, sorted keys
//	doc, err := codec.Options{AllowDuplicates: true, MaxBytes: 10 << 20}.Decode(body)
//
// Single-document decoding (Decode, DecodeValue, DecodeObject) sniffs JSON by a leading '{'
// or '[' unless Options.Format says otherwise; YAML input with several documents yields the
// first, as sigs.k8s.io/yaml does for a request body. Stream decoding (DecodeStream,
// DecodeDocuments, ReadDocuments) follows kubectl's YAMLOrJSONDecoder: a stream starting with
// '{' is concatenated JSON, anything else YAML documents split at "---" lines; empty and null
// documents are skipped.
//
// # Invariants
//
//   - Pure: no global state, no clock, safe for concurrent use. Inputs (byte slices, values)
//     are never modified; decoded values share nothing with the input.
//   - Bounded: input longer than Options.MaxBytes (default 3 MiB, the apiserver's request body
//     limit) is rejected before parsing; nesting deeper than 10000 levels (the reference
//     parsers' bound) or Options.MaxDepth fails in time linear in the input, never overflows the
//     stack.
//   - Deterministic: the same input gives the same value, warnings and error text; encoding sorts
//     map keys. Where the reference is not deterministic, writepath refuses to guess: two keys of
//     one YAML map that differ as YAML but become the same JSON key (1 and "1", true and "true")
//     are a KindDuplicate error, because sigs.k8s.io/yaml keeps one of them at random.
//   - Round trip: EncodeJSON(v) decodes to v, except that an integral float64 reads back as the
//     equal int64 (as after an apiserver storage round trip); after one round trip the encoding
//     is a fixpoint.
//
// # Errors
//
// Every error is a *Error with a Kind (Syntax, Duplicate, NotObject, TooLarge, TooDeep,
// Unsupported, Read), the document index, absolute line and field path where known, and
// StatusCode/Reason for an API server: 413 RequestEntityTooLarge for oversized input, 500
// InternalError for values an encoder cannot write, 400 BadRequest otherwise. Detail keeps the
// reference library's words (`yaml: line 3: could not find expected ':'`,
// `json: duplicate field "metadata.name"`); JSON syntax errors, which carry only a byte offset,
// are given a "json: line N:" prefix. Duplicate keys are errors by default (the apiserver's
// fieldValidation=Strict); Options.AllowDuplicates keeps the last value and reports each
// duplicate in Document.Warnings in the words of the apiserver's fieldValidation=Warn warnings.
package codec
