package admission

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/gotypes"
)

// TestLostNonZero: whether a typed decoding of the patched object differs
// from the object before the patch (apiequality.Semantic.DeepEqual on the Go
// type), for patched objects defaulting turns back into before.
func TestLostNonZero(t *testing.T) {
	deployment, ok := gotypes.Of(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.True(t, ok)
	for _, tc := range []struct {
		name            string
		before, patched string
		want            bool
	}{
		{"equal", `{"spec":{"replicas":1}}`, `{"spec":{"replicas":1}}`, false},
		{"scalar in another form", `{"spec":{"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1"}}}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1000m"}}}]}}}}`, false},
		{"dropped non-zero scalar", `{"spec":{"revisionHistoryLimit":10}}`, `{"spec":{}}`, true},
		{"dropped non-zero scalar in a list", `{"spec":{"template":{"spec":{"containers":[{"name":"a","imagePullPolicy":"Always"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`, true},
		{"zero non-pointer scalar dropped", `{"spec":{"paused":false,"minReadySeconds":0}}`, `{"spec":{}}`, false},
		{"zero pointer scalar dropped", `{"spec":{"replicas":0}}`, `{"spec":{}}`, true},
		{"pointer's empty struct set to null", `{"spec":{"template":{"spec":{"securityContext":{}}}}}`,
			`{"spec":{"template":{"spec":{"securityContext":null}}}}`, true},
		{"non-pointer's empty struct dropped", `{"spec":{"template":{"metadata":{}}}}`, `{"spec":{"template":{}}}`, false},
		{"pointer's empty struct dropped in a list", `{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v"}]}}}}`, true},
		{"pointer's empty struct in a list kept", `{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}}}`, false},
		{"pointer's empty struct inside a pointer's empty struct", `{"spec":{"template":{"spec":{"containers":[{"name":"a","livenessProbe":{"exec":{}}}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"a","livenessProbe":{}}]}}}}`, true},
		{"pointer field added empty", `{"spec":{"template":{"spec":{"volumes":[{"name":"v"}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}}}`, true},
		{"empty list for null", `{"spec":{"template":{"spec":{"tolerations":[]}}}}`, `{"spec":{"template":{"spec":{}}}}`, false},
		{"list shorter", `{"spec":{"template":{"spec":{"volumes":[{"name":"v"},{"name":"w"}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v"}]}}}}`, true},
		{"empty map for null", `{"metadata":{"annotations":{}}}`, `{"metadata":{}}`, false},
		{"map entry with a zero value dropped", `{"metadata":{"labels":{"a":""}}}`, `{"metadata":{"labels":{}}}`, true},
		{"unknown field dropped", `{"spec":{"bogus":{}}}`, `{"spec":{}}`, false},
		{"unknown non-zero field dropped", `{"spec":{"bogus":1}}`, `{"spec":{}}`, false},
		{"map value emptied", `{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`, `{"spec":{"template":{"metadata":{"labels":{"a":""}}}}}`, true},
		{"custom-decoded zero for absent", `{"metadata":{"creationTimestamp":null}}`, `{"metadata":{}}`, false},
		{"pointer to a custom-decoded type dropped", `{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}}}`, true},
	} {
		var before, patched any
		require.NoError(t, json.Unmarshal([]byte(tc.before), &before), tc.name)
		require.NoError(t, json.Unmarshal([]byte(tc.patched), &patched), tc.name)
		assert.Equal(t, tc.want, lostNonZero(before, patched, deployment), tc.name)
	}
}
