package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// sampleSize is n normally and 100k under WRITEPATH_LONG=1.
func sampleSize(n int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 100000
	}
	return n
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func some[T any](r *rand.Rand, max int, xs ...T) []T {
	n := r.IntN(max + 1)
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, xs[r.IntN(len(xs))])
	}
	return out
}

var (
	validationExprs = []string{
		"size(object.data) <= 2",
		"object.metadata.name.startsWith('cm')",
		"!has(object.data.secret)",
		"object.data.all(k, k.size() < 3)",
		"object.data.x == 'y'",
		"int(object.data.n) > 1",
		"oldObject == null || size(object.data) >= size(oldObject.data)",
		"object == null || has(object.data)",
		"request.operation == 'CREATE'",
		"request.userInfo.username == 'alice'",
		"request.namespace == 'ns-a' && request.name != ''",
		"namespaceObject.metadata.labels.env == 'prod'",
		"variables.count < 3",
		"variables.keys.exists(k, k == 'a')",
		"params.data.max == '2'",
		"size(object.data) <= int(params.data.max)",
		"size(object.data) +",
		"1 + 'a' == 2",
		"'x'",
		"object.data",
		"object.metadata.?labels.orValue({}).size() > 0",
		"[1, 2, 3].map(x, x * 2).sum() == 12",
		"object.data.exists(k, object.data[k].matches('^[0-9]+$'))",
	}
	messageExprs = []string{
		"'size ' + string(size(object.data))",
		"object.data.missing",
		"'  '",
		"'line\\nbreak'",
		"object.metadata.name",
		"string(object.metadata.name) + ' rejected'",
		"'limit ' + params.data.max",
		"1",
	}
	messages   = []string{"", "too many keys", "  padded  "}
	reasons    = []string{"", "Forbidden", "Invalid", "Unauthorized", "RequestEntityTooLarge"}
	auditExprs = []string{
		"string(size(object.data))",
		"null",
		"'  '",
		"object.data.missing",
		"object.metadata.name",
		"'ns=' + request.namespace",
		"string(variables.count)",
		"params.data.max",
		"1",
	}
	conditionExprs = []string{
		"object == null || object.metadata.name != 'skip'",
		"has(object.metadata.labels) && 'tier' in object.metadata.labels",
		"object.data.missing == 'x'",
		"request.operation != 'DELETE'",
		"variables.count >= 0",
	}
	actionSets = [][]any{{"Deny"}, {"Warn"}, {"Audit"}, {"Deny", "Audit"}, {"Warn", "Audit"}}
)

func genSelector(r *rand.Rand, keys ...string) any {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return map[string]any{"matchLabels": map[string]any{pick(r, keys...): pick(r, "prod", "dev", "web", "x")}}
	case 2:
		op := pick(r, "In", "NotIn", "Exists", "DoesNotExist")
		e := map[string]any{"key": pick(r, keys...), "operator": op}
		if op == "In" || op == "NotIn" {
			e["values"] = []any{pick(r, "prod", "dev", "web", "x")}
		}
		return map[string]any{"matchExpressions": []any{e}}
	}
	return map[string]any{}
}

