package admission

import (
	"github.com/writepath/writepath/schema"
)

// requestVersionTarget reports whether the mutating policy dispatcher converts
// the result of a mutation made on an object of kind from to the request's
// kind to before defaulting it: dispatchOne converts a typed (built-in)
// object to the request's group version (runtime.Scheme.ConvertToVersion)
// and defaults it there. Custom resources are not converted; a kind of
// another group fails the conversion (typedTargetError).
func requestVersionTarget(from, to GroupVersionKind) bool {
	if from == to || from.Group != to.Group || from.Kind != to.Kind {
		return false
	}
	sf := schema.GroupVersionKind{Group: from.Group, Version: from.Version, Kind: from.Kind}
	st := schema.GroupVersionKind{Group: to.Group, Version: to.Version, Kind: to.Kind}
	return schema.HasBuiltinDefaulting(sf) && schema.HasBuiltinDefaulting(st)
}

// convertMutated is dispatchOne for a MutatingAdmissionPolicy mutation whose
// result out, of the built-in kind from (the kind the policy matched the
// request as), is converted to to, the request's kind: out is decoded into
// from's Go type as step says (strict for a JSONPatch, the unstructured
// converter for an ApplyConfiguration) but not defaulted, converted into a
// fresh object of kind to, and defaulted there. The dispatcher does that to
// every result, an unchanged one included; later mutations of the same
// version see the converted object. before is the object the mutation was
// given. Errors are defaultMutated's.
func (c *Chain) convertMutated(from, to GroupVersionKind, before, out map[string]any, step decodeStep) (map[string]any, error) {
	sf := schema.GroupVersionKind{Group: from.Group, Version: from.Version, Kind: from.Kind}
	decoded, err := c.defaultBuiltin(sf, before, out, step, schema.DefaultOptions{SkipDefaulting: true, SkipInternalRoundTrip: true})
	if err != nil {
		return nil, err
	}
	conv, err := c.converter().Convert(decoded, from, to)
	if err != nil {
		return nil, err
	}
	st := schema.GroupVersionKind{Group: to.Group, Version: to.Version, Kind: to.Kind}
	return c.defaultBuiltin(st, conv, conv, decodeWebhookPatch, schema.DefaultOptions{})
}
