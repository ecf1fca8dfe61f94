package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
)

// builtinTypes is the mutating plugin's type converter manager as kube-apiserver
// sets it up for built-in kinds: the type converter built from the OpenAPI of
// the group version (client-go's, built from the same OpenAPI); nil for kinds
// it does not know (the plugin answers 503 for those).
type builtinTypes struct{}

var builtinTypeConverter = applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)

func (builtinTypes) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	stub := &unstructured.Unstructured{}
	stub.SetGroupVersionKind(gvk)
	if _, err := builtinTypeConverter.ObjectToTyped(stub); err != nil {
		return nil
	}
	return builtinTypeConverter
}
func (builtinTypes) Run(context.Context) {}

// compileMAP is the mutating plugin's compilePolicy (compilation.go).
func compileMAP(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	opts := plugincel.OptionalVariableDeclarations{HasParams: policy.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return mutating.PolicyEvaluator{Error: err}
	}
	vars := make([]plugincel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if mcs := policy.Spec.MatchConditions; len(mcs) > 0 {
		acc := make([]plugincel.ExpressionAccessor, len(mcs))
		for i := range mcs {
			acc[i] = (*matchconditions.MatchCondition)(&mcs[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(acc, opts, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}
	var patchers []patch.Patcher
	popts := opts
	popts.HasPatchTypes = true
	for _, m := range policy.Spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			patchers = append(patchers, patch.NewJSONPatcher(compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, popts, environment.StoredExpressions)))
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			patchers = append(patchers, patch.NewApplyConfigurationPatcher(compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, popts, environment.StoredExpressions)))
		}
	}
	return mutating.PolicyEvaluator{Matcher: matcher, Mutators: patchers, CompositedCompiler: compiler}
}

var (
	applyExprs = []string{
		`Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`,
		`Object{data: {"added": string(size(object.data))}}`,
		`Object{data: {"a": "replaced"}}`,
		`Object{metadata: Object.metadata{annotations: {"n": object.metadata.name}}}`,
		`Object{metadata: Object.meta{labels: {"a": "b"}}}`,
		`Object{data: {"m": object.data.missing}}`,
		`Object{}`,
		`Object{data: {"p": params.data.max}}`,
		`Object{spec: Object.spec{items: ["a", "b"]}}`,
	}
	patchExprs = []string{
		`[JSONPatch{op: "add", path: "/data/j", value: "1"}]`,
		`[JSONPatch{op: "remove", path: "/data/a"}]`,
		`[JSONPatch{op: "test", path: "/metadata/name", value: "other"}, JSONPatch{op: "add", path: "/data/t", value: "x"}]`,
		`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/k"), value: "v"}]`,
		`[JSONPatch{op: "replace", path: "/data", value: {"k": "v"}}]`,
		`[]`,
		`[JSONPatch{op: "copy", from: "/metadata/name", path: "/data/name"}]`,
		`object.data.map(k, JSONPatch{op: "replace", path: "/data/" + k, value: k + "!"})`,
	}
)

func genMAP(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{
		"matchConstraints": map[string]any{"namespaceSelector": orEmpty(genSelector(r, "env", "team")), "objectSelector": orEmpty(genSelector(r, "tier", "team")),
			"matchPolicy": "Equivalent", "resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
				"operations": pick(r, []any{"*"}, []any{"CREATE"}, []any{"UPDATE"}), "resources": []any{"configmaps"}}}},
		"reinvocationPolicy": pick(r, "Never", "IfNeeded"),
	}
	if fp := pick(r, "", "Fail", "Ignore"); fp != "" {
		spec["failurePolicy"] = fp
	}
	if r.IntN(3) == 0 {
		spec["paramKind"] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}
	}
	if r.IntN(4) == 0 {
		spec["matchConditions"] = []any{map[string]any{"name": "c", "expression": pick(r, conditionExprs...)}}
	}
	var ms []any
	for i := 0; i < 1+r.IntN(2); i++ {
		if r.IntN(2) == 0 {
			ms = append(ms, map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": pick(r, applyExprs...)}})
		} else {
			ms = append(ms, map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": pick(r, patchExprs...)}})
		}
	}
	spec["mutations"] = ms
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": name}, "spec": spec}
}

func genMAPBinding(r *rand.Rand, policy, name string) map[string]any {
	spec := map[string]any{"policyName": policy}
	if r.IntN(2) == 0 {
		spec["paramRef"] = map[string]any{"name": pick(r, "limits", "nope"), "parameterNotFoundAction": pick(r, "Deny", "Allow")}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": name}, "spec": spec}
}

// TestMutatingPolicies compares Admit with the apiserver's mutating policy
// dispatcher (one pass, as the admission chain's first invocation) on
// generated MutatingAdmissionPolicies over ConfigMaps, merged by ConfigMap's
// OpenAPI type (apply configurations setting fields ConfigMap does not have
// fail as they do in the apiserver).
func TestMutatingPolicies(t *testing.T) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(6, 5))
	n := sampleSize(150)
	mutated, denied := 0, 0
	for i := 0; i < n; i++ {
		var policies, bindings []map[string]any
		for p := 0; p < 1+r.IntN(2); p++ {
			pn := fmt.Sprintf("m%d", p)
			policies = append(policies, genMAP(r, pn))
			bindings = append(bindings, genMAPBinding(r, pn, pn+"-b"))
		}
		op := pick(r, "CREATE", "UPDATE")
		ns := pick(r, "ns-a", "ns-b")
		obj := genConfigMap(r, "cm1", ns)
		var old map[string]any
		if op == "UPDATE" {
			old = genConfigMap(r, "cm1", ns)
		}
		// Reference.
		var hooks []mutating.PolicyHook
		for j, p := range policies {
			var pol admissionregistrationv1.MutatingAdmissionPolicy
			var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
			fromMap(t, p, &pol)
			fromMap(t, bindings[j], &bd)
			h := mutating.PolicyHook{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)}
			if pol.Spec.ParamKind != nil {
				h.ParamInformer, h.ParamScope = w.paramInf, meta.RESTScopeNamespace
			}
			hooks = append(hooks, h)
		}
		uobj := &unstructured.Unstructured{Object: deepCopy(obj)}
		var uold runtime.Object
		if old != nil {
			uold = &unstructured.Unstructured{Object: deepCopy(old)}
		}
		attrs := admission.NewAttributesRecord(uobj, uold, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, ns, "cm1",
			schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", admission.Operation(op), nil, false, &user.DefaultInfo{Name: "alice"})
		d := mutating.NewDispatcher(nil, w.rawMatcher, builtinTypes{})
		refErr := d.Dispatch(context.Background(), attrs, admission.NewObjectInterfacesFromScheme(w.scheme), hooks)
		// writepath: only the first pass (no reinvocation: the reference runs the plugin once).
		for _, p := range policies {
			p["spec"].(map[string]any)["reinvocationPolicy"] = "Never"
		}
		objs := append(append([]map[string]any{}, policies...), bindings...)
		chain, err := wadmission.New(wadmission.Config{Objects: objs, Params: w.params, Namespaces: w.namespaces})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Operation(op),
			Kind:     wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			Name:     "cm1", Namespace: ns, Object: obj, OldObject: old, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ctx, _ := json.Marshal(map[string]any{"policies": policies, "bindings": bindings, "obj": obj, "op": op})
		if refErr != nil {
			denied++
			if !assert.Error(t, err, "case %d: %s", i, ctx) || !assert.Equal(t, refErr.Error(), err.Error(), "case %d: %s", i, ctx) {
				return
			}
			continue
		}
		if !assert.NoError(t, err, "case %d: %s", i, ctx) {
			return
		}
		want, _ := json.Marshal(uobj.Object)
		got, _ := json.Marshal(res.Object)
		if len(res.Patches) > 0 {
			mutated++
		}
		if !assert.JSONEq(t, string(want), string(got), "case %d: %s", i, ctx) {
			return
		}
	}
	t.Logf("%d cases (%d mutated, %d denied), 0 disagreements", n, mutated, denied)
}
