package versions_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
	"github.com/writepath/writepath/versions"
)

func TestCompareResourceVersion(t *testing.T) {
	tests := []struct {
		a, b    string
		want    int
		wantErr string
	}{
		{"100", "200", -1, ""},
		{"200", "100", 1, ""},
		{"1", "1", 0, ""},
		{"99", "100", -1, ""},
		{"100", "99", 1, ""},
		{"99999999999999999999999999999999999999999999999999", "100000000000000000000000000000000000000000000000000", -1, ""},
		{"0", "1", 0, "resource version is not well formed: 0"},
		{"1", "0", 0, "resource version is not well formed: 0"},
		{"0100", "100", 0, "resource version is not well formed: 0100"},
		{"", "1", 0, "resource version is not well formed: "},
		{"1", "", 0, "resource version is not well formed: "},
		{"100a", "x", 0, "resource version is not well formed: 100a"},
		{"１", "1", 0, "resource version is not well formed: １"},
		{"-1", "1", 0, "resource version is not well formed: -1"},
		{"+1", "1", 0, "resource version is not well formed: +1"},
		{" 1", "1", 0, "resource version is not well formed:  1"},
	}
	for _, tt := range tests {
		got, err := versions.CompareResourceVersion(tt.a, tt.b)
		if tt.wantErr != "" {
			require.Error(t, err, "%q %q", tt.a, tt.b)
			assert.Equal(t, tt.wantErr, err.Error(), "%q %q", tt.a, tt.b)
			var ire *versions.InvalidResourceVersionError
			assert.True(t, errors.As(err, &ire), "%q %q", tt.a, tt.b)
			assert.Equal(t, 400, status.CodeOf(err))
			continue
		}
		require.NoError(t, err, "%q %q", tt.a, tt.b)
		assert.Equal(t, tt.want, got, "%q %q", tt.a, tt.b)
	}
}

func TestComparators(t *testing.T) {
	_, err := versions.EqualityOnly{}.Compare("", "a")
	assert.Error(t, err)
	_, err = versions.EqualityOnly{}.Compare("a", "b")
	assert.ErrorIs(t, err, versions.ErrNotOrdered)
	_, err = versions.DecimalOrEquality{}.Compare("10", "x")
	assert.ErrorIs(t, err, versions.ErrNotOrdered)
	n, err := versions.DecimalOrEquality{}.Compare("007", "007")
	assert.NoError(t, err)
	assert.Equal(t, 0, n)
}

func mustDecode(t *testing.T, s string) map[string]any {
	t.Helper()
	obj, err := codec.DecodeObject([]byte(s))
	require.NoError(t, err)
	return obj
}

func quantityObj(q string) string {
	return `{"metadata":{"generation":1},"spec":{"template":{"spec":{"containers":[{"resources":{"limits":{"cpu":"` + q + `"}}}]}}}}`
}