func genPolicy(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{}
	rule := map[string]any{"apiGroups": []any{""}, "apiVersions": []any{pick[any](r, "v1", "*")},
		"operations": pick(r, []any{"*"}, []any{"CREATE", "UPDATE"}, []any{"UPDATE", "DELETE"}, []any{"CREATE"}),
		"resources":  []any{pick[any](r, "configmaps", "*", "secrets")}}
	mc := map[string]any{"resourceRules": []any{rule}}
	if r.IntN(4) == 0 {
		mc["excludeResourceRules"] = []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"},
			"resources": []any{"configmaps"}, "resourceNames": []any{"cm-excluded"}}}
	}
	// The apiserver defaults both selectors to {} and matchPolicy to Equivalent.
	mc["namespaceSelector"] = orEmpty(genSelector(r, "env", "team"))
	mc["objectSelector"] = orEmpty(genSelector(r, "tier", "team"))
	mc["matchPolicy"] = "Equivalent"
	spec["matchConstraints"] = mc
	if fp := pick(r, "", "Fail", "Ignore"); fp != "" {
		spec["failurePolicy"] = fp
	}
	if r.IntN(2) == 0 {
		spec["paramKind"] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}
	}
	if r.IntN(2) == 0 {
		spec["variables"] = []any{
			map[string]any{"name": "keys", "expression": pick(r, "object.data.map(k, k)", "object.missing.map(k, k)")},
			map[string]any{"name": "count", "expression": pick(r, "size(variables.keys)", "size(object.data)", "'str'")},
		}
	}
	if r.IntN(3) == 0 {
		var mcs []any
		for i, e := range some(r, 2, conditionExprs...) {
			mcs = append(mcs, map[string]any{"name": fmt.Sprintf("c%d", i), "expression": e})
		}
		if len(mcs) > 0 {
			spec["matchConditions"] = mcs
		}
	}
	var vals []any
	n := 1 + r.IntN(5)
	for i := 0; i < n; i++ {
		v := map[string]any{"expression": pick(r, validationExprs...)}
		if r.IntN(60) == 0 {
			// Over the per-call cost limit.
			v["expression"] = "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59].all(a, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59].all(b, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59].all(c, a + b + c >= 0)))"
		}
		if m := pick(r, messages...); m != "" {
			v["message"] = m
		}
		if r.IntN(2) == 0 {
			v["messageExpression"] = pick(r, messageExprs...)
		}
		if rs := pick(r, reasons...); rs != "" {
			v["reason"] = rs
		}
		vals = append(vals, v)
	}
	spec["validations"] = vals
	if r.IntN(3) == 0 {
		var aas []any
		for i, e := range some(r, 2, auditExprs...) {
			aas = append(aas, map[string]any{"key": fmt.Sprintf("k%d", i%2), "valueExpression": e})
		}
		if len(aas) > 0 {
			spec["auditAnnotations"] = aas
		}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name}, "spec": spec}
}

func genBinding(r *rand.Rand, policy, name string) map[string]any {
	spec := map[string]any{"policyName": policy, "validationActions": pick(r, actionSets...)}
	switch r.IntN(5) {
	case 0:
		spec["paramRef"] = map[string]any{"name": "limits", "parameterNotFoundAction": pick(r, "Deny", "Allow")}
	case 1:
		spec["paramRef"] = map[string]any{"name": "nope", "parameterNotFoundAction": pick(r, "Deny", "Allow")}
	case 2:
		spec["paramRef"] = map[string]any{"selector": genSelector(r, "kind"), "parameterNotFoundAction": pick(r, "Deny", "Allow")}
	case 3:
		spec["paramRef"] = map[string]any{"name": "limits", "namespace": "ns-b", "parameterNotFoundAction": "Deny"}
	}
	if r.IntN(4) == 0 {
		spec["matchResources"] = map[string]any{"namespaceSelector": orEmpty(genSelector(r, "env", "team")),
			"objectSelector": orEmpty(genSelector(r, "tier")), "matchPolicy": "Equivalent"}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": name}, "spec": spec}
}

func genConfigMap(r *rand.Rand, name, ns string) map[string]any {
	md := map[string]any{"name": name, "namespace": ns}
	if labels := some(r, 2, "tier", "team"); len(labels) > 0 {
		l := map[string]any{}
		for _, k := range labels {
			l[k] = pick(r, "web", "x")
		}
		md["labels"] = l
	}
	data := map[string]any{}
	for _, k := range some(r, 3, "a", "n", "secret", "x", "long-key") {
		data[k] = pick(r, "1", "3", "y", "abc")
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}
}

type gencase struct {
	policies, bindings []map[string]any
	op, name, ns, user string
	obj, old           map[string]any
}

func genCase(r *rand.Rand) gencase {
	var c gencase
	np := 1 + r.IntN(3)
	for i := 0; i < np; i++ {
		pn := fmt.Sprintf("p%d", i)
		c.policies = append(c.policies, genPolicy(r, pn))
		nb := 1 + r.IntN(2)
		for j := 0; j < nb; j++ {
			c.bindings = append(c.bindings, genBinding(r, pn, fmt.Sprintf("%s-b%d", pn, j)))
		}
	}
	c.op = pick(r, "CREATE", "UPDATE", "DELETE")
	c.name = pick(r, "cm1", "cm-excluded", "skip")
	c.ns = pick(r, "ns-a", "ns-b")
	c.user = pick(r, "alice", "bob")
	if c.op != "DELETE" {
		c.obj = genConfigMap(r, c.name, c.ns)
	}
	if c.op != "CREATE" {
		c.old = genConfigMap(r, c.name, c.ns)
	}
	return c
}

func (w *world) ours(t testing.TB, c gencase) outcome {
	objs := append(append([]map[string]any{}, c.policies...), c.bindings...)
	chain, err := wadmission.New(wadmission.Config{Objects: objs, Params: w.params, Namespaces: w.namespaces})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), wadmission.Request{
		Operation: wadmission.Operation(c.op),
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      c.name, Namespace: c.ns, Object: c.obj, OldObject: c.old,
		UserInfo: wadmission.UserInfo{Username: c.user},
	})
	out := outcome{Warnings: res.RawWarnings, Annotations: res.AuditAnnotations}
	if err != nil {
		out.Err = err.Error()
		if se, ok := err.(*status.Error); ok {
			out.Status, _ = json.Marshal(se)
		}
	}
	return out
}

