package cel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/schema"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"spec", "spec", true},
		{"x-y", "x__dash__y", true},
		{"a.b", "a__dot__b", true},
		{"a/b", "a__slash__b", true},
		{"a__b", "a__underscores__b", true},
		{"_a", "_a", true},
		{"namespace", "__namespace__", true},
		{"in", "__in__", true},
		{"true", "__true__", true},
		{"self", "self", true},
		{"1st", "", false},
		{"", "", false},
		{"a b", "", false},
		{"ümlaut", "", false},
		{"a:b", "", false},
	} {
		got, ok := cel.Escape(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
		if ok {
			back, ok := cel.Unescape(got)
			assert.True(t, ok, c.in)
			assert.Equal(t, c.in, back, c.in)
		}
	}
	_, ok := cel.Unescape("a__bogus__b")
	assert.False(t, ok)
	_, ok = cel.Unescape("x__namespace__")
	assert.False(t, ok, "a reserved word escapes only as a whole name")
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a-b", "a.b/c", "a__b", "namespace", "x_", "__dash__"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, ok := cel.Escape(s)
		if !ok {
			return
		}
		back, ok := cel.Unescape(e)
		assert.True(t, ok, "%q -> %q", s, e)
		assert.Equal(t, s, back, "%q -> %q", s, e)
	})
}

func TestValidFieldPath(t *testing.T) {
	s := &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"spec": {Type: "object", Properties: map[string]*schema.Structural{
			"a.b":    {Type: "string"},
			"labels": {Type: "object", AdditionalProperties: &schema.StructuralOrBool{Bool: true, Structural: &schema.Structural{Type: "string"}}},
			"list":   {Type: "array", Items: &schema.Structural{Type: "string"}},
		}},
	}}
	for _, c := range []struct{ path, want, err string }{
		{".spec", "spec", ""},
		{".spec['a.b']", "spec.a.b", ""},
		{".spec.labels['x/y']", "spec.labels[x/y]", ""},
		{".spec.labels.k", "spec.labels[k]", ""},
		{".spec.nope", "", "does not refer to a valid field"},
		{".spec.list[0]", "", "expected single quoted string but got 0"},
		{"spec", "", "expected [ or . but got: spec"},
		{".spec[", "", "unexpected end of JSON path"},
		{".spec['a\\q']", "", "invalid string literal: invalid escape char \\q"},
		{".spec.list.x", "", "does not refer to a valid field"},
	} {
		p, _, err := schema.ValidFieldPath(c.path, s, true)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.path)
			continue
		}
		assert.NoError(t, err, c.path)
		assert.Equal(t, c.want, p.String(), c.path)
	}
	_, _, err := schema.ValidFieldPath(".spec['a.b']", s, false)
	assert.EqualError(t, err, "array notation is not allowed")
}
