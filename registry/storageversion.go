package registry

import (
	"fmt"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// A built-in resource served at versions whose objects differ (autoscaling/v1 and v2
// HorizontalPodAutoscalers) is stored in one of them, its strategy's StorageVersion, as
// kube-apiserver stores it: a read converts the stored object to the request's version, a write
// stores the conversion of the object it made, and the kind's rules validate the object in the
// storage version (the internal version's shape, so errors name its paths). Field ownership
// recorded at the other version is carried through conversions (apply.Request.Convert, a
// schema.Converter).

// storageGVK is the version objects of the endpoint are stored in, and whether it differs from
// the request's.
func (e *endpoint) storageGVK() (schema.GroupVersionKind, bool) {
	if e.crd != nil || e.strategy.StorageVersion == "" || e.strategy.StorageVersion == e.gvk.Version {
		return e.gvk, false
	}
	return schema.GroupVersionKind{Group: e.gvk.Group, Version: e.strategy.StorageVersion, Kind: e.gvk.Kind}, true
}

// convertBuiltin converts obj (a built-in object, of the version its apiVersion says) to the
// version of to.
func convertBuiltin(obj map[string]any, to schema.GroupVersionKind) (map[string]any, error) {
	av, _ := obj["apiVersion"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil {
		return nil, err
	}
	kind, _ := obj["kind"].(string)
	from := schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
	if from == to {
		return obj, nil
	}
	return conversion.Builtin{}.Convert(obj, from, to)
}

// inStorageVersion is obj in the endpoint's storage version (obj itself when it is stored as
// written or already is).
func (h *handler) inStorageVersion(obj map[string]any) (map[string]any, error) {
	to, differs := h.ep.storageGVK()
	if !differs || obj == nil {
		return obj, nil
	}
	out, err := convertBuiltin(obj, to)
	if err != nil {
		return nil, status.InternalError(fmt.Errorf("converting to the storage version: %w", err))
	}
	return out, nil
}

// writesInStorageVersion converts the objects of writes to their resources' storage versions.
func (h *handler) writesInStorageVersion(writes []Write) ([]Write, error) {
	if h.ep.crd != nil {
		for i := range writes {
			if writes[i].Resource != h.ep.Resource || writes[i].Object == nil {
				continue
			}
			o, err := h.crToStorage(writes[i].Object)
			if err != nil {
				return nil, err
			}
			writes[i].Object = o
		}
		return writes, nil
	}
	if _, differs := h.ep.storageGVK(); !differs {
		return writes, nil
	}
	for i := range writes {
		if writes[i].Resource != h.ep.Resource || writes[i].Object == nil {
			continue
		}
		o, err := h.inStorageVersion(writes[i].Object)
		if err != nil {
			return nil, err
		}
		writes[i].Object = o
	}
	return writes, nil
}

// builtinVersionConverter is the field manager's converter for a built-in kind stored in another
// version: ownership recorded at either served version is kept.
func builtinVersionConverter(gvk schema.GroupVersionKind) schema.Converter {
	return schema.ConverterFunc(func(obj map[string]any, _, to schema.GroupVersionKind) (map[string]any, error) {
		if to.Group != gvk.Group {
			return nil, fmt.Errorf("%w: %s", apply.ErrVersionUnknown, to.APIVersion())
		}
		out, err := convertBuiltin(obj, schema.GroupVersionKind{Group: to.Group, Version: to.Version, Kind: gvk.Kind})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", apply.ErrVersionUnknown, err)
		}
		return out, nil
	})
}

// ToServedVersion returns obj, a stored built-in object, in apiVersion (a version its kind is
// served at) when its resource is stored in another version, as a watch of that version sends
// it; obj itself otherwise. cluster converts watch events with it.
func ToServedVersion(obj map[string]any, apiVersion string) (map[string]any, error) {
	if av, _ := obj["apiVersion"].(string); av == apiVersion {
		return obj, nil
	}
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseAPIVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	to := schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
	if s, ok := schema.BuiltinStrategy(to); !ok || s.StorageVersion == "" {
		return obj, nil
	}
	return convertBuiltin(obj, to)
}