// TestNextGenerationEquality pins the two equalities: typed for built-ins,
// unstructured for custom resources.
func TestNextGenerationEquality(t *testing.T) {
	dep, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	cr := versions.CustomResource("example.com", "widgets", "Widget", versions.CustomResourceOptions{})
	tests := []struct {
		name     string
		s        versions.Strategy
		old, new string
		bumped   bool
	}{
		{"typed: absent vs {}", dep, `{"metadata":{"generation":1},"spec":{"a":1}}`, `{"metadata":{"generation":1},"spec":{"a":1,"b":{}}}`, false},
		{"typed: null vs []", dep, `{"metadata":{"generation":1},"spec":{"a":null}}`, `{"metadata":{"generation":1},"spec":{"a":[]}}`, false},
		{"typed: empty string vs absent", dep, `{"metadata":{"generation":1},"spec":{}}`, `{"metadata":{"generation":1},"spec":{"nodeName":""}}`, false},
		{"typed: 1 vs 1.0", dep, `{"metadata":{"generation":1},"spec":{"replicas":1}}`, `{"metadata":{"generation":1},"spec":{"replicas":1.0}}`, false},
		{"typed: 0 vs absent", dep, `{"metadata":{"generation":1},"spec":{}}`, `{"metadata":{"generation":1},"spec":{"replicas":0}}`, true},
		{"typed: annotations nil vs empty", dep, `{"metadata":{"generation":1},"spec":{}}`, `{"metadata":{"generation":1,"annotations":{}},"spec":{}}`, false},
		{"typed: annotation with empty value", dep, `{"metadata":{"generation":1},"spec":{}}`, `{"metadata":{"generation":1,"annotations":{"a":""}},"spec":{}}`, true},
		{"typed: template label with empty value", dep, `{"metadata":{"generation":1},"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`, `{"metadata":{"generation":1},"spec":{"template":{"metadata":{"labels":{"a":"b","c":""}}}}}`, true},
		{"typed: quantity 0.5 vs 500m", dep, quantityObj("500m"), quantityObj("0.5"), false},
		{"typed: quantity 1Gi vs 1024Mi", dep, quantityObj("1Gi"), quantityObj("1024Mi"), false},
		{"typed: quantity 1e3 vs 1k", dep, quantityObj("1e3"), quantityObj("1k"), false},
		{"typed: quantity 1n vs 0.0000000001", dep, quantityObj("1n"), quantityObj("0.0000000001"), false},
		{"typed: quantity Mi vs 0", dep, quantityObj("Mi"), quantityObj("0"), false},
		{"typed: quantity 88Ei vs max int64", dep, quantityObj("88Ei"), quantityObj("9223372036854775807"), false},
		{"typed: quantity 1 vs 2", dep, quantityObj("1"), quantityObj("2"), true},
		{"typed: quantity -1m vs -0.001", dep, quantityObj("-1m"), quantityObj("-0.001"), false},
		{"typed: not a quantity", dep, quantityObj("1x"), quantityObj("1"), true},
		{"typed: labels ignored", dep, `{"metadata":{"generation":1},"spec":{}}`, `{"metadata":{"generation":1,"labels":{"a":"b"}},"spec":{}}`, false},
		{"typed: list order", dep, `{"metadata":{"generation":1},"spec":{"l":[1,2]}}`, `{"metadata":{"generation":1},"spec":{"l":[2,1]}}`, true},
		{"unstructured: absent vs {}", cr, `{"metadata":{"generation":1},"spec":{"a":1}}`, `{"metadata":{"generation":1},"spec":{"a":1,"b":{}}}`, true},
		{"unstructured: {} vs {}", cr, `{"metadata":{"generation":1},"spec":{"b":{}}}`, `{"metadata":{"generation":1},"spec":{"b":{}}}`, false},
		{"unstructured: [] vs []", cr, `{"metadata":{"generation":1},"spec":{"b":[]}}`, `{"metadata":{"generation":1},"spec":{"b":[]}}`, false},
		{"unstructured: 1 vs 1.0", cr, `{"metadata":{"generation":1},"spec":{"a":1}}`, `{"metadata":{"generation":1},"spec":{"a":1.0}}`, true},
		{"unstructured: apiVersion not compared", cr, `{"apiVersion":"example.com/v1","metadata":{"generation":1}}`, `{"apiVersion":"example.com/v2","metadata":{"generation":1}}`, false},
		{"unstructured: new top-level field", cr, `{"metadata":{"generation":1}}`, `{"metadata":{"generation":1},"data":"x"}`, true},
	}
	for _, tt := range tests {
		g, err := versions.NextGeneration(tt.s, mustDecode(t, tt.old), mustDecode(t, tt.new), "")
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.bumped, g.Bumped(), "%s: %s", tt.name, g)
	}
}

func TestNextGenerationErrors(t *testing.T) {
	dep, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	cm, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	_, err := versions.NextGeneration(dep, mustDecode(t, `{"metadata":{"generation":"x"}}`), mustDecode(t, `{}`), "")
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "metadata.generation", fe.Field)
	_, err = versions.NextGeneration(dep, mustDecode(t, `{"metadata":[]}`), mustDecode(t, `{}`), "")
	assert.ErrorAs(t, err, &fe)
	_, err = versions.NextGeneration(dep, nil, mustDecode(t, `{}`), "")
	assert.Error(t, err)
	_, err = versions.NextGeneration(cm, mustDecode(t, `{}`), mustDecode(t, `{}`), "scale")
	var ue *versions.UnknownSubresourceError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, `configmaps has no "scale" subresource`, err.Error())
	assert.Equal(t, 404, status.CodeOf(err))
}

func TestPodBinding(t *testing.T) {
	pods, _ := versions.BuiltinResource(schema.GroupVersionResource{Resource: "pods"})
	g, err := versions.NextGeneration(pods, mustDecode(t, `{"metadata":{"generation":1},"spec":{}}`),
		mustDecode(t, `{"metadata":{"generation":1},"spec":{"nodeName":"n1"}}`), "binding")
	require.NoError(t, err)
	assert.False(t, g.Bumped(), g.String())
	g, err = versions.NextGeneration(pods, mustDecode(t, `{"metadata":{"generation":1},"spec":{}}`),
		mustDecode(t, `{"metadata":{"generation":1},"spec":{"nodeName":"n1"}}`), "resize")
	require.NoError(t, err)
	assert.True(t, g.Bumped(), g.String())
}

