package schema

// Converter converts an object between versions of its kind: obj, of kind
// from, to kind to (another version in its group, or a group sharing its
// storage), as the apiserver's object convertor does. It must not modify obj
// and returns a fresh value. Package conversion implements it for the
// conversions kube-apiserver makes (conversion.Builtin, and a CRD's strategy);
// the packages that need a conversion (admission's matchPolicy Equivalent)
// take one through their configuration.
type Converter interface {
	Convert(obj map[string]any, from, to GroupVersionKind) (map[string]any, error)
}

// ConverterFunc is a Converter made of a function.
type ConverterFunc func(obj map[string]any, from, to GroupVersionKind) (map[string]any, error)

// Convert implements Converter.
func (f ConverterFunc) Convert(obj map[string]any, from, to GroupVersionKind) (map[string]any, error) {
	return f(obj, from, to)
}

// OntoConverter is a Converter whose conversion can depend on the object it
// converts into. kube-apiserver's admission dispatchers convert a webhook's or
// policy's result back into the internal object they hold (the request's
// object before the webhook or policy ran), not into a fresh one; most
// conversions set every field and do not care, but HorizontalPodAutoscaler
// autoscaling/v1 -> v2 leaves the fields v1 cannot express (and its
// annotations do not carry) as they were.
type OntoConverter interface {
	Converter
	// ConvertOnto converts obj, of kind from, to kind to, into base (an object
	// of kind to; nil converts into a fresh object, as Convert). It modifies
	// neither obj nor base and returns a fresh value.
	ConvertOnto(obj, base map[string]any, from, to GroupVersionKind) (map[string]any, error)
}
