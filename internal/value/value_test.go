package value

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"replicas": int64(3),
			"ratio":    0.5,
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "a", "image": "nginx"},
				map[string]any{"name": "b", "image": "busybox", "args": []any{"x", nil, true}},
			}}},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string // "" = valid
	}{
		{"object", sample(), ""},
		{"nil", nil, ""},
		{"nil map and list", map[string]any{"m": map[string]any(nil), "l": []any(nil)}, ""},
		{"int", map[string]any{"a": []any{int64(1), 2}}, "value: a[1]: unsupported type int"},
		{"float32", float32(1), "value: unsupported type float32"},
		{"typed map", map[string]any{"m": map[string]string{}}, "value: m: unsupported type map[string]string"},
		{"NaN", map[string]any{"f": math.NaN()}, "value: f: unsupported type float64(NaN)"},
		{"Inf", []any{math.Inf(-1)}, "value: [0]: unsupported type float64(-Inf)"},
		{"first in sorted order", map[string]any{"b": 1, "a": int32(1)}, "value: a: unsupported type int32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.v)
			if tt.want == "" {
				assert.NoError(t, err, "value %#v", tt.v)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var te *TypeError
			require.True(t, errors.As(err, &te))
			assert.Equal(t, 500, te.StatusCode())
		})
	}
}

func TestDeepCopy(t *testing.T) {
	in := sample()
	out, err := DeepCopyMap(in)
	require.NoError(t, err)
	assert.True(t, Equal(in, out))
	// Mutating the copy leaves the original alone.
	out["metadata"].(map[string]any)["name"] = "changed"
	out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)["args"].([]any)[0] = "y"
	assert.Equal(t, sample(), in)

	c, err := DeepCopy([]any(nil))
	require.NoError(t, err)
	assert.Equal(t, []any(nil), c)
	nilMap, err := DeepCopyMap(nil)
	require.NoError(t, err)
	assert.Nil(t, nilMap)

	_, err = DeepCopy(map[string]any{"a": []any{struct{}{}}})
	var te *TypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "a[0]", te.Path.String())
	_, err = DeepCopyMap(map[string]any{"a": 1})
	assert.Error(t, err)
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"same object", sample(), sample(), true},
		{"int64 vs float64", int64(1), float64(1), false},
		{"nested int64 vs float64", map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, false},
		{"nil vs empty map", map[string]any(nil), map[string]any{}, true},
		{"nil vs empty list", []any(nil), []any{}, true},
		{"untyped nil vs empty map", nil, map[string]any{}, false},
		{"untyped nil vs nil", nil, nil, true},
		{"missing key vs null value", map[string]any{}, map[string]any{"a": nil}, false},
		{"NaN", math.NaN(), math.NaN(), false},
		{"negative zero", math.Copysign(0, -1), 0.0, true},
		{"list order", []any{"a", "b"}, []any{"b", "a"}, false},
		{"list length", []any{"a"}, []any{"a", "a"}, false},
		{"string vs number", "1", int64(1), false},
		{"unsupported type", 1, 1, false},
		{"bool", true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Equal(tt.a, tt.b), "Equal(%#v, %#v)", tt.a, tt.b)
			assert.Equal(t, tt.want, Equal(tt.b, tt.a), "Equal(%#v, %#v)", tt.b, tt.a)
		})
	}
}

// EqualNilDistinct is Equal but for nil and empty maps and lists, at any depth.
func TestEqualNilDistinct(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"same object", sample(), sample(), true},
		{"nil vs empty map", map[string]any(nil), map[string]any{}, false},
		{"nil vs empty list", []any(nil), []any{}, false},
		{"nested nil vs empty map", map[string]any{"a": []any{map[string]any(nil)}}, map[string]any{"a": []any{map[string]any{}}}, false},
		{"nil vs nil map", map[string]any(nil), map[string]any(nil), true},
		{"untyped nil vs nil map", nil, map[string]any(nil), false},
		{"int64 vs float64", int64(1), float64(1), false},
		{"unsupported type", 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, EqualNilDistinct(tt.a, tt.b), "EqualNilDistinct(%#v, %#v)", tt.a, tt.b)
			assert.Equal(t, tt.want, EqualNilDistinct(tt.b, tt.a), "EqualNilDistinct(%#v, %#v)", tt.b, tt.a)
		})
	}
}