// TestValidatingPolicies compares Admit with the apiserver's validating policy
// dispatcher (its matcher, param collection and validator as the plugin
// compiles policies) on generated policies, bindings and requests.
func TestValidatingPolicies(t *testing.T) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(6, 37))
	n := sampleSize(150)
	disagree, denied, warned, annotated := 0, 0, 0, 0
	for i := 0; i < n; i++ {
		c := genCase(r)
		compiled := w.compileRef(t, c.policies, c.bindings)
		ref := w.refAdmit(t, compiled, c.op, c.name, c.ns, c.obj, c.old, c.user)
		got := w.ours(t, c)
		// Params selected by a label selector come from the informer cache in
		// Go map order: accept any order the reference produces.
		for try := 0; try < 20 && usesSelector(c) && !same(ref, got); try++ {
			ref = w.refAdmit(t, compiled, c.op, c.name, c.ns, c.obj, c.old, c.user)
		}
		if ref.Err != "" {
			denied++
		}
		if len(ref.Warnings) > 0 {
			warned++
		}
		if len(ref.Annotations) > 0 {
			annotated++
		}
		if !assertSame(t, i, c, ref, got) {
			disagree++
			if disagree > 10 {
				t.Fatalf("too many disagreements")
			}
		}
	}
	t.Logf("%d cases (%d denied, %d with warnings, %d with audit annotations), %d disagreements", n, denied, warned, annotated, disagree)
}

func assertSame(t testing.TB, i int, c gencase, ref, got outcome) bool {
	ok := true
	ctx := func() string {
		b, _ := json.Marshal(map[string]any{"policies": c.policies, "bindings": c.bindings, "op": c.op, "obj": c.obj, "old": c.old, "ns": c.ns, "user": c.user})
		return fmt.Sprintf("case %d: %s", i, b)
	}
	ok = assert.Equal(t, ref.Err, got.Err, ctx()) && ok
	if ref.Status != nil && got.Status != nil {
		ok = assert.JSONEq(t, string(ref.Status), string(got.Status), ctx()) && ok
	}
	ok = assert.Equal(t, ref.Warnings, got.Warnings, ctx()) && ok
	ok = assert.Equal(t, ref.Annotations, got.Annotations, ctx()) && ok
	return ok
}

func orEmpty(s any) any {
	if s == nil {
		return map[string]any{}
	}
	return s
}

func usesSelector(c gencase) bool {
	for _, b := range c.bindings {
		if pr, ok := b["spec"].(map[string]any)["paramRef"].(map[string]any); ok {
			if _, ok := pr["selector"]; ok {
				return true
			}
		}
	}
	return false
}

func same(a, b outcome) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
