package schema_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// FuzzExplain: any path yields a FieldInfo or an error, never a panic, and a path that explains
// explains the same way again.
func FuzzExplain(f *testing.F) {
	for _, seed := range []string{"", "spec.template.spec.containers.ports", ".metadata.labels.app", "spec..x", "status.conditions.type", "spec.template.metadata.annotations.a.b"} {
		f.Add("apps", "v1", "Deployment", seed)
	}
	f.Add("", "v1", "Pod", "spec.volumes.configMap.items.key")
	f.Add("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "spec.versions.schema.openAPIV3Schema.properties.x.properties")
	f.Fuzz(func(t *testing.T, group, version, kind, path string) {
		k, err := schema.Builtin(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
		if err != nil {
			return
		}
		info, err := k.Explain(path)
		if err != nil {
			return
		}
		again, err := k.Explain(path)
		require.NoError(t, err)
		assert.Equal(t, info, again, "path %q", path)
		assert.Equal(t, strings.TrimPrefix(path, "."), info.Path)
	})
}

// FuzzPatchMetaLookup walks PatchMeta along arbitrary names: no panics, and a name found exactly
// or case-insensitively is also found by LookupSlice when its type is a list.
func FuzzPatchMetaLookup(f *testing.F) {
	f.Add("spec/containers/ports/containerPort")
	f.Add("SPEC/Containers/name")
	f.Add("metadata/labels/app")
	f.Add("spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
	f.Fuzz(func(t *testing.T, path string) {
		k, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
		require.NoError(t, err)
		pm, err := k.PatchMeta()
		require.NoError(t, err)
		for _, name := range strings.Split(path, "/") {
			next, info, err := pm.LookupField(name)
			if err != nil {
				return
			}
			if next.Name() == "slice" {
				elem, sliceInfo, err := pm.LookupSlice(name)
				require.NoError(t, err)
				assert.Equal(t, info, sliceInfo)
				next = elem
			}
			pm = next
		}
	})
}

func FuzzParseAPIVersion(f *testing.F) {
	for _, s := range []string{"", "/", "v1", "apps/v1", "a/b/c", "/v1", "apps/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gv, err := schema.ParseAPIVersion(s)
		if err != nil {
			assert.Greater(t, strings.Count(s, "/"), 1)
			return
		}
		if s == "/" || strings.HasPrefix(s, "/") {
			return // "/v1" parses to the core group but prints "v1"
		}
		assert.Equal(t, s, gv.String(), "round trip of %q", s)
	})
}
