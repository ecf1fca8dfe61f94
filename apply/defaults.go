package apply

import (
	"github.com/writepath/writepath/schema"
)

// defaulterFor returns what the field manager's objectDefaulter does to the merged object of req
// (structuredMergeManager.Apply: TypedToObject, toVersioned, Default, toUnversioned): req.Default
// when set; for a built-in kind typed by Builtin (req.Types nil or Builtin), the scheme's
// defaulting of the endpoint's version (schema.DefaultBuiltin, with req.Now as the apiserver's
// clock), which also gives the object the shape the typed Go value encodes to; nil otherwise
// (custom resources get theirs from ConfigureCRD, kinds typed by Deduced or Types have none).
//
// The defaulted fields are not owned by the applier: the merge has already recorded ownership,
// as in the apiserver. A merged object that does not decode into the Go type (an unparsable
// quantity, a string where an integer belongs) is returned as merged: the apiserver would fail
// the request while converting it, which this package does not model.
func defaulterFor(req Request, gvk schema.GroupVersionKind) func(map[string]any) map[string]any {
	if req.Default != nil {
		return req.Default
	}
	if req.Types != nil && req.Types != Builtin {
		return nil
	}
	if !schema.HasBuiltinDefaulting(gvk) {
		return nil
	}
	now := req.Now
	return func(obj map[string]any) map[string]any {
		out, err := schema.DefaultBuiltin(gvk, obj, now)
		if err != nil {
			return obj
		}
		return out
	}
}

// NoDefault is a Request.Default that leaves the merged object as it is: what a field manager
// built with a no-op defaulter returns (k8s.io/apimachinery's tests and differential suites
// that drive the library without a scheme).
func NoDefault(obj map[string]any) map[string]any { return obj }
