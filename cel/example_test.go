package cel_test

import (
	"context"
	"fmt"
	"strings"

	celgo "github.com/google/cel-go/cel"

	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/schema"
)

const crontabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.replicas <= self.maxReplicas"
              messageExpression: "'replicas ' + string(self.replicas) + ' exceeds ' + string(self.maxReplicas)"
              fieldPath: .replicas
            - rule: "self.image == oldSelf.image"
              message: image is immutable
              reason: FieldValueForbidden
            properties:
              image: {type: string}
              replicas: {type: integer}
              maxReplicas: {type: integer}
`

func ExampleValidateCustomResource() {
	crd, err := schema.FromCRDBytes([]byte(crontabCRD))
	if err != nil {
		panic(err)
	}
	v := crd.Version("v1")
	old := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "c"},
		"spec": map[string]any{"image": "busybox:1", "replicas": int64(1), "maxReplicas": int64(3)}}
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "c"},
		"spec": map[string]any{"image": "busybox:2", "replicas": int64(5), "maxReplicas": int64(3)}}
	res, err := v.Process(schema.Request{Object: obj, Old: old})
	if err != nil {
		panic(err)
	}
	r := cel.ValidateCustomResource(context.Background(), v, res.Object, old, res.Errors)
	for _, e := range r.Errors {
		fmt.Println(e)
	}
	// Output:
	// spec.replicas: Invalid value: replicas 5 exceeds 3
	// spec: Forbidden: image is immutable
}

func ExampleValidateCRD() {
	crd, err := schema.FromCRDBytes([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {plural: things, kind: Thing}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          names:
            type: array
            items: {type: string}
            x-kubernetes-validations:
            - rule: "self.all(a, self.all(b, a == b || !a.startsWith(b)))"
`))
	if err != nil {
		panic(err)
	}
	for _, e := range cel.ValidateCRD(crd, cel.Options{}) {
		fmt.Println(e)
	}
	// Output:
	// spec.validation.openAPIV3Schema.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)
	// spec.validation.openAPIV3Schema.properties[names].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema
	// spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)
}

