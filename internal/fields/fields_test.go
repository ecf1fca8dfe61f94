package fields_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/fields"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, str, err string
	}{
		{in: "", str: ""},
		{in: "metadata.name=a", str: "metadata.name=a"},
		{in: "metadata.name==a", str: "metadata.name=a"},
		{in: "b!=x,a=y", str: "a=y,b!=x"},
		{in: `a=x\,y`, str: `a=x\,y`},
		{in: `a=x\=y\\`, str: `a=x\=y\\`},
		{in: "a=b,,c=d", str: "a=b,c=d"},
		{in: "abc", err: "invalid selector: 'abc'; can't understand 'abc'"},
		{in: `a=x\y`, err: `invalid field selector: invalid escape sequence: \y`},
		{in: `a=x\`, err: `invalid field selector: invalid escape sequence: \`},
		{in: `a=b=c`, err: `invalid field selector: unescaped character in value: 61`},
	}
	for _, c := range cases {
		sel, err := fields.Parse(c.in)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.str, sel.String(), c.in)
	}
}

func TestMatches(t *testing.T) {
	sel, err := fields.Parse("metadata.name=web,status.phase!=Running")
	require.NoError(t, err)
	assert.True(t, sel.Matches(map[string]string{"metadata.name": "web", "status.phase": "Pending"}))
	assert.False(t, sel.Matches(map[string]string{"metadata.name": "web", "status.phase": "Running"}))
	assert.False(t, sel.Matches(map[string]string{"metadata.name": "db"}))
	v, ok := sel.RequiresExactMatch("metadata.name")
	assert.True(t, ok)
	assert.Equal(t, "web", v)
	assert.True(t, fields.Selector{}.Matches(nil))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a=b", `a=\,`, "a!=b,c==d", "=", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := fields.Parse(s)
		if err != nil {
			return
		}
		again, err := fields.Parse(sel.String())
		require.NoError(t, err, "a printed selector parses: %q", sel.String())
		// Parse sorts the raw terms, so the printed ones may come in another order: the same
		// terms, as a set.
		assert.ElementsMatch(t, sel.Terms(), again.Terms(), s)
	})
}
