package schema

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// BuiltinResets answers what BuiltinStrategy's Reset and ResetAPIVersions hold, for every
// built-in strategy and every subresource it resets (and one it does not).
func TestBuiltinResetsAgreeWithStrategy(t *testing.T) {
	for key := range strategyTable() {
		var gvk GroupVersionKind
		for i := range key {
			if key[i] == '/' {
				gvk = GroupVersionKind{Group: key[:i], Kind: key[i+1:]}
			}
		}
		st, ok := BuiltinStrategy(gvk)
		assert.True(t, ok, key)
		subs := []string{"no-such-subresource"}
		for sub := range st.Reset {
			subs = append(subs, sub)
		}
		for _, sub := range subs {
			paths, versions, reset := BuiltinResets(gvk, sub)
			want, wantReset := st.Reset[sub]
			assert.Equal(t, wantReset, reset, "%s %q", key, sub)
			if !wantReset {
				continue
			}
			assert.True(t, reflect.DeepEqual(want, paths), "%s %q: %#v, want %#v", key, sub, paths, want)
			assert.True(t, reflect.DeepEqual(st.ResetAPIVersions, versions), "%s %q", key, sub)
		}
	}
	_, _, reset := BuiltinResets(GroupVersionKind{Kind: "NoSuchKind"}, "")
	assert.False(t, reset)
}