func TestGenerationOnDelete(t *testing.T) {
	ns, _ := versions.BuiltinResource(schema.GroupVersionResource{Resource: "namespaces"})
	dep, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	tests := []struct {
		s    versions.Strategy
		obj  string
		want int64
	}{
		{dep, `{"metadata":{"generation":2}}`, 3},
		{dep, `{"metadata":{"generation":2,"deletionTimestamp":"2026-01-01T00:00:00Z"}}`, 2},
		{dep, `{"metadata":{}}`, 0},
		{ns, `{"metadata":{"generation":2}}`, 2},
	}
	for _, tt := range tests {
		g, err := versions.GenerationOnDelete(tt.s, mustDecode(t, tt.obj))
		require.NoError(t, err)
		assert.Equal(t, tt.want, g.New, "%s %s", tt.s.Resource, tt.obj)
	}
}

func TestCheckUpdateStrategies(t *testing.T) {
	obj := func(av, rv string) map[string]any {
		return mustDecode(t, `{"apiVersion":"`+av+`","metadata":{"name":"r","resourceVersion":"`+rv+`"}}`)
	}
	dtr, _ := versions.Builtin(schema.GroupVersionKind{Group: "resource.k8s.io", Kind: "DeviceTaintRule"})
	_, err := versions.CheckUpdate(dtr, obj("resource.k8s.io/v1", "5"), obj("resource.k8s.io/v1beta2", ""))
	assert.NoError(t, err, "v1beta2 keeps unconditional updates")
	_, err = versions.CheckUpdate(dtr, obj("resource.k8s.io/v1", "5"), obj("resource.k8s.io/v1", ""))
	assert.Equal(t, 422, status.CodeOf(err))
	cm, _ := versions.Builtin(schema.GroupVersionKind{Kind: "ConfigMap"})
	d, err := versions.CheckUpdate(cm, obj("v1", "5"), obj("v1", "005"))
	require.NoError(t, err)
	assert.False(t, d.Unconditional)
	_, err = versions.CheckUpdate(cm, obj("v1", ""), obj("v1", "5"))
	assert.Equal(t, 500, status.CodeOf(err), "a stored object always has a version")
	_, err = versions.CheckUpdate(cm, mustDecode(t, `{"metadata":{"name":1}}`), obj("v1", "5"))
	var fe *field.Error
	assert.ErrorAs(t, err, &fe)
}

func TestObserve(t *testing.T) {
	o, err := versions.Observe(mustDecode(t, `{"metadata":{"generation":2}}`))
	require.NoError(t, err)
	assert.False(t, o.StatusCurrent())
	assert.Equal(t, "generation 2, observedGeneration not set (stale)", o.String())
	o, err = versions.Observe(mustDecode(t, `{"metadata":{"generation":2},"status":{"observedGeneration":3,"conditions":[{"type":"A"}]}}`))
	require.NoError(t, err)
	assert.True(t, o.Current())
	assert.False(t, o.Conditions[0].Current(2))
	for _, bad := range []string{`{"status":[]}`, `{"status":{"observedGeneration":"x"}}`, `{"status":{"conditions":{}}}`,
		`{"status":{"conditions":[1]}}`, `{"status":{"conditions":[{"observedGeneration":1.5}]}}`} {
		_, err := versions.Observe(mustDecode(t, bad))
		assert.Error(t, err, bad)
	}
}

func TestBuiltinsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range versions.Builtins() {
		key := s.Group + "/" + s.Resource
		assert.False(t, seen[key], "duplicate %s", key)
		seen[key] = true
		assert.NotEmpty(t, s.Kind, key)
		assert.NotEmpty(t, s.Generation.Why, key)
		assert.NotContains(t, s.Generation.Why, "%!", key)
		got, ok := versions.BuiltinResource(schema.GroupVersionResource{Group: s.Group, Resource: s.Resource})
		require.True(t, ok, key)
		assert.Equal(t, s.Kind, got.Kind)
	}
	// Mutating a returned strategy does not leak into the table.
	s, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	s.Generation.Compare[0] = "changed"
	again, _ := versions.Builtin(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"})
	assert.Equal(t, "spec", again.Generation.Compare[0])
}

