// Package patch applies and creates RFC 6902 JSON Patches exactly as
// kube-apiserver 1.37 applies them to a PATCH request with Content-Type
// application/json-patch+json (and to a mutating webhook's patch).
//
// The apiserver does not implement the RFC: it runs
// gopkg.in/evanphx/json-patch.v4 with its own limits, and clients observe that
// library's behaviour. ApplyJSONPatch reproduces it operation for operation:
// negative and zero-padded array indices are accepted, "replace" of a missing
// member adds it, "copy" from a missing member and "add" without a value insert
// null, "test" compares JSON text (so "\u0041" is not "A", 1.0 is not 1, and a
// literal "<" never matches a stored one because the server encodes it as
// \u003c), operations on the whole document ("" path) fail except "replace"
// and "test", and some inputs make the server panic. Every such case is proven
// against the reference in conformance/jsonpatch (README.md lists them).
// github.com/evanphx/json-patch/v5, even with explicit ApplyOptions, differs
// from v4 on most of these points, so the apply path is this package's own
// model of v4; v5 serves RFC-conformant application (ApplyRFC6902).
//
// # Usage
//
//	res, err := patch.ApplyJSONPatch(live, []byte(`[{"op":"replace","path":"/spec/replicas","value":3}]`), patch.Options{})
//	if err != nil {
//		var pe *patch.Error // pe.Status is what the apiserver answers
//		...
//	}
//	use(res.Object, res.Warnings)
//
//	ops, err := patch.CreateJSONPatch(before, after) // a webhook's response patch
//
// # Invariants
//
// Functions are pure and safe for concurrent use: they never modify their
// arguments and return values that share nothing with them. The same input
// gives the same output and the same bytes. Bad input yields an error, never a
// panic; work is bounded by the operation limit (10,000), the copy limit
// (3 MiB) and the body limit (3 MiB).
//
// # Errors
//
// Errors are *Error: Status is the *status.Error the apiserver sends (400
// BadRequest for a body that is not valid JSON or not a list of operations,
// 413 RequestEntityTooLarge beyond the limits, 422 Invalid "the server
// rejected our request due to an error in our request" for an operation that
// does not apply, 422 with a "patch" cause when the result is not an object or
// strict field validation fails, 500 where the server itself panics) and Cause
// is the library's own text ("testing value /a failed: test failed"), matchable
// with errors.Is against ErrTestFailed, ErrMissing and ErrInvalidIndex. Where
// the apiserver's library panics, the server sends no status at all (it
// resets the HTTP/2 stream); the error is then a synthetic 500 whose cause is
// ErrServerPanics.
package patch