func ExampleValidateCRDUpdate() {
	crdWith := func(rule string) *schema.CRD {
		crd, err := schema.FromCRDBytes([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {plural: things, kind: Thing}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}
        x-kubernetes-validations:
        - rule: "` + rule + `"
`))
		if err != nil {
			panic(err)
		}
		return crd
	}
	// includes() is in kube-apiserver 1.37's lists library, but new expressions are compiled
	// at compatibility version 1.36: a stored rule that uses it is kept, a new one is refused.
	stored := crdWith("!has(self.tags) || !self.tags.includes('x')")
	fmt.Println("unchanged:", len(cel.ValidateCRDUpdate(stored, stored, cel.Options{})))
	for _, e := range cel.ValidateCRDUpdate(crdWith("!has(self.tags) || !self.tags.includes('y')"), stored, cel.Options{}) {
		fmt.Println(strings.SplitN(e.Error(), "\n", 2)[0])
	}
	// Output:
	// unchanged: 0
	// spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"!has(self.tags) || !self.tags.includes('y')","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:39: undeclared reference to 'includes' (in container '')
}

func ExampleBaseEnv() {
	env, err := cel.BaseEnv(cel.V1_37)
	if err != nil {
		panic(err)
	}
	env, err = env.Extend(celgo.Variable("limit", celgo.StringType))
	if err != nil {
		panic(err)
	}
	ast, iss := env.Compile(`quantity(limit).isGreaterThan(quantity("1Gi")) && ["b", "a"].sort() == ["a", "b"]`)
	if iss.Err() != nil {
		panic(iss.Err())
	}
	prog, err := env.Program(ast)
	if err != nil {
		panic(err)
	}
	out, det, err := prog.Eval(map[string]any{"limit": "1500Mi"})
	fmt.Println(out, err, *det.ActualCost()) // the cost counts quantity() and sort() at the apiserver's prices
	// Output: true <nil> 24
}

func ExampleNewValidator() {
	s := &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"ports": {Type: "array", XListType: "set", Items: &schema.Structural{Type: "integer"}},
	}, XValidations: []any{map[string]any{"rule": "self.ports == oldSelf.ports", "message": "ports are immutable"}}}
	v := cel.NewValidator(s, false, cel.Options{})
	// list-type set: equality ignores order
	r := v.Validate(context.Background(), field.NewPath("spec"),
		map[string]any{"ports": []any{int64(80), int64(443)}}, map[string]any{"ports": []any{int64(443), int64(80)}}, cel.RuntimeCELCostBudget)
	fmt.Println(len(r.Errors), cel.RuntimeCELCostBudget-r.RemainingBudget)
	r = v.Validate(context.Background(), field.NewPath("spec"),
		map[string]any{"ports": []any{int64(80)}}, map[string]any{"ports": []any{int64(443), int64(80)}}, cel.RuntimeCELCostBudget)
	fmt.Println(r.Errors)
	// Output:
	// 0 5
	// [spec: Invalid value: ports are immutable]
}

func ExampleValidators() {
	crd, err := schema.FromCRDBytes([]byte(crontabCRD))
	if err != nil {
		panic(err)
	}
	s := crd.Version("v1").Structural
	var validators cel.Validators
	fmt.Println(validators.For(s) == validators.For(s)) // compiled once
	// Output: true
}

func ExampleEscape() {
	for _, name := range []string{"spec", "x-y", "a.b", "k8s.io/name", "namespace", "a__b", "1st"} {
		e, ok := cel.Escape(name)
		fmt.Printf("%s %q %v\n", name, e, ok)
	}
	// Output:
	// spec "spec" true
	// x-y "x__dash__y" true
	// a.b "a__dot__b" true
	// k8s.io/name "k8s__dot__io__slash__name" true
	// namespace "__namespace__" true
	// a__b "a__underscores__b" true
	// 1st "" false
}

func ExampleParseQuantity() {
	for _, s := range []string{"1500m", "1.5Gi", "1e3", "12x"} {
		q, err := cel.ParseQuantity(s)
		if err != nil {
			fmt.Println(s, err)
			continue
		}
		i, isInt := q.AsInt64()
		fmt.Println(s, q.AsApproximateFloat64(), i, isInt)
	}
	// Output:
	// 1500m 1.5 0 false
	// 1.5Gi 1.610612736e+09 0 false
	// 1e3 1000 1000 true
	// 12x quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}

func ExampleParseSemver() {
	v, err := cel.ParseSemver("1.2.3-rc.1+build.5")
	fmt.Println(v, err)
	_, err = cel.ParseSemver("1.02.3")
	fmt.Println(err)
	// Output:
	// 1.2.3-rc.1+build.5 <nil>
	// Minor number must not contain leading zeroes "02"
}

func ExampleValueOf() {
	s := &schema.Structural{Type: "string", ValueValidation: &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{Format: "duration"}}}
	fmt.Println(cel.ValueOf("90m", s))
	// Output: 1h30m0s
}

func ExampleSchemaDeclType() {
	s := &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"tags": {Type: "array", Items: &schema.Structural{Type: "string", ValueValidation: &schema.ValueValidation{ValueKeywords: schema.ValueKeywords{MaxLength: ptr(int64(10))}}}},
	}}
	t := cel.SchemaDeclType(s, false)
	tags := t.Fields["tags"].Type
	fmt.Println(tags.CelType(), tags.MaxElements, tags.ElemType.MaxElements)
	// Output: list(string) 1048575 40
}

func ExampleParseRules() {
	rules, err := cel.ParseRules([]any{map[string]any{"rule": "self.x > 0", "reason": "FieldValueForbidden"}})
	fmt.Println(rules[0].Rule, *rules[0].Reason, err)
	// Output: self.x > 0 FieldValueForbidden <nil>
}

func ExampleValidateSchemaRules() {
	s := &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{"x": {Type: "integer"}},
		XValidations: []any{map[string]any{"rule": "self.x == 'a'"}}}
	for _, e := range cel.ValidateSchemaRules(s, field.NewPath("schema"), cel.Options{}) {
		fmt.Println(e.Field, e.Type)
	}
	// Output: schema.x-kubernetes-validations[0].rule Invalid value
}

type allowReaders struct{}

func (allowReaders) Authorize(a cel.AuthzAttributes) (cel.Decision, string, error) {
	if a.Verb == "get" || a.Verb == "list" {
		return cel.DecisionAllow, "readers may read", nil
	}
	return cel.DecisionDeny, "read only", nil
}

func ExampleNewAuthorizerValue() {
	env, _ := cel.BaseEnv(cel.V1_37)
	env, _ = env.Extend(celgo.Variable("authorizer", cel.AuthorizerType))
	ast, _ := env.Compile(`authorizer.group('apps').resource('deployments').namespace('default').check('delete').reason()`)
	prog, _ := env.Program(ast)
	out, _, err := prog.Eval(map[string]any{"authorizer": cel.NewAuthorizerValue(cel.UserInfo{Name: "alice"}, allowReaders{})})
	fmt.Println(out, err)
	// Output: read only <nil>
}

func ptr[T any](v T) *T { return &v }
