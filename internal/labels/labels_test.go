package labels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, str, err string
		match        map[string]string
		matches      bool
	}{
		{in: "", str: "", match: map[string]string{"a": "b"}, matches: true},
		{in: "a=b,c!=d,e in (f,g),!h", str: "a=b,c!=d,e in (f,g),!h", match: map[string]string{"a": "b", "e": "g"}, matches: true},
		{in: "a=b,c!=d,e in (f,g),!h", str: "a=b,c!=d,e in (f,g),!h", match: map[string]string{"a": "b", "e": "g", "h": ""}, matches: false},
		{in: "x in (b,a,a)", str: "x in (a,b)", match: map[string]string{"x": "a"}, matches: true},
		{in: "x notin ()", str: "x notin ()", match: map[string]string{"x": "a"}, matches: true},
		{in: "z,y", str: "y,z", match: map[string]string{"y": "", "z": ""}, matches: true},
		{in: "n>5", str: "n>5", match: map[string]string{"n": "6"}, matches: true},
		{in: "n<5", str: "n<5", match: map[string]string{"n": "x"}, matches: false},
		{in: "a=", str: "a=", match: map[string]string{"a": ""}, matches: true},
		{in: "a,", err: "found '', expected: identifier after ','"},
		{in: "a b", err: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
		{in: "a=b c", err: "found 'c', expected: ',' or 'end of string'"},
		{in: ",", err: "found ',', expected: !, identifier, or 'end of string'"},
		{in: "a in b", err: "unable to parse requirement: found 'b' expected: '('"},
		{in: "a=>b", err: "unable to parse requirement: found '>', expected: identifier"},
		{in: "n>x", err: "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"},
		{in: "-a=b", err: "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
	}
	for _, c := range cases {
		s, err := Parse(c.in)
		if c.err != "" {
			assert.EqualError(t, err, c.err, "Parse(%q)", c.in)
			continue
		}
		require.NoError(t, err, "Parse(%q)", c.in)
		assert.Equal(t, c.str, s.String(), "Parse(%q).String()", c.in)
		assert.Equal(t, c.matches, s.Matches(c.match), "Parse(%q).Matches(%v)", c.in, c.match)
	}
}

func TestFromLabelSelector(t *testing.T) {
	cases := []struct {
		name    string
		in      any
		err     string
		nothing bool
		empty   bool
		str     string
	}{
		{name: "nil is nothing", in: nil, nothing: true},
		{name: "empty is everything", in: map[string]any{}, empty: true},
		{name: "empty lists", in: map[string]any{"matchLabels": map[string]any{}, "matchExpressions": []any{}}, empty: true},
		{name: "both", in: map[string]any{"matchLabels": map[string]any{"b": "1", "a": "2"},
			"matchExpressions": []any{map[string]any{"key": "a", "operator": "Exists"}}}, str: "a=2,a,b=1"},
		{name: "bad operator", in: map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "in"}}},
			err: `"in" is not a valid label selector operator`},
		{name: "In without values", in: map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "In"}}},
			err: `values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`},
		{name: "Exists with values", in: map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "Exists", "values": []any{"x"}}}},
			err: `values: Invalid value: ["x"]: values set must be empty for exists and does not exist`},
		{name: "not an object", in: "app=web", err: "label selector must be an object, not string"},
	}
	for _, c := range cases {
		s, err := FromLabelSelector(c.in)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.nothing, s.MatchesNothing(), c.name)
		assert.Equal(t, c.empty, s.Empty(), c.name)
		assert.Equal(t, c.str, s.String(), c.name)
	}
}

func TestMatchesObject(t *testing.T) {
	s, err := FromLabelSelector(map[string]any{"matchLabels": map[string]any{"app": "web"}})
	require.NoError(t, err)
	assert.True(t, s.MatchesObject(map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web", "n": int64(1)}}}))
	assert.False(t, s.MatchesObject(nil))
	assert.True(t, Everything().MatchesObject(nil))
	assert.False(t, Nothing().Matches(nil))
	v, ok := s.RequiresExactMatch("app")
	assert.True(t, ok)
	assert.Equal(t, "web", v)
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "a=b,c!=d,e in (f,g),!h", "x in (,,)", "a notin (in)", "n>1", "!!a", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		// What parses prints to a string that parses to the same string.
		again, err := Parse(s.String())
		if err != nil {
			// Values the printer cannot quote (none exist for valid selectors) would land here.
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", in, s.String(), err)
		}
		if again.String() != s.String() {
			t.Fatalf("Parse(%q): %q then %q", in, s.String(), again.String())
		}
	})
}
