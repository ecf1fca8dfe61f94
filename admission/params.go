package admission

import (
	"reflect"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// The `params` variable, as kube-apiserver 1.37 presents a param object.
//
// The policy source reads params through an informer: for a resource of the
// client-go shared informer factory (the built-in kinds, except those of
// apiextensions.k8s.io and apiregistration.k8s.io) the factory's typed
// informer, whose objects are the stored Go values decoded from protobuf,
// with an empty TypeMeta and, by kube-apiserver's transform, without
// managedFields; for every other kind a dynamic informer of unstructured
// objects, as the apiserver serves them.
//
// The validating dispatcher wraps a param with an empty TypeMeta in
// wrappedParam, whose ToUnstructured gives the object's unstructured form
// with apiVersion and kind set from the policy's paramKind: so a typed param
// is plain JSON in a ValidatingAdmissionPolicy (kind and apiVersion present,
// comparing a map with a string is false). The mutating dispatcher hands the
// typed object itself to CEL, which wraps it by reflection
// (SchemalessTypedToVal): Go structs and maps that compare with another type
// with "no such overload", and no kind or apiVersion.
//
// Both read the Go value, not the JSON a client sent: a built-in param is
// first brought to its stored form with defaults.Builtin (fields the
// type does not have dropped, non-omitempty fields present with their zero
// values, defaults applied, quantities canonical, times to the second; a
// no-op for an object read from a server), then empty lists and maps become
// null (protobuf keeps no empty repeated field or map) and numbers of float
// fields become doubles, as ToUnstructured gives them.

// typedInformerKind returns the built-in kind whose params come from a typed
// informer: served by default, and in client-go's shared informer factory.
func typedInformerKind(pk *paramKind) (*schema.Kind, bool) {
	if pk == nil {
		return nil, false
	}
	group, version := "", pk.apiVersion
	if i := strings.IndexByte(pk.apiVersion, '/'); i >= 0 {
		group, version = pk.apiVersion[:i], pk.apiVersion[i+1:]
	}
	switch group {
	case "apiextensions.k8s.io", "apiregistration.k8s.io":
		// Not in client-go's informer factory: the dynamic informer.
		return nil, false
	}
	k, err := schema.Builtin(schema.GroupVersionKind{Group: group, Version: version, Kind: pk.kind})
	if err != nil || !k.ServedByDefault || k.Resource == "" {
		return nil, false
	}
	return k, true
}

// builtinParamScope is the RESTMapper's scope of a built-in paramKind
// (served by default or not): namespaced or not, and whether it is known.
func builtinParamScope(pk *paramKind) (namespaced, known bool) {
	gv, err := schema.ParseAPIVersion(pk.apiVersion)
	if err != nil {
		return false, false
	}
	k, err := schema.Builtin(gv.WithKind(pk.kind))
	if err != nil || k.Resource == "" {
		return false, false
	}
	return k.Namespaced, true
}

// paramView presents the params of one compiled policy: to a mutating or a
// validating policy, each param object once (the Chain keeps the objects of
// its Config, unmodified, for its lifetime, so their identity is the key;
// the values are immutable and shared by concurrent evaluations).
type paramView struct {
	mutating bool
	cache    sync.Map // uintptr of the param's map -> value
}

func (v *paramView) value(param map[string]any, pk *paramKind) any {
	if v == nil {
		return paramCELValue(param, pk, false)
	}
	key := reflect.ValueOf(param).Pointer()
	if x, ok := v.cache.Load(key); ok {
		return x
	}
	x := paramCELValue(param, pk, v.mutating)
	v.cache.Store(key, x)
	return x
}

// paramCELValue is the `params` variable for param, of the policy's
// paramKind pk, in a mutating (MutatingAdmissionPolicy) or validating policy.
func paramCELValue(param map[string]any, pk *paramKind, mutating bool) any {
	k, ok := typedInformerKind(pk)
	if !ok {
		return celValue(param)
	}
	stored, node, err := storedParam(k, param)
	if err != nil {
		// The apiserver could not have stored such an object.
		return types.NewErr("param %s %s: %v", k.GVK.Kind, paramName(param), err)
	}
	if !mutating {
		// wrappedParam: the unstructured object with paramKind's TypeMeta.
		stored["apiVersion"], stored["kind"] = pk.apiVersion, pk.kind
		return celValue(stored)
	}
	delete(stored, "apiVersion")
	delete(stored, "kind")
	return cel.TypedValueOf(stored, node)
}

func paramName(param map[string]any) string {
	if ns := getString(param, "metadata", "namespace"); ns != "" {
		return ns + "/" + getString(param, "metadata", "name")
	}
	return getString(param, "metadata", "name")
}

// storedParam is param as the typed informer holds it, in its unstructured
// form, with the schema of its kind (nil when the OpenAPI catalogue has
// none).
func storedParam(k *schema.Kind, param map[string]any) (map[string]any, *openAPINode, error) {
	// The clock only defaults DeviceTaint.timeAdded, which a stored object has.
	stored, err := defaults.ForKind(k, param, defaults.Options{})
	if err != nil {
		return nil, nil, err
	}
	if md, ok := stored["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	node := paramSchema(k.GVK)
	if node != nil {
		normalizeStored(stored, node)
	}
	return stored, node, nil
}

// openAPINode is a schema of the built-in kinds' OpenAPI (cel.BuiltinOpenAPI).
type openAPINode = cel.OpenAPISchema

var paramSchemas sync.Map // schema.GroupVersionKind -> *openAPINode (nil: none)

// paramSchema is the resolved OpenAPI schema of a built-in kind, cached.
func paramSchema(gvk schema.GroupVersionKind) *openAPINode {
	key := schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	if n, ok := paramSchemas.Load(key); ok {
		return n.(*openAPINode)
	}
	var node *openAPINode
	if cat, err := cel.BuiltinOpenAPI(); err == nil {
		node, _ = cat.SchemaFor(key)
	}
	paramSchemas.Store(key, node)
	return node
}

// normalizeStored turns, in place, the empty lists and maps of v (Go slices
// and maps, by the schema) into null and the numbers of float fields into
// float64. It returns the value to store in v's place.
func normalizeStored(v any, n *openAPINode) any {
	if n == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		switch {
		case n.Props != nil:
			for k, e := range x {
				if p := n.Props[k]; p != nil {
					x[k] = normalizeStored(e, p)
				}
			}
		case n.Additional != nil:
			if len(x) == 0 {
				return nil
			}
			for k, e := range x {
				x[k] = normalizeStored(e, n.Additional)
			}
		}
	case []any:
		if n.Items == nil || n.Type != "array" {
			return v
		}
		if len(x) == 0 {
			return nil
		}
		for i, e := range x {
			x[i] = normalizeStored(e, n.Items)
		}
	case int64:
		if n.Type == "number" {
			return float64(x)
		}
	}
	return v
}

// jsonPatchValue is the value of a JSONPatch operation as JSON: the
// apiserver converts it to a structpb.Value, which a typed param's struct,
// map or list (anywhere in the value) refuses, with its own words.
func jsonPatchValue(v ref.Val) (any, error) {
	if err := typedJSONError(v); err != nil {
		return nil, err
	}
	return toNative(v)
}

// jsonValueType is how reflect prints the structpb.Value pointer type the
// apiserver converts JSON Patch values to.
const jsonValueType = "*structpb.Value"

func typedJSONError(v ref.Val) error {
	if err := cel.TypedConversionError(v, jsonValueType); err != nil {
		return err
	}
	switch x := v.(type) {
	case traits.Mapper:
		for it := x.Iterator(); it.HasNext() == types.True; {
			if err := typedJSONError(x.Get(it.Next())); err != nil {
				return err
			}
		}
	case traits.Lister:
		for it := x.Iterator(); it.HasNext() == types.True; {
			if err := typedJSONError(it.Next()); err != nil {
				return err
			}
		}
	}
	return nil
}
