package schemacatalogue

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/writepath/writepath/schema"
)

// FuzzPatchMetaLookup walks a Pod's patch metadata along arbitrary field names (Unicode case
// folding included: "KIND" with a Kelvin sign, "ſpec") in writepath and in strategicpatch, and
// requires the same answers at every step.
func FuzzPatchMetaLookup(f *testing.F) {
	for _, s := range []string{"spec/containers/ports", "SPEC/Containers/Name", "\u212aind", "\u017fpec/nodeName", "metadata/labels/x", "spec/volumes/configMap/items"} {
		f.Add(s)
	}
	k, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, path string) {
		mine, err := k.PatchMeta()
		require.NoError(t, err)
		ref, err := strategicpatch.NewPatchMetaFromStruct(&corev1.Pod{})
		require.NoError(t, err)
		for _, name := range strings.Split(path, "/") {
			mSub, mInfo, mErr := mine.LookupField(name)
			rSub, rInfo, rErr := ref.LookupPatchMetadataForStruct(name)
			if !assert.Equal(t, rErr == nil, mErr == nil, "%q: error %v, reference %v", name, mErr, rErr) {
				return
			}
			if rErr != nil {
				assert.Equal(t, rErr.Error(), mErr.Error())
				return
			}
			assert.Equal(t, rInfo.GetPatchStrategies(), mInfo.Strategies(), "%q", name)
			assert.Equal(t, rInfo.GetPatchMergeKey(), mInfo.MergeKey, "%q", name)
			assert.Equal(t, rSub.Name(), mSub.Name(), "%q", name)
			if mElem, _, err := mine.LookupSlice(name); err == nil {
				rElem, _, rErr := ref.LookupPatchMetadataForSlice(name)
				require.NoError(t, rErr)
				mine, ref = mElem, rElem.(strategicpatch.PatchMetaFromStruct)
				continue
			}
			mine, ref = mSub, rSub.(strategicpatch.PatchMetaFromStruct)
		}
	})
}
