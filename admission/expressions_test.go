package admission_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/schema/validation"
)

// The compilation a policy's strategy runs when the policy is written (the recorded
// admission/vap-invalid/bad-expression answer for the first case; the others are the
// apiserver's words as conformance/defaults/validation compares them).
func TestExpressionCompiler(t *testing.T) {
	bad := "compilation failed: ERROR: <input>:1:19: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.data.nope((\n | ..................^"
	for _, tc := range []struct {
		name       string
		composited bool
		vars       [][2]string
		e          validation.Expression
		want       string
	}{
		{name: "syntax", e: validation.Expression{Text: "object.data.nope((", Returns: validation.ResultBool, Authorizer: true}, want: bad},
		{name: "bool", e: validation.Expression{Text: "object.metadata.name != ''", Returns: validation.ResultBool}},
		{name: "not bool", e: validation.Expression{Text: "1 + 1", Returns: validation.ResultBool}, want: "must evaluate to bool but got int"},
		{name: "audit value", e: validation.Expression{Text: "1", Returns: validation.ResultStringOrNull}, want: "must evaluate to one of [string null_type] but got int"},
		{name: "params undeclared", e: validation.Expression{Text: "params.x == 1", Returns: validation.ResultBool},
			want: "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^"},
		{name: "params", e: validation.Expression{Text: "params.x == 1", Returns: validation.ResultBool, Params: true}},
		{name: "stateless: no variables", e: validation.Expression{Text: "variables.x", Returns: validation.ResultAny},
			want: "compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^"},
		{name: "a variable before", composited: true, vars: [][2]string{{"n", "object.metadata.name"}},
			e: validation.Expression{Text: "variables.n == 'a'", Returns: validation.ResultBool}},
		{name: "a variable not yet stored", composited: true,
			e:    validation.Expression{Text: "variables.n == 'a'", Returns: validation.ResultBool},
			want: "compilation failed: ERROR: <input>:1:10: undefined field 'n'\n | variables.n == 'a'\n | .........^"},
		{name: "a typed variable", composited: true, vars: [][2]string{{"i", "1"}},
			e:    validation.Expression{Text: "variables.i", Returns: validation.ResultString},
			want: "must evaluate to string but got int"},
		{name: "patch types", composited: true, e: validation.Expression{Text: "[JSONPatch{op: 'add', path: '/a', value: 1}]", Returns: validation.ResultJSONPatch, PatchTypes: true}},
		{name: "no patch types", e: validation.Expression{Text: "Object{}", Returns: validation.ResultBool},
			want: "compilation failed: ERROR: <input>:1:7: undeclared reference to 'Object' (in container '')\n | Object{}\n | ......^"},
		{name: "no authorizer", e: validation.Expression{Text: "authorizer.group('').resource('pods').check('get').reason()", Returns: validation.ResultString},
			want: "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.group('').resource('pods').check('get').reason()\n | ^"},
	} {
		s := admission.ExpressionCompiler{}.Scope(tc.composited)
		for _, v := range tc.vars {
			assert.Empty(t, s.Variable(v[0], validation.Expression{Text: v[1], Authorizer: true}), tc.name)
		}
		assert.Equal(t, tc.want, s.Compile(tc.e), tc.name)
	}
}
