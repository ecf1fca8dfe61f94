package cel_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

// FuzzLibraries calls every Kubernetes library function on a fuzzed string: no panic, and the
// is* predicates agree with the constructors.
func FuzzLibraries(f *testing.F) {
	for _, s := range []string{"", "1.5Gi", "1e3", "v1.2.3", "1.2.3-rc.1", "10.0.0.0/8", "::1", "https://x/y?z=1", "[a-", "-", "9Ei", ".", "1e2000000000"} {
		f.Add(s)
	}
	env, err := cel.BaseEnv(cel.V1_37)
	require.NoError(f, err)
	env, err = env.Extend(celVar("s"))
	require.NoError(f, err)
	exprs := []string{
		"isQuantity(s) == (quantity(s) == quantity(s))",
		"!isQuantity(s) || quantity(s).compareTo(quantity(s)) == 0",
		"!isQuantity(s) || quantity(s).add(quantity(s)).sub(quantity(s)).compareTo(quantity(s)) == 0",
		"!isQuantity(s) || quantity(s).isInteger() || !quantity(s).isInteger()",
		"isSemver(s) == (semver(s) == semver(s))",
		"isSemver(s, true) == (semver(s, true) == semver(s, true))",
		"isIP(s) == (string(ip(s)) != '')",
		"isCIDR(s) == (cidr(s).prefixLength() >= 0)",
		"isURL(s) == (url(s).getScheme() == url(s).getScheme())",
		"!isCIDR(s) || cidr(s).containsCIDR(cidr(s).masked())",
		"!isIP(s) || ip.isCanonical(s) == (string(ip(s)) == s)",
		"s.find(s) == s.find(s)",
		"s.findAll('[a-z]+', 3).size() <= 3",
		"format.named(s).hasValue() || !format.named(s).hasValue()",
		"format.dns1123Label().validate(s).hasValue() == !s.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') || s.size() > 63",
		"[s].isSorted() && [s].min() == s && [s].indexOf(s) == 0",
	}
	type prog struct {
		expr string
		p    programT
	}
	var ps []prog
	for _, e := range exprs {
		ast, iss := env.Compile(e)
		require.NoError(f, iss.Err(), e)
		p, err := env.Program(ast)
		require.NoError(f, err, e)
		ps = append(ps, prog{e, p})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range ps {
			out, _, err := p.p.Eval(map[string]any{"s": s})
			if err != nil {
				continue // errors (parse errors, cost limits) are fine; panics are not
			}
			assert.Equal(t, true, out.Value(), "%s with s=%q", p.expr, s)
		}
	})
}

// FuzzQuantity checks the arithmetic laws of parsed quantities.
func FuzzQuantity(f *testing.F) {
	for _, s := range []string{"1", "1.5Gi", "100m", "-0.001", "9223372036854775807", "1e-9", "0.1n", "8Ei"} {
		f.Add(s, "1k")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		qa, err := cel.ParseQuantity(a)
		if err != nil {
			return
		}
		qb, err := cel.ParseQuantity(b)
		if err != nil {
			return
		}
		assert.Equal(t, 0, qa.Cmp(qa))
		assert.Equal(t, qa.Cmp(qb), -qb.Cmp(qa), "%s <=> %s", a, b)
		sum, err := qa.Add(qb)
		if err != nil {
			return
		}
		back, err := sum.Sub(qb)
		if err != nil {
			return
		}
		assert.Equal(t, 0, back.Cmp(qa), "(%s + %s) - %s", a, b, b)
	})
}

// FuzzRuleEvaluation evaluates a fuzzed rule over a fuzzed object against a schema of every
// kind of node: no panic, the object is not modified, errors are field errors.
func FuzzRuleEvaluation(f *testing.F) {
	f.Add("self.spec.n > 0", `{"spec":{"n":1,"s":"a","l":["x"],"m":{"a":"b"}}}`, `{"spec":{"n":2}}`)
	f.Add("self.spec.l == oldSelf.spec.l", `{"spec":{"l":["b","a"]}}`, `{"spec":{"l":["a","b"]}}`)
	f.Add("self.spec.m.all(k, k.size() < 3)", `{"spec":{"m":{"abc":"x"}}}`, ``)
	f.Add("self.spec.s.matches('(a+)+$')", `{"spec":{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}}`, ``)
	f.Add("self.spec.l.all(a, self.spec.l.all(b, a != b + 'x'))", `{"spec":{"l":["a","b","c"]}}`, ``)
	f.Fuzz(func(t *testing.T, rule, objJSON, oldJSON string) {
		s := fuzzSchema(rule)
		v := cel.NewValidator(s, true, cel.Options{})
		if v == nil {
			return
		}
		var obj, old map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts([]byte(objJSON), &obj) != nil || obj == nil {
			return
		}
		_ = kjson.UnmarshalCaseSensitivePreserveInts([]byte(oldJSON), &old)
		before, _ := json.Marshal(obj)
		beforeOld, _ := json.Marshal(old)
		var oldAny any
		if old != nil {
			oldAny = old
		}
		r := v.Validate(context.Background(), field.Path{}, obj, oldAny, 100000)
		for _, e := range r.Errors {
			assert.NotEmpty(t, e.Error())
		}
		after, _ := json.Marshal(obj)
		afterOld, _ := json.Marshal(old)
		assert.JSONEq(t, string(before), string(after))
		assert.Equal(t, string(beforeOld), string(afterOld))
	})
}

func fuzzSchema(rule string) *schema.Structural {
	ml := int64(64)
	str := &schema.Structural{Type: "string", ValueValidation: &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{MaxLength: &ml}}}
	return &schema.Structural{Type: "object", XValidations: []any{map[string]any{"rule": rule, "messageExpression": "'failed: ' + " + strconv.Quote(rule)}},
		Properties: map[string]*schema.Structural{
			"spec": {Type: "object", Properties: map[string]*schema.Structural{
				"n":   {Type: "integer"},
				"s":   str,
				"d":   {Type: "string", ValueValidation: &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{Format: "date-time"}}},
				"ios": {XIntOrString: true},
				"l":   {Type: "array", XListType: "set", Items: str},
				"ml":  {Type: "array", XListType: "map", XListMapKeys: []string{"k"}, Items: &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{"k": str, "v": {Type: "integer"}}}},
				"m":   {Type: "object", AdditionalProperties: &schema.StructuralOrBool{Bool: true, Structural: str}},
				"x":   {Type: "object", XPreserveUnknownFields: true},
			}},
		}}
}
