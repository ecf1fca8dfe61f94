package merge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// The unsplit reading of a schema field's strategies answers what splitting
// it and extractRetainKeysPatchStrategy answer, errors included.
func TestRetainKeysStrategyUnsplit(t *testing.T) {
	for _, tag := range []string{"", "merge", "replace", "retainKeys", "merge,retainKeys", "retainKeys,merge",
		"retainKeys,retainKeys", "merge,replace", ",", "merge,", ",retainKeys", "a,b,c", "retainKeys,merge,x", "merge,retainKeys,"} {
		fromSchema := fieldInfo{raw: tag, fromSchema: true}
		split := fieldInfo{strategies: strings.Split(tag, ",")}
		r1, s1, e1 := fromSchema.retainKeysStrategy()
		r2, s2, e2 := split.retainKeysStrategy()
		assert.Equal(t, r2, r1, "%q", tag)
		assert.Equal(t, s2, s1, "%q", tag)
		assert.Equal(t, e2, e1, "%q", tag)
	}
}

// lookupStruct and lookupSlice answer what the Meta methods answer.
func TestLookupMatchesMeta(t *testing.T) {
	k, err := schema.Builtin(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(t, err)
	pod, err := KindMeta(k)
	require.NoError(t, err)
	spec, _, err := pod.LookupStruct("spec")
	require.NoError(t, err)
	for _, key := range []string{"containers", "volumes", "tolerations", "nodeSelector", "securityContext", "nope", "Containers"} {
		for _, slice := range []bool{false, true} {
			var sub, wantSub Meta
			var fm fieldInfo
			var want FieldMeta
			var err, wantErr error
			if slice {
				sub, fm, err = lookupSlice(spec, key)
				wantSub, want, wantErr = spec.LookupSlice(key)
			} else {
				sub, fm, err = lookupStruct(spec, key)
				wantSub, want, wantErr = spec.LookupStruct(key)
			}
			assert.Equal(t, wantErr, err, "%s slice=%v", key, slice)
			assert.Equal(t, wantSub, sub, "%s slice=%v", key, slice)
			assert.Equal(t, want.MergeKey, fm.mergeKey, "%s slice=%v", key, slice)
			r1, s1, e1 := fm.retainKeysStrategy()
			r2, s2, e2 := extractRetainKeysPatchStrategy(want.Strategies)
			if err == nil {
				assert.Equal(t, []any{r2, s2, e2}, []any{r1, s1, e1}, "%s slice=%v", key, slice)
			}
		}
	}
}