// FuzzCompareResourceVersion checks CompareResourceVersion against big-integer
// arithmetic, antisymmetry and the well-formedness rule.
func FuzzCompareResourceVersion(f *testing.F) {
	for _, s := range [][2]string{{"1", "2"}, {"0", "1"}, {"", ""}, {"0100", "100"}, {"99", "100"}, {"１", "1"}, {"18446744073709551616", "18446744073709551615"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := versions.CompareResourceVersion(a, b)
		back, errBack := versions.CompareResourceVersion(b, a)
		wellA, wellB := versions.IsWellFormed(a), versions.IsWellFormed(b)
		if !wellA || !wellB {
			require.Error(t, err)
			require.Error(t, errBack)
			bad := a
			if wellA {
				bad = b
			}
			assert.Equal(t, "resource version is not well formed: "+bad, err.Error())
			return
		}
		require.NoError(t, err)
		require.NoError(t, errBack)
		assert.Equal(t, -got, back)
		x, okx := new(big.Int).SetString(a, 10)
		y, oky := new(big.Int).SetString(b, 10)
		require.True(t, okx && oky)
		assert.Equal(t, x.Cmp(y), got)
	})
}

// FuzzNextGeneration feeds arbitrary objects to the generation and update
// rules: no panic, inputs unchanged.
func FuzzNextGeneration(f *testing.F) {
	f.Add(`{"metadata":{"generation":1},"spec":{"a":1}}`, `{"metadata":{"generation":1},"spec":{"a":2}}`, uint8(0))
	f.Add(`{"metadata":{"generation":1,"resourceVersion":"5","uid":"u"},"status":{}}`, `{"metadata":{"resourceVersion":"x"}}`, uint8(3))
	f.Add(`{"metadata":null}`, `{"metadata":{"annotations":{"a":null}}}`, uint8(7))
	strategies := []versions.Strategy{}
	for _, s := range versions.Builtins() {
		strategies = append(strategies, s)
	}
	strategies = append(strategies,
		versions.CustomResource("g", "rs", "R", versions.CustomResourceOptions{StatusSubresource: true, SpecReplicasPath: ".spec.replicas"}),
		versions.CustomResource("g", "rs", "R", versions.CustomResourceOptions{}))
	subs := []string{"", "status", "scale", "resize", "bogus"}
	f.Fuzz(func(t *testing.T, a, b string, pick uint8) {
		old, err := codec.DecodeObject([]byte(a))
		if err != nil {
			return
		}
		upd, err := codec.DecodeObject([]byte(b))
		if err != nil {
			return
		}
		oldCopy, _ := value.DeepCopyMap(old)
		updCopy, _ := value.DeepCopyMap(upd)
		s := strategies[int(pick)%len(strategies)]
		_, _ = versions.NextGeneration(s, old, upd, subs[int(pick)%len(subs)])
		_, _ = versions.GenerationOnCreate(s, upd)
		_ = versions.CheckCreate(upd)
		_, _ = versions.GenerationOnDelete(s, old)
		_, _ = versions.CheckUpdate(s, old, upd)
		_, _ = versions.CheckPatch(s, old, upd)
		_ = versions.CheckDeletePreconditions(s, versions.Preconditions{}, old)
		_, _ = versions.Observe(old)
		assert.True(t, value.Equal(oldCopy, old), "old modified")
		assert.True(t, value.Equal(updCopy, upd), "new modified")
	})
}

// TestBuiltinIndexAgreesWithScan: Builtin and BuiltinResource find, for every group and kind
// and every group and resource of the table (and for names the table lacks), the entry a scan
// of the table in its order finds first.
func TestBuiltinIndexAgreesWithScan(t *testing.T) {
	all := versions.Builtins()
	require.NotEmpty(t, all)
	scanKind := func(group, kind string) (versions.Strategy, bool) {
		for _, s := range all {
			if s.Group == group && s.Kind == kind {
				return s, true
			}
		}
		return versions.Strategy{}, false
	}
	scanResource := func(group, resource string) (versions.Strategy, bool) {
		for _, s := range all {
			if s.Group == group && s.Resource == resource {
				return s, true
			}
		}
		return versions.Strategy{}, false
	}
	for _, s := range append(all, versions.Strategy{Group: "example.com", Kind: "Widget", Resource: "widgets"}, versions.Strategy{Kind: "Deployment", Resource: "deployments"}) {
		want, wantOK := scanKind(s.Group, s.Kind)
		got, ok := versions.Builtin(schema.GroupVersionKind{Group: s.Group, Kind: s.Kind})
		assert.Equal(t, wantOK, ok, "%s/%s", s.Group, s.Kind)
		assert.Equal(t, want, got, "%s/%s", s.Group, s.Kind)
		want, wantOK = scanResource(s.Group, s.Resource)
		got, ok = versions.BuiltinResource(schema.GroupVersionResource{Group: s.Group, Resource: s.Resource})
		assert.Equal(t, wantOK, ok, "%s/%s", s.Group, s.Resource)
		assert.Equal(t, want, got, "%s/%s", s.Group, s.Resource)
	}
}
