package admission

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/writepath/writepath/schema"
)

// applyType is the structured-merge-diff type ApplyConfiguration mutations
// merge with for kind: the type converter the mutating policy plugin gets for
// it. kube-apiserver builds it from its OpenAPI (v3, per group version), which
// has every built-in kind and every CRD version; the built-in catalogue of
// package schema holds the same types, and Versions.CRDs the custom resources'.
// A kind that is neither (a custom resource whose CRD the caller did not pass)
// gets the deduced type: maps merged field by field, lists replaced.
func (c *Chain) applyType(gvk GroupVersionKind) (typed.ParseableType, error) {
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
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", sortedValidation(err))
	}
	if atomics := findAtomics(nil, pv.Schema(), pv.TypeRef(), patch); len(atomics) > 0 {
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %v", strings.Join(atomics, ", "))
	}
	lv, err := pt.FromUnstructured(obj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", sortedValidation(err))
	}
	mv, err := lv.Merge(pv)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", sortedValidation(err))
	}
	out, ok := mv.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: failed to convert value to unstructured for type %T", mv.AsValue().Unstructured())
	}
	// The merged value shares the inputs' maps and lists: return a copy.
	return copyObject(out)
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

// sortedValidation orders SMD's validation errors by path and message (SMD
// lists them in map iteration order).
func sortedValidation(err error) error {
	var ve typed.ValidationErrors
	if !errors.As(err, &ve) || len(ve) < 2 {
		return err
	}
	out := append(typed.ValidationErrors(nil), ve...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].ErrorMessage < out[j].ErrorMessage
	})
	return out
}
