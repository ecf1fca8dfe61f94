package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

func validatorFor(t *testing.T, schemaJSON string) (*schema.Validator, *schema.Structural) {
	t.Helper()
	p, err := schema.ParseProps(mustObject(schemaJSON), "openAPIV3Schema")
	require.NoError(t, err)
	s, err := schema.NewStructural(p)
	require.NoError(t, err)
	return schema.NewValidator(p), s
}

func errStrings(l field.ErrorList) []string {
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, e.Error())
	}
	return out
}

// TestValidatorMessages pins the apiserver's wording for each kind of schema violation
// (conformance/schemacrd checks the same against apiextensions on generated cases).
func TestValidatorMessages(t *testing.T) {
	cases := []struct {
		name, schema, obj string
		want              []string
	}{
		{"type", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":1}`,
			[]string{`a: Invalid value: "integer": a in body must be of type string: "integer"`}},
		{"null", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":null}`,
			[]string{`a: Invalid value: "null": a in body must be of type string: "null"`}},
		{"nullable", `{"type":"object","properties":{"a":{"type":"string","nullable":true}}}`, `{"a":null}`, nil},
		{"required", `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"}}}`, `{}`,
			[]string{`a: Required value`, `b: Required value`}},
		{"enum", `{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}`, `{"a":3}`,
			[]string{`a: Unsupported value: 3: supported values: "1", "2"`}},
		{"bounds", `{"type":"object","properties":{"a":{"type":"number","minimum":1.5,"exclusiveMaximum":true,"maximum":3}}}`, `{"a":3}`,
			[]string{`a: Invalid value: 3: a in body should be less than 3`}},
		{"int32", `{"type":"object","properties":{"a":{"type":"integer","format":"int32"}}}`, `{"a":3000000000}`,
			[]string{`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in a`}},
		{"multipleOf", `{"type":"object","properties":{"a":{"type":"number","multipleOf":0.5}}}`, `{"a":1.25}`,
			[]string{`a: Invalid value: 1.25: a in body should be a multiple of 0.5`}},
		{"lengths", `{"type":"object","properties":{"a":{"type":"string","minLength":2},"b":{"type":"string","maxLength":1}}}`, `{"a":"é","b":"éé"}`,
			[]string{`a: Invalid value: "é": a in body should be at least 2 chars long`, `b: Too long: may not be more than 1 byte`}},
		{"pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"a":"A"}`,
			[]string{`a: Invalid value: "A": a in body should match '^[a-z]+$'`}},
		{"items", `{"type":"object","properties":{"a":{"type":"array","minItems":2,"maxItems":0,"uniqueItems":true,"items":{"type":"integer"}}}}`, `{"a":[1]}`,
			[]string{`a: Invalid value: 1: a in body should have at least 2 items`, `a: Too many: 1: must have at most 0 items`}},
		{"unique", `{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}}`, `{"a":[1,1]}`,
			[]string{`a: Invalid value: "": a in body shouldn't contain duplicates`}},
		{"properties", `{"type":"object","properties":{"a":{"type":"object","maxProperties":1,"minProperties":3,"additionalProperties":{"type":"string"}}}}`, `{"a":{"x":"1","y":"2"}}`,
			[]string{`a: Invalid value: 2: a in body should have at least 3 properties`, `a: Too many: 2: must have at most 1 item`}},
		{"additionalProperties false", `{"type":"object","properties":{"a":{"type":"object","additionalProperties":false}}}`, `{"a":{"x":1}}`,
			[]string{`a: Invalid value: "x": a.x in body is a forbidden property`}},
		{"anyOf", `{"type":"object","properties":{"a":{"type":"object","anyOf":[{"required":["x"]},{"required":["y"]}]}}}`, `{"a":{}}`,
			[]string{`<nil>: Invalid value: "": "a" must validate at least one schema (anyOf)`, `a.x: Required value`}},
		{"oneOf", `{"type":"object","properties":{"a":{"type":"object","oneOf":[{"minProperties":0},{"maxProperties":5}]}}}`, `{"a":{}}`,
			[]string{`<nil>: Invalid value: "": "a" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"not", `{"type":"object","properties":{"a":{"type":"string","not":{"pattern":"^x"}}}}`, `{"a":"xy"}`,
			[]string{`<nil>: Invalid value: "": "a" must not validate the schema (not)`}},
		{"int-or-string", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true}}}`, `{"a":1.5}`,
			[]string{`a: Invalid value: "number": a in body must be of type integer,string: "number"`}},
		{"format", `{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"k8s-short-name"}}}`, `{"a":"2024-13-01T00:00:00Z","b":"A"}`,
			[]string{`a: Invalid value: "2024-13-01T00:00:00Z": a in body must be of type date-time: "2024-13-01T00:00:00Z"`, `b: Invalid value: "A": b in body must be of type k8s-short-name: "A"`}},
		{"unknown format ignored", `{"type":"object","properties":{"a":{"type":"string","format":"color"}}}`, `{"a":"?"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _ := validatorFor(t, c.schema)
			got := errStrings(v.Validate(field.Path{}, mustObject(c.obj)))
			if len(got) == 0 {
				got = nil
			}
			assert.Equal(t, c.want, got, "schema %s object %s", c.schema, c.obj)
		})
	}
}

// TestBadInput: hostile schemas and objects give clear errors or results, in bounded time.
func TestBadInput(t *testing.T) {
	t.Run("deep schema", func(t *testing.T) {
		// kube-apiserver accepts any schema its decoder reads (10000 nested JSON values).
		s := `{"type":"string"}`
		for i := 0; i < 1100; i++ {
			s = `{"type":"object","properties":{"a":` + s + `}}`
		}
		_, err := schema.ParseProps(mustObject(s), "openAPIV3Schema")
		require.NoError(t, err)
		// Deeper than any decoder hands over: only a value built in code can be.
		var v any = map[string]any{"type": "string"}
		for i := 0; i < 10001; i++ {
			v = map[string]any{"type": "array", "items": v}
		}
		_, err = schema.ParseProps(v, "openAPIV3Schema")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "schema nesting exceeds 10000 levels")
	})
	t.Run("catastrophic pattern", func(t *testing.T) {
		// RE2: linear time, where a backtracking engine would take ages.
		v, _ := validatorFor(t, `{"type":"object","properties":{"a":{"type":"string","pattern":"^(a+)+$"}}}`)
		errs := v.Validate(field.Path{}, map[string]any{"a": strings.Repeat("a", 100000) + "!"})
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Error(), "should match '^(a+)+$'")
	})
	t.Run("invalid pattern", func(t *testing.T) {
		v, _ := validatorFor(t, `{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=x)"}}}`)
		errs := v.Validate(field.Path{}, map[string]any{"a": "x"})
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Error(), "but pattern is invalid")
	})
	t.Run("huge enum", func(t *testing.T) {
		enum := make([]string, 0, 50000)
		for i := 0; i < 50000; i++ {
			enum = append(enum, fmt.Sprintf("%q", fmt.Sprint("v", i)))
		}
		v, _ := validatorFor(t, `{"type":"object","properties":{"a":{"type":"string","enum":[`+strings.Join(enum, ",")+`]}}}`)
		assert.Empty(t, v.Validate(field.Path{}, map[string]any{"a": "v49999"}))
		assert.Len(t, v.Validate(field.Path{}, map[string]any{"a": "nope"}), 1)
	})
	t.Run("large object", func(t *testing.T) {
		v, s := validatorFor(t, `{"type":"object","properties":{"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"string","maxLength":10}}}}}}`)
		items := make([]any, 0, 60000)
		for i := 0; i < 60000; i++ {
			items = append(items, map[string]any{"k": fmt.Sprint("key-", i), "v": "0123456789", "x": int64(i)})
		}
		obj := map[string]any{"items": items}
		out, pruned := schema.Prune(obj, s, schema.PruneOptions{ReturnPruned: true})
		assert.Len(t, pruned, 60000)
		assert.Empty(t, v.Validate(field.Path{}, out))
		assert.Empty(t, schema.ValidateListSetsAndMaps(field.Path{}, s, out.(map[string]any)))
	})
	t.Run("wrong types everywhere", func(t *testing.T) {
		v, s := validatorFor(t, `{"type":"object","properties":{"o":{"type":"object","properties":{"l":{"type":"array","items":{"type":"boolean"}}}}}}`)
		for _, obj := range []string{`{"o":[]}`, `{"o":{"l":{}}}`, `{"o":{"l":[1,"x",null]}}`, `{"o":"s"}`} {
			errs := v.Validate(field.Path{}, mustObject(obj))
			assert.NotEmpty(t, errs, obj)
			out, _ := schema.Prune(mustObject(obj), s, schema.PruneOptions{})
			assert.NotNil(t, out, obj)
		}
	})
}

// TestCRDDecodeErrors: CRDs that do not decode into the API types are 400s.
func TestCRDDecodeErrors(t *testing.T) {
	for _, c := range []struct{ crd, want string }{
		{`{"apiVersion":"v1","kind":"ConfigMap"}`, `expected apiVersion apiextensions.k8s.io/v1, got "v1"`},
		{`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"group":1}}`, `spec.group: cannot unmarshal number into string`},
		{`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","selectableFields":[{"jsonPath":1}]}]}}`, `spec.versions[0].selectableFields[0].jsonPath: cannot unmarshal number into string`},
		{`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","selectableFields":[".a"]}]}}`, `spec.versions[0].selectableFields[0]: cannot unmarshal string into SelectableField`},
		{`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":["object"]}}}]}}`, `spec.versions[0].schema.openAPIV3Schema.type: cannot unmarshal array into string`},
	} {
		_, err := schema.FromCRDBytes([]byte(c.crd))
		require.Error(t, err, c.crd)
		assert.Contains(t, err.Error(), c.want)
		var coder interface{ StatusCode() int }
		if assert.ErrorAs(t, err, &coder) {
			assert.Equal(t, 400, coder.StatusCode())
		}
	}
}
