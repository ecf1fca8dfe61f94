package apply

import (
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/schema"
)

// ResetFields returns the reset fields of a built-in resource's endpoint as the apiserver hands
// them to the field manager: for each apiVersion of the resource, a filter removing the fields
// the REST strategy resets (the main resource resets status; /status resets spec, or metadata
// and spec). nil when the endpoint resets nothing (ConfigMap, Secret, ...), and for Pod
// /ephemeralcontainers and /resize: in 1.37 their storage hands the field manager no reset
// fields although their strategies declare include filters, so an apply through them records
// everything it sets (recorded in testdata/apply/recorded/pod); see StrategyReset for their
// value reset.
func ResetFields(gvk schema.GroupVersionKind, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	paths, versions, ok := schema.BuiltinResets(gvk, subresource)
	if !ok {
		return nil
	}
	out := make(map[fieldpath.APIVersion]fieldpath.Filter, len(versions))
	for _, v := range versions {
		out[fieldpath.APIVersion(v)] = excludeFilter(paths)
	}
	return out
}

// CustomResourceResetFields returns the reset fields of a custom resource endpoint (the
// apiextensions-apiserver strategies): with a status subresource, the main resource resets
// status and /status resets metadata and spec; without one nothing is reset.
func CustomResourceResetFields(apiVersion string, subresource string, hasStatusSubresource bool) map[fieldpath.APIVersion]fieldpath.Filter {
	paths := CustomResourceResetPaths(subresource, hasStatusSubresource)
	if paths == nil {
		return nil
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(apiVersion): excludeFilter(paths)}
}

// excludeFilter is the field manager's filter that drops paths from a managed set.
func excludeFilter(paths [][]string) fieldpath.Filter {
	s := fieldpath.NewSet()
	for _, p := range paths {
		s.Insert(makePath(p))
	}
	return fieldpath.NewExcludeSetFilter(s)
}

func makePath(p []string) fieldpath.Path {
	elems := make([]any, len(p))
	for i, e := range p {
		elems[i] = e
	}
	return fieldpath.MakePathOrDie(elems...)
}

// ResetPaths returns the paths whose values the REST strategy of a built-in endpoint resets after
// the merge (PrepareForCreate/PrepareForUpdate), for Request.ResetValues: the same paths as
// ResetFields' exclusions, but where the strategy restores fewer values than it names
// (schema.BuiltinResetValues: APIService /status). Pod /ephemeralcontainers and /resize return nil: their value reset
// keeps everything but a few fields, see StrategyReset.
func ResetPaths(gvk schema.GroupVersionKind, subresource string) [][]string {
	return schema.BuiltinResetValues(gvk, subresource)
}

// CustomResourceResetPaths is ResetPaths for custom resources (schema.CustomResourceStrategy).
func CustomResourceResetPaths(subresource string, hasStatusSubresource bool) [][]string {
	return schema.CustomResourceStrategy(hasStatusSubresource).ResetPaths(subresource)
}

// statusMetadataFields are the metadata fields a status update resets (ResetObjectMetaForStatus).
var statusMetadataFields = []string{"deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers", "ownerReferences"}

// resetValues applies the strategy's value reset to obj (owned by the caller): each path gets the
// live value back (or is removed when live has none, and always on create). "metadata" resets
// the fields ResetObjectMetaForStatus resets.
func resetValues(obj, live map[string]any, paths [][]string) {
	resetValuesSharing(obj, live, paths, false)
}

// resetValuesSharing is resetValues; with share, a path no other path extends takes live's
// value itself instead of a copy (UpdateRequest.LiveShared).
func resetValuesSharing(obj, live map[string]any, paths [][]string, share bool) {
	for _, p := range paths {
		if len(p) == 1 && p[0] == "metadata" {
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				continue
			}
			lmd := metadataOf(live)
			for _, f := range statusMetadataFields {
				if v, ok := lmd[f]; ok {
					md[f] = toModel(v)
				} else {
					delete(md, f)
				}
			}
			continue
		}
		var lv any
		found := false
		if live != nil {
			lv, found = lookup(live, p)
		}
		if found && share && !extended(p, paths) {
			setPath(obj, p, nil, true)
			setLast(obj, p, lv)
			continue
		}
		setPath(obj, p, lv, found)
	}
}

// extended reports whether a path of paths is p and more (setting it would write into p's
// value).
func extended(p []string, paths [][]string) bool {
	for _, q := range paths {
		if len(q) > len(p) && slices.Equal(q[:len(p)], p) {
			return true
		}
	}
	return false
}

// setLast sets p, whose parents exist in obj, to v itself.
func setLast(obj map[string]any, p []string, v any) {
	m := obj
	for _, k := range p[:len(p)-1] {
		m = m[k].(map[string]any)
	}
	m[p[len(p)-1]] = v
}

func lookup(obj map[string]any, p []string) (any, bool) {
	var cur any = obj
	for _, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// setPath sets (or, when !found, removes) p in obj, creating maps on the way when setting.
func setPath(obj map[string]any, p []string, v any, found bool) {
	m := obj
	for i, k := range p {
		if i == len(p)-1 {
			if found {
				m[k] = toModel(v)
			} else {
				delete(m, k)
			}
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			if !found {
				return
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}
