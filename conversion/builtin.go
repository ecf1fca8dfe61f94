package conversion

import (
	"fmt"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// Builtin converts objects between the versions kube-apiserver 1.37 serves of
// one kind, as its scheme and the apiextensions-apiserver do: an object
// already of the target kind is copied; custom resources of CRDs are converted
// as the None strategy does (apiVersion rewritten); the core v1 and
// events.k8s.io/v1 Events as kube-apiserver converts them (fields renamed);
// HorizontalPodAutoscalers between autoscaling/v1 and autoscaling/v2 through
// the internal version (what v1 cannot express kept in annotations); anything
// else fails as an unknown conversion. The custom resources of a CRD in Custom
// are converted by its Converter (New: its strategy, a conversion webhook
// included) instead.
//
// Builtin is a schema.OntoConverter: converting a HorizontalPodAutoscaler
// from v1 into an existing v2 object keeps that object's metrics, behavior,
// current metrics and conditions where the v1 object does not say them, as
// the admission dispatchers do. The zero value converts built-in kinds only.
// It is read-only and safe for concurrent use.
type Builtin struct {
	// CRDs are the CustomResourceDefinitions served; each version of one is
	// convertible to the others by the None strategy.
	CRDs []*schema.CRD
	// Custom are the converters of CRDs whose custom resources they convert
	// (in front of the None strategy of CRDs).
	Custom []*Converter
}

var _ schema.OntoConverter = Builtin{}

// Convert implements schema.Converter.
func (b Builtin) Convert(obj map[string]any, from, to schema.GroupVersionKind) (map[string]any, error) {
	return b.ConvertOnto(obj, nil, from, to)
}

// ConvertOnto implements schema.OntoConverter.
func (b Builtin) ConvertOnto(obj, base map[string]any, from, to schema.GroupVersionKind) (map[string]any, error) {
	if from.Group == to.Group && from.Kind == to.Kind {
		for _, c := range b.Custom {
			if s := c.CRD().Schema; s != nil && s.Group == from.Group && s.Names.Kind == from.Kind {
				return c.Convert(obj, to.Version)
			}
		}
	}
	if from == to {
		return value.DeepCopyMap(obj)
	}
	if from.Group == to.Group && from.Kind == to.Kind && b.crdVersion(from) && b.crdVersion(to) {
		out, err := value.DeepCopyMap(obj)
		if err != nil {
			return nil, err
		}
		out["apiVersion"] = to.APIVersion()
		return out, nil
	}
	if out, ok, err := convertEvent(obj, from, to); ok {
		return out, err
	}
	if out, ok, err := convertHPA(obj, base, from, to); ok {
		return out, err
	}
	return nil, fmt.Errorf("converting (%s) %s to %s: unknown conversion", from.APIVersion(), from.Kind, to.APIVersion())
}

// crdVersion reports whether gvk is a version of one of b's CRDs.
func (b Builtin) crdVersion(gvk schema.GroupVersionKind) bool {
	for _, crd := range b.CRDs {
		if crd != nil && crd.Group == gvk.Group && crd.Names.Kind == gvk.Kind && crd.Version(gvk.Version) != nil {
			return true
		}
	}
	return false
}
