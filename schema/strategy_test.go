package schema_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// Every stored resource of the catalogue has a strategy, and every strategy but those of
// versions the catalogue no longer has names a kind of the catalogue.
func TestBuiltinStrategyCoversCatalogue(t *testing.T) {
	kinds, err := schema.BuiltinKinds()
	require.NoError(t, err)
	for _, k := range kinds {
		_, ok := k.Strategy()
		stored := k.Resource != "" && slices.Contains(k.Verbs, "delete")
		assert.Equal(t, stored, ok, "%s: a strategy exactly when the resource is stored", k.GVK)
	}
}

func TestBuiltinStrategyIsACopy(t *testing.T) {
	a, ok := schema.BuiltinStrategy(schema.GroupVersionKind{Kind: "Pod"})
	require.True(t, ok)
	a.Reset["status"][0][0] = "changed"
	a.ExtraSubresources[0] = "changed"
	b, _ := schema.BuiltinStrategy(schema.GroupVersionKind{Kind: "Pod"})
	assert.Equal(t, "spec", b.Reset["status"][0][0])
	assert.Equal(t, "resize", b.ExtraSubresources[0])
}

func TestGuessResource(t *testing.T) {
	for kind, want := range map[string][2]string{
		"Pod": {"pods", "pod"}, "NetworkPolicy": {"networkpolicies", "networkpolicy"},
		"Gateway": {"gatewaies", "gateway"}, "Class": {"classes", "class"},
		"Endpoints": {"endpoints", "endpoints"}, "MyEndpoints": {"myendpoints", "myendpoints"},
		"PodList": {"podlists", "podlist"}, "": {"", ""},
	} {
		p, s := schema.GuessResource(kind)
		assert.Equal(t, want, [2]string{p, s}, "kind %q", kind)
	}
}