func TestPathString(t *testing.T) {
	assert.Equal(t, "", Path{}.String())
	assert.Equal(t, "spec.containers[0].image", NewPath("spec", "containers").Index(0).Key("image").String())
	assert.Equal(t, "[2][0]", Path{Index(2), Index(0)}.String())
	p := NewPath("a")
	q := p.Key("b")
	r := p.Key("c")
	assert.Equal(t, "a.b", q.String(), "extending a path must not alias its siblings")
	assert.Equal(t, "a.c", r.String())
	assert.True(t, Index(3).IsIndex())
	assert.Equal(t, 3, Index(3).IndexValue())
	assert.Equal(t, "k", Key("k").KeyName())
}

func TestGet(t *testing.T) {
	obj := sample()
	tests := []struct {
		path  Path
		want  any
		found bool
		err   string
	}{
		{NewPath("spec", "replicas"), int64(3), true, ""},
		{NewPath("spec", "template", "spec", "containers").Index(1).Key("args").Index(1), nil, true, ""},
		{NewPath("spec", "missing", "deeper"), nil, false, ""},
		{NewPath("spec", "template", "spec", "containers").Index(5), nil, false, ""},
		{NewPath("spec", "template", "spec", "containers").Index(-1), nil, false, ""},
		{NewPath("spec", "replicas", "x"), nil, false, "value: spec.replicas.x: expected a map, found int64"},
		{NewPath("metadata").Index(0), nil, false, "value: metadata[0]: expected a list, found map"},
		{Path{}, obj, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path.String(), func(t *testing.T) {
			got, found, err := Get(obj, tt.path)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name string
		path Path
		x    any
		want func(m map[string]any)
		err  string
	}{
		{"replace scalar", NewPath("spec", "replicas"), int64(5), func(m map[string]any) {
			m["spec"].(map[string]any)["replicas"] = int64(5)
		}, ""},
		{"create intermediate maps", NewPath("metadata", "annotations", "a"), "b", func(m map[string]any) {
			m["metadata"].(map[string]any)["annotations"] = map[string]any{"a": "b"}
		}, ""},
		{"list item field", NewPath("spec", "template", "spec", "containers").Index(0).Key("image"), "nginx:2", func(m map[string]any) {
			m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:2"
		}, ""},
		{"index out of range", NewPath("spec", "template", "spec", "containers").Index(2), "x", nil,
			"value: spec.template.spec.containers[2]: index out of range (list length 2)"},
		{"key through a scalar", NewPath("kind", "x"), "y", nil, "value: kind.x: expected a map, found string"},
		{"index through a missing value", NewPath("status").Index(0), "y", nil, "value: status[0]: expected a list, found null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := sample()
			got, err := Set(in, tt.path, tt.x)
			assert.Equal(t, sample(), in, "Set modified its input")
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, 400, pe.StatusCode())
				return
			}
			require.NoError(t, err)
			want := sample()
			tt.want(want)
			assert.Equal(t, want, got)
			gotM, err := SetMap(in, tt.path, tt.x)
			require.NoError(t, err)
			assert.Equal(t, want, gotM)
		})
	}
	v, err := Set("anything", Path{}, int64(1))
	require.NoError(t, err)
	assert.Equal(t, int64(1), v)
	_, err = SetMap(sample(), Path{}, nil)
	assert.Error(t, err)
}

func TestSetSharesOnlyOffSpine(t *testing.T) {
	in := sample()
	out, err := SetMap(in, NewPath("spec", "replicas"), int64(9))
	require.NoError(t, err)
	// The metadata subtree is off the spine: shared, not copied.
	inMeta := in["metadata"].(map[string]any)
	outMeta := out["metadata"].(map[string]any)
	inMeta["probe"] = true
	assert.Equal(t, true, outMeta["probe"], "off-spine subtrees are shared")
	// The spine is fresh.
	out["spec"].(map[string]any)["new"] = true
	_, leaked := in["spec"].(map[string]any)["new"]
	assert.False(t, leaked, "the spine must be copied")
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name    string
		path    Path
		removed bool
		want    func(m map[string]any)
		err     string
	}{
		{"map key", NewPath("metadata", "labels", "app"), true, func(m map[string]any) {
			m["metadata"].(map[string]any)["labels"] = map[string]any{}
		}, ""},
		{"list item", NewPath("spec", "template", "spec", "containers").Index(0), true, func(m map[string]any) {
			c := m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			c["containers"] = c["containers"].([]any)[1:]
		}, ""},
		{"inside a list item", NewPath("spec", "template", "spec", "containers").Index(1).Key("args"), true, func(m map[string]any) {
			delete(m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any), "args")
		}, ""},
		{"missing key", NewPath("metadata", "nope", "x"), false, func(map[string]any) {}, ""},
		{"missing index", NewPath("spec", "template", "spec", "containers").Index(7), false, func(map[string]any) {}, ""},
		{"wrong type", NewPath("kind", "x"), false, nil, "value: kind.x: expected a map, found string"},
		{"root", Path{}, false, nil, "value: : cannot remove the root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := sample()
			got, removed, err := Remove(in, tt.path)
			assert.Equal(t, sample(), in, "Remove modified its input")
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.removed, removed)
			want := sample()
			tt.want(want)
			assert.Equal(t, want, got)
		})
	}
}

