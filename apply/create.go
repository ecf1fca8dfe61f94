package apply

import (
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// createBase is the object a create starts from (the apiserver's scope.Creater.New, which the
// patcher merges into and the field manager compares with): from when the caller gives one;
// for a built-in kind typed by Builtin, the kind's zero object as its Go type encodes
// (defaults.Zero: spec and status present, so a create records no "." entry for them and
// the strategy's status reset leaves "status": {}); {apiVersion, kind} otherwise (custom
// resources, whose zero object is an empty Unstructured). The result is fresh.
func createBase(from map[string]any, types TypeConverter, gvk schema.GroupVersionKind) map[string]any {
	if from != nil {
		return toModelMap(from)
	}
	minimal := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind}
	if types != nil && types != Builtin {
		return minimal
	}
	if !defaults.Handles(gvk) {
		return minimal
	}
	k, err := schema.Builtin(gvk)
	if err != nil {
		return minimal
	}
	zero, err := defaults.Zero(k)
	if err != nil {
		return minimal
	}
	zero["apiVersion"], zero["kind"] = minimal["apiVersion"], minimal["kind"]
	return zero
}

// resetBase is the object a value reset restores from: the stored object, or for a create the
// object the create started from (its zero status, for built-in kinds).
func resetBase(stored, base map[string]any) map[string]any {
	if stored != nil {
		return stored
	}
	return base
}
