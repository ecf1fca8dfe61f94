package apply

import (
	"fmt"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// defaulterFor returns what the field manager's objectDefaulter does to the merged object of req
// (structuredMergeManager.Apply: TypedToObject, toVersioned, Default, toUnversioned): req.Default
// when set; for a built-in kind typed by Builtin (req.Types nil or Builtin), the scheme's
// defaulting of the endpoint's version (defaults.Builtin with Options.Unstructured, with req.Now as the
// apiserver's clock), which also gives the object the shape the typed Go value encodes to; nil
// otherwise (custom resources get theirs from ConfigureCRD, kinds typed by Deduced or Types
// have none). The merged object reaches the Go type through the unstructured converter, not the
// JSON decoder: an integer beyond an int32 field's range wraps (4294967297 becomes 1), an
// integral float converts, a float with a fraction fails (see defaults.Builtin with Options.Unstructured).
//
// The defaulted fields are not owned by the applier: the merge has already recorded ownership,
// as in the apiserver. A merged object that does not decode into the Go type (an unparsable
// quantity, invalid base64 in a []byte field, 2.5 in an integer field) fails the request as the
// apiserver's conversion to the versioned type does: "unable to convert unstructured object to
// <gvk>: <why>", which Apply wraps into its 500.
func defaulterFor(req Request, gvk schema.GroupVersionKind) func(map[string]any) (map[string]any, error) {
	if req.Default != nil {
		d := req.Default
		return func(obj map[string]any) (map[string]any, error) { return d(obj), nil }
	}
	if req.Types != nil && req.Types != Builtin {
		return nil
	}
	if !defaults.Handles(gvk) {
		return nil
	}
	now, keep := req.Now, req.KeepEmptyBytes
	return func(obj map[string]any) (map[string]any, error) {
		out, err := defaults.Builtin(gvk, obj, defaults.Options{Now: now, Unstructured: true, KeepEmptyBytes: keep})
		if err != nil {
			return nil, fmt.Errorf("unable to convert unstructured object to %s: %s", gvk, defaults.ConverterCause(err))
		}
		return out, nil
	}
}

// NoDefault is a Request.Default that leaves the merged object as it is: what a field manager
// built with a no-op defaulter returns (k8s.io/apimachinery's tests and differential suites
// that drive the library without a scheme).
func NoDefault(obj map[string]any) map[string]any { return obj }