func TestWalk(t *testing.T) {
	var visited []string
	err := Walk(map[string]any{"b": []any{int64(1), map[string]any{"c": nil}}, "a": "x", "skip": map[string]any{"hidden": true}},
		func(p Path, v any) error {
			visited = append(visited, p.String())
			if p.String() == "skip" {
				return SkipChildren
			}
			return nil
		})
	require.NoError(t, err)
	assert.Equal(t, []string{"", "a", "b", "b[0]", "b[1]", "b[1].c", "skip"}, visited)

	stop := errors.New("stop")
	n := 0
	err = Walk(sample(), func(Path, any) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	assert.Equal(t, stop, err)
	assert.Equal(t, 3, n)
	assert.NoError(t, Walk(int64(1), func(Path, any) error { return SkipChildren }))
}

func TestDepthBound(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	list := make([]any, 1)
	list[0] = list
	deep := any(int64(1))
	for range MaxDepth + 1 {
		deep = []any{deep}
	}
	okDeep := any(int64(1))
	for range MaxDepth {
		okDeep = []any{okDeep}
	}
	for name, v := range map[string]any{"map cycle": cyclic, "list cycle": list, "too deep": deep} {
		var de *DepthError
		assert.ErrorAs(t, Validate(v), &de, name)
		_, err := DeepCopy(v)
		assert.ErrorAs(t, err, &de, name)
		assert.False(t, Equal(v, v), name)
		assert.ErrorAs(t, Walk(v, func(Path, any) error { return nil }), &de, name)
		assert.Equal(t, 500, de.StatusCode())
	}
	assert.NoError(t, Validate(okDeep))
	c, err := DeepCopy(okDeep)
	require.NoError(t, err)
	assert.True(t, Equal(okDeep, c))
	_, err = DeepCopyMap(cyclic)
	assert.Error(t, err)
}

func TestCloneKeepsForeignLeavesAndNils(t *testing.T) {
	type quantity struct{ s string }
	q := &quantity{"1"}
	in := map[string]any{"q": q, "nilMap": map[string]any(nil), "nilList": []any(nil), "l": []any{map[string]any{"a": int64(1)}}}
	out := Clone(in).(map[string]any)
	assert.Same(t, q, out["q"], "a foreign leaf is shared")
	assert.Nil(t, out["nilMap"].(map[string]any))
	assert.Nil(t, out["nilList"].([]any))
	out["l"].([]any)[0].(map[string]any)["a"] = "changed"
	assert.Equal(t, int64(1), in["l"].([]any)[0].(map[string]any)["a"], "lists and maps are fresh")
}

func TestRoundTripJSON(t *testing.T) {
	for _, tt := range []struct {
		in, want any
		err      string
	}{
		{in: float64(2), want: int64(2)},
		{in: 2.5, want: 2.5},
		{in: 1e21, want: 1e21},
		{in: map[string]any(nil), want: nil},
		{in: []any{float64(-0), []any(nil)}, want: []any{int64(0), nil}},
		{in: math.NaN(), err: "unsupported value: json: unsupported value: NaN"},
		{in: int32(1), err: "unsupported value of type int32"},
	} {
		got, err := RoundTripJSON(tt.in)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "%#v", tt.in)
			continue
		}
		require.NoError(t, err, "%#v", tt.in)
		assert.Equal(t, tt.want, got, "%#v", tt.in)
	}
}
