package apply

import (
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// gvkOf reads an object's apiVersion and kind as unstructured.GroupVersionKind does: an
// unparsable apiVersion gives the empty GVK.
func gvkOf(obj map[string]any) schema.GroupVersionKind {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(kind)
}

func metadataOf(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	return md
}

func metaString(obj map[string]any, key string) string {
	s, _ := metadataOf(obj)[key].(string)
	return s
}

// gvknn prints an object as the field manager's errors do: "namespace/name; gvk".
func gvknn(obj map[string]any) string {
	return metaString(obj, "namespace") + "/" + metaString(obj, "name") + "; " + gvkOf(obj).String()
}

// withoutManagedFields returns a shallow copy of obj (and of its metadata) without
// metadata.managedFields; obj itself is not changed. Objects without the field are returned as is.
func withoutManagedFields(obj map[string]any) map[string]any {
	md := metadataOf(obj)
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	nmd := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			nmd[k] = v
		}
	}
	out["metadata"] = nmd
	return out
}

// toModelMap is value.FromGoMap: a deep copy into the object model (callers may build objects
// with Go's other number types), so results never share memory with inputs.
func toModelMap(m map[string]any) map[string]any { return value.FromGoMap(m) }

// toModel is value.FromGo, toModelMap for any value.
func toModel(v any) any { return value.FromGo(v) }

// equalObjects compares two values of the object model, nil different from empty
// (value.EqualNilDistinct: the store's DeepEqualWithNilDifferentFromEmpty for unstructured
// objects).
func equalObjects(a, b any) bool { return value.EqualNilDistinct(a, b) }

// setManagedList sets metadata.managedFields of obj, which the caller owns, to list; a nil list
// removes the field, as the apiserver does when nothing is owned.
func setManagedList(obj map[string]any, list []any) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		if list == nil {
			return
		}
		md = map[string]any{}
		obj["metadata"] = md
	}
	if list == nil {
		delete(md, "managedFields")
	} else {
		md["managedFields"] = list
	}
}
