package admission

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// applyType is the structured-merge-diff type ApplyConfiguration mutations
// merge with for kind: the type converter the mutating policy plugin gets for
// it. kube-apiserver builds it from its OpenAPI (v3, per group version), which
// has every built-in kind and every CRD version; the built-in catalogue of
// package schema holds the same types, and Versions.CRDs the custom resources'.
// A kind that is neither (a custom resource whose CRD the caller did not pass)
// gets the deduced type: maps merged field by field, lists replaced.
func (c *Chain) applyType(gvk schema.GroupVersionKind) (typed.ParseableType, error) {
	sg := schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	if k, err := schema.Builtin(sg); err == nil && k.SMDTypeName() != "" {
		return k.SMDType()
	}
	if v := c.cfg.Versions.crdVersion(gvk); v != nil {
		return v.SMDType()
	}
	return schema.DeducedType(), nil
}

// applyStructuredMergeDiff is the mutating policy plugin's
// ApplyStructuredMergeDiff: cfg (the expression's Object, typed as obj) is
// merged into obj by the kind's schema — list-maps by key, sets as sets, atomic
// values replaced — after checking that cfg sets no atomic list, map or struct.
// Neither argument is modified.
func applyStructuredMergeDiff(pt typed.ParseableType, obj, cfg map[string]any) (map[string]any, error) {
	// The plugin sets the patch's apiVersion and kind to the object's.
	patch := make(map[string]any, len(cfg)+2)
	for k, v := range cfg {
		patch[k] = v
	}
	// (SetGroupVersionKind: "" when the object has none).
	av, _ := obj["apiVersion"].(string)
	kd, _ := obj["kind"].(string)
	patch["apiVersion"], patch["kind"] = av, kd
	pv, err := pt.FromUnstructured(patch)
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", schema.SortedTypeErrors(err))
	}
	if atomics := findAtomics(nil, pv.Schema(), pv.TypeRef(), patch); len(atomics) > 0 {
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %v", strings.Join(atomics, ", "))
	}
	lv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", schema.SortedTypeErrors(err))
	}
	mv, err := lv.Merge(pv)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", schema.SortedTypeErrors(err))
	}
	out, ok := mv.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: failed to convert value to unstructured for type %T", mv.AsValue().Unstructured())
	}
	// The merged value shares the inputs' maps and lists: return a copy.
	return value.DeepCopyMap(out)
}

// findAtomics is the plugin's findAtomics: the paths at which cfg sets a value
// whose type is atomic. Struct fields are followed; map values and list items
// only through a list's element type. Keys are visited in sorted order (the
// apiserver's order is Go map order).
func findAtomics(path []string, s *smdschema.Schema, tr smdschema.TypeRef, v any) []string {
	a, ok := s.Resolve(tr)
	if !ok {
		return nil
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if a.Map == nil {
			return nil
		}
		if a.Map.ElementRelationship == smdschema.Atomic {
			out = append(out, strings.Join(path, ""))
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sf, ok := a.Map.FindField(k); ok {
				out = append(out, findAtomics(append(path[:len(path):len(path)], "."+k), s, sf.Type, x[k])...)
			}
		}
	case []any:
		if a.List == nil {
			return nil
		}
		if a.List.ElementRelationship == smdschema.Atomic {
			out = append(out, strings.Join(path, ""))
		}
		for i, e := range x {
			out = append(out, findAtomics(append(path[:len(path):len(path)], "["+strconv.Itoa(i)+"]"), s, a.List.ElementType, e)...)
		}
	}
	return out
}

// applyNative is the plugin's conversion of an ApplyConfiguration's Object
// (dynamic.ObjectVal.ConvertToNative, convertField): an Object's fields are
// converted recursively; a list or map literal's items are CEL's own native
// values (ref.Val.Value()), not converted further; other lists and maps are
// converted recursively; any other value is its ref.Val.Value(). So a CEL null
// is structpb.NullValue_NULL_VALUE at any depth: a named int32 (0) that
// structured-merge-diff takes for neither null, nor a number, string or
// boolean (".data.v: expected string, got &value.valueUnstructured{Value:0}"),
// and a literal nested in a literal stays a CEL map or list SMD does not know.
func applyNative(v ref.Val) (any, error) {
	if _, ok := v.(*objectVal); ok {
		out, _, err := convertMembers(v, applyNative, nil)
		return out, err
	}
	if cel.IsTyped(v) {
		// A typed value (a MutatingAdmissionPolicy's param) is no literal:
		// the plugin converts its members recursively, so a nil field inside
		// it is CEL null at any depth.
		out, _, err := convertMembers(v, applyNative, nil)
		return out, err
	}
	switch x := v.Value().(type) {
	case []ref.Val:
		var out []any
		for _, e := range x {
			out = append(out, applyValue(e))
		}
		return out, nil
	case map[ref.Val]ref.Val:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			out[ks] = applyValue(e)
		}
		return out, nil
	}
	if out, ok, err := convertMembers(v, applyNative, nil); ok {
		return out, err
	}
	return applyValue(v), nil
}

// applyValue is v.Value() as the plugin's values give it: an Object's is its
// conversion (an error is wrapped as CEL wraps it).
func applyValue(v ref.Val) any {
	if ov, ok := v.(*objectVal); ok {
		n, err := applyNative(ov)
		if err != nil {
			return types.WrapErr(err)
		}
		return n
	}
	return v.Value()
}
