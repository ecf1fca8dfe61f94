package cel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

func stringRule(rule string) *schema.Structural {
	return &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"s": {Type: "string"},
		"l": {Type: "array", Items: &schema.Structural{Type: "string"}},
		"d": {Type: "object", XPreserveUnknownFields: true, Properties: map[string]*schema.Structural{"x": {Type: "string"}}},
	}, XValidations: []any{map[string]any{"rule": rule}}}
}

// TestBadInput runs rules that are expensive or hostile: each ends within the apiserver's
// budgets with the apiserver's error, never a panic.
func TestBadInput(t *testing.T) {
	mib := strings.Repeat("a", 1<<20)
	long := make([]any, 3000)
	for i := range long {
		long[i] = "item"
	}
	cases := []struct {
		name, rule string
		obj        map[string]any
		budget     int64
		want       string
		perCall    uint64
	}{
		// A lower per-call limit than the apiserver's keeps the race-detector run short; the
		// error is the same (conformance/cel runs the full limit against the apiserver).
		{"cost bomb", "self.l.all(a, self.l.all(b, self.l.all(c, a == b)))", map[string]any{"l": long[:300]}, cel.RuntimeCELCostBudget,
			"'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, self.l.all(c, a == b)))", 20000},
		{"regex bomb (RE2 is linear)", "!self.s.matches('^(a+)+$')", map[string]any{"s": mib + "!"}, cel.RuntimeCELCostBudget, "", 0},
		{"1 MiB string find", "self.s.find('a+b') == ''", map[string]any{"s": mib}, cel.RuntimeCELCostBudget, "", 0},
		{"1 MiB string over budget", "self.s.find('a+b') == ''", map[string]any{"s": mib}, 100,
			"validation failed due to running out of cost budget, no further validation rules will be run", 0},
		{"quantity exponent bomb", "quantity('1e2000000000').add(quantity('0.5')).isInteger()", map[string]any{}, cel.RuntimeCELCostBudget,
			"quantity arithmetic out of range evaluating rule", 0},
		{"invalid quantity", "quantity('1.2.3').isInteger()", map[string]any{}, cel.RuntimeCELCostBudget, "quantities must match the regular expression", 0},
		{"invalid semver", "semver('v1').major() == 1", map[string]any{}, cel.RuntimeCELCostBudget, "No Major.Minor.Patch elements found", 0},
		{"invalid cidr", "cidr('1.2.3.4/99').prefixLength() == 1", map[string]any{}, cel.RuntimeCELCostBudget, "prefix length out of range", 0},
		{"invalid url", "url('::').getHost() == ''", map[string]any{}, cel.RuntimeCELCostBudget, "URL parse error during conversion from string", 0},
		{"deep unknown fields", "has(self.d.x)", map[string]any{"d": deep(200)}, cel.RuntimeCELCostBudget, "failed rule: has(self.d.x)", 0},
		{"string repeat growth", "self.l.map(x, x + x + x + x).size() > 0", map[string]any{"l": long}, 10, "running out of cost budget", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := cel.NewValidator(stringRule(c.rule), false, cel.Options{PerCallLimit: c.perCall})
			require.NotNil(t, v)
			r := v.Validate(context.Background(), field.Path{}, c.obj, nil, c.budget)
			if c.want == "" {
				assert.Empty(t, r.Errors, "rule %s", c.rule)
				return
			}
			require.NotEmpty(t, r.Errors, "rule %s", c.rule)
			assert.Contains(t, r.Errors[0].Error(), c.want)
		})
	}
}

func deep(n int) map[string]any {
	m := map[string]any{}
	cur := m
	for i := 0; i < n; i++ {
		next := map[string]any{}
		cur["d"] = next
		cur = next
	}
	return m
}

// TestConcurrentValidation shares one compiled validator between goroutines (run with -race).
func TestConcurrentValidation(t *testing.T) {
	v := cel.NewValidator(stringRule("self.s.startsWith('a') && self.l.all(x, x.size() < 5)"), false, cel.Options{})
	done := make(chan field.ErrorList)
	for i := 0; i < 8; i++ {
		go func(i int) {
			s := "abc"
			if i%2 == 1 {
				s = "xyz"
			}
			done <- v.Validate(context.Background(), field.Path{}, map[string]any{"s": s, "l": []any{"ab"}}, nil, cel.RuntimeCELCostBudget).Errors
		}(i)
	}
	failed := 0
	for i := 0; i < 8; i++ {
		if len(<-done) > 0 {
			failed++
		}
	}
	assert.Equal(t, 4, failed)
}
