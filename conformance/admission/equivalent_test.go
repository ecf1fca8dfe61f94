package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"

	wadmission "github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/conversion"
	wschema "github.com/writepath/writepath/schema"
)

// The CRD whose versions are equivalent resources: v1 (status and scale), v1beta1
// (status) and v2 (no subresources), conversion strategy None.
const widgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1beta1
    served: true
    storage: false
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v2
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

var widgetVersions = []string{"v1", "v1beta1", "v2"}

// crObjects are the ObjectInterfaces the apiextensions-apiserver gives admission
// for custom resources: unstructured objects, the None strategy's converter
// (apiVersion rewritten), and the equivalent resource registry its handler fills
// in (every version of the CRD, with its status and scale subresources).
type crObjects struct {
	registry runtime.EquivalentResourceRegistry
	scheme   *runtime.Scheme
}

func newCRObjects() *crObjects {
	reg := runtime.NewEquivalentResourceRegistry()
	subs := map[string][]string{"v1": {"status", "scale"}, "v1beta1": {"status"}}
	for _, v := range widgetVersions {
		res := schema.GroupVersionResource{Group: "example.com", Version: v, Resource: "widgets"}
		kind := schema.GroupVersionKind{Group: "example.com", Version: v, Kind: "Widget"}
		reg.RegisterKindFor(res, "", kind)
		for _, s := range subs[v] {
			if s == "scale" {
				reg.RegisterKindFor(res, s, schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
			} else {
				reg.RegisterKindFor(res, s, kind)
			}
		}
	}
	return &crObjects{registry: reg, scheme: runtime.NewScheme()}
}

func (o *crObjects) GetObjectCreater() runtime.ObjectCreater     { return o }
func (o *crObjects) GetObjectTyper() runtime.ObjectTyper         { return o.scheme }
func (o *crObjects) GetObjectDefaulter() runtime.ObjectDefaulter { return o }
func (o *crObjects) GetObjectConvertor() runtime.ObjectConvertor { return o }
func (o *crObjects) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.registry
}

func (o *crObjects) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
func (o *crObjects) Default(runtime.Object) {}

// Convert is the None strategy: the content with the target's apiVersion.
func (o *crObjects) Convert(in, out, _ interface{}) error {
	ui, uo := in.(*unstructured.Unstructured), out.(*unstructured.Unstructured)
	gv := uo.GetAPIVersion()
	uo.Object = runtime.DeepCopyJSON(ui.Object)
	uo.SetAPIVersion(gv)
	return nil
}
func (o *crObjects) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (o *crObjects) ConvertFieldLabel(schema.GroupVersionKind, string, string) (string, string, error) {
	return "", "", fmt.Errorf("not supported")
}

// crTypes gives the mutating policy dispatcher the deduced type for widgets.
type crTypes struct{}

func (crTypes) GetTypeConverter(schema.GroupVersionKind) managedfields.TypeConverter {
	return managedfields.NewDeducedTypeConverter()
}
func (crTypes) Run(context.Context) {}

func genWidgetRule(r *rand.Rand) map[string]any {
	res := pick(r, "widgets", "widgets", "widgets/status", "widgets/*", "*", "*/scale", "gadgets")
	rule := map[string]any{"apiGroups": []any{pick[any](r, "example.com", "*")},
		"apiVersions": toAny(some(r, 2, "v1", "v1beta1", "v2", "v3", "*")),
		"operations":  pick(r, []any{"*"}, []any{"CREATE"}, []any{"UPDATE"}),
		"resources":   []any{res}}
	if r.IntN(6) == 0 {
		rule["resourceNames"] = []any{pick(r, "w1", "w2")}
	}
	return rule
}

// genEquivalentConstraints are generated matchConstraints over widgets: the
// request's version or other ones, matchPolicy Exact or Equivalent (absent is
// Equivalent once the apiserver has defaulted it).
func genEquivalentConstraints(r *rand.Rand) map[string]any {
	var rules []any
	for i := 0; i < 1+r.IntN(2); i++ {
		rules = append(rules, genWidgetRule(r))
	}
	mc := map[string]any{"resourceRules": rules, "namespaceSelector": map[string]any{}, "objectSelector": map[string]any{},
		"matchPolicy": pick(r, "Exact", "Equivalent", "Equivalent")}
	if r.IntN(4) == 0 {
		mc["excludeResourceRules"] = []any{genWidgetRule(r)}
	}
	return mc
}

const describeExpr = `'kind=' + request.kind.group + '/' + request.kind.version + '/' + request.kind.kind +
 ' resource=' + request.resource.version + '/' + request.resource.resource + ' sub=' + (has(request.subResource) ? request.subResource : '') +
 ' requestKind=' + request.requestKind.version + ' requestResource=' + request.requestResource.version +
 ' object=' + (object == null ? 'none' : object.apiVersion) + ' old=' + (oldObject == null ? 'none' : oldObject.apiVersion)`

type widgetRequest struct {
	op, version, sub, name string
	obj, old               map[string]any
}

func genWidgetRequest(r *rand.Rand) widgetRequest {
	q := widgetRequest{op: pick(r, "CREATE", "UPDATE"), version: pick(r, widgetVersions...), name: pick(r, "w1", "w2")}
	if r.IntN(3) == 0 {
		q.sub = "status"
		q.op = "UPDATE"
		if q.version == "v2" {
			q.version = pick(r, "v1", "v1beta1")
		}
	}
	mk := func(v string) map[string]any {
		return map[string]any{"apiVersion": "example.com/" + v, "kind": "Widget",
			"metadata": map[string]any{"name": q.name, "namespace": "ns-a"}, "spec": map[string]any{"size": int64(r.IntN(5))}}
	}
	q.obj = mk(q.version)
	if q.op == "UPDATE" {
		q.old = mk(q.version)
	}
	return q
}

func (q widgetRequest) attrs() admission.Attributes {
	var oo runtime.Object
	if q.old != nil {
		oo = &unstructured.Unstructured{Object: deepCopy(q.old)}
	}
	return admission.NewAttributesRecord(&unstructured.Unstructured{Object: deepCopy(q.obj)}, oo,
		schema.GroupVersionKind{Group: "example.com", Version: q.version, Kind: "Widget"}, "ns-a", q.name,
		schema.GroupVersionResource{Group: "example.com", Version: q.version, Resource: "widgets"}, q.sub, admission.Operation(q.op), nil, false,
		&user.DefaultInfo{Name: "alice"})
}

func (q widgetRequest) ours(t testing.TB, w *world, crd *wschema.CRD, objs []map[string]any) (wadmission.Result, error) {
	chain, err := wadmission.New(wadmission.Config{Objects: objs, Namespaces: w.namespaces, Versions: wadmission.Versions{CRDs: []*wschema.CRD{crd}, Converter: conversion.Builtin{CRDs: []*wschema.CRD{crd}}}})
	require.NoError(t, err)
	return chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Operation(q.op),
		Kind:        wschema.GroupVersionKind{Group: "example.com", Version: q.version, Kind: "Widget"},
		Resource:    wschema.GroupVersionResource{Group: "example.com", Version: q.version, Resource: "widgets"},
		SubResource: q.sub, Name: q.name, Namespace: "ns-a", Object: q.obj, OldObject: q.old, UserInfo: wadmission.UserInfo{Username: "alice"}})
}

// TestEquivalentValidatingPolicies compares ValidatingAdmissionPolicies
// matching widgets through equivalent versions with the validating policy
// dispatcher over the policy matcher, given the equivalent resource registry
// and converter of the apiextensions-apiserver: whether a policy matches, and
// the kind, resource and object version its expressions see (the denial
// message prints them).
func TestEquivalentValidatingPolicies(t *testing.T) {
	w := newWorld(t)
	crd, err := wschema.FromCRDBytes([]byte(widgetsCRD))
	require.NoError(t, err)
	o := newCRObjects()
	r := rand.New(rand.NewPCG(11, 4))
	n := sampleSize(150)
	denied, equivalent := 0, 0
	for i := 0; i < n; i++ {
		var policies, bindings []map[string]any
		for p := 0; p < 1+r.IntN(2); p++ {
			name := fmt.Sprintf("p%d", p)
			policies = append(policies, map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
				"metadata": map[string]any{"name": name}, "spec": map[string]any{"failurePolicy": "Fail",
					"matchConstraints": genEquivalentConstraints(r),
					"validations":      []any{map[string]any{"expression": "false", "messageExpression": describeExpr}}}})
			b := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": name + "-b"}, "spec": map[string]any{"policyName": name, "validationActions": []any{"Deny"}}}
			if r.IntN(4) == 0 {
				mr := genEquivalentConstraints(r)
				b["spec"].(map[string]any)["matchResources"] = mr
			}
			bindings = append(bindings, b)
		}
		q := genWidgetRequest(r)
		var hooks []validating.PolicyHook
		for _, p := range policies {
			var pol admissionregistrationv1.ValidatingAdmissionPolicy
			fromMap(t, p, &pol)
			h := validating.PolicyHook{Policy: &pol, Evaluator: compilePolicy(&pol)}
			for _, b := range bindings {
				var bd admissionregistrationv1.ValidatingAdmissionPolicyBinding
				fromMap(t, b, &bd)
				if bd.Spec.PolicyName == pol.Name {
					h.Bindings = append(h.Bindings, &bd)
				}
			}
			hooks = append(hooks, h)
		}
		refErr := validating.NewDispatcher(nil, w.matcher).Dispatch(context.Background(), q.attrs(), o, hooks)
		_, err := q.ours(t, w, crd, append(append([]map[string]any{}, policies...), bindings...))
		ctx, _ := json.Marshal(map[string]any{"policies": policies, "bindings": bindings, "req": fmt.Sprintf("%+v", q)})
		if refErr == nil {
			if !assert.NoError(t, err, "case %d: %s", i, ctx) {
				return
			}
			continue
		}
		denied++
		if !assert.Error(t, err, "case %d: %s", i, ctx) || !assert.Equal(t, refErr.Error(), err.Error(), "case %d: %s", i, ctx) {
			return
		}
		if throughOther(refErr.Error(), q.version) {
			equivalent++
		}
	}
	require.Greater(t, equivalent, n/20, "too few equivalent matches")
	t.Logf("%d cases (%d denied, %d matched through an equivalent version), 0 disagreements", n, denied, equivalent)
}

// throughOther reports whether a described request (describeExpr) names a
// kind version other than the request's.
func throughOther(s, version string) bool {
	return strings.Contains(s, "kind=example.com/") && strings.Count(s, "kind=example.com/") > strings.Count(s, "kind=example.com/"+version+"/")
}

// TestEquivalentMutatingPolicies compares MutatingAdmissionPolicies matching
// widgets through equivalent versions with the mutating policy dispatcher:
// the policy's JSON patch sees the object converted to the matched version,
// and the result comes back at the request's version.
func TestEquivalentMutatingPolicies(t *testing.T) {
	w := newWorld(t)
	crd, err := wschema.FromCRDBytes([]byte(widgetsCRD))
	require.NoError(t, err)
	o := newCRObjects()
	r := rand.New(rand.NewPCG(12, 5))
	n := sampleSize(150)
	mutated, equivalent := 0, 0
	for i := 0; i < n; i++ {
		var policies, bindings []map[string]any
		for p := 0; p < 1+r.IntN(3); p++ {
			name := fmt.Sprintf("m%d", p)
			expr := `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"` + name + `": ` + describeExpr + `}}]`
			if r.IntN(2) == 0 {
				expr = `[JSONPatch{op: "add", path: "/spec/` + name + `", value: object.apiVersion + ' ' + request.kind.version}]`
			}
			policies = append(policies, map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
				"metadata": map[string]any{"name": name}, "spec": map[string]any{"failurePolicy": "Fail", "reinvocationPolicy": "Never",
					"matchConstraints": genEquivalentConstraints(r),
					"mutations":        []any{map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": expr}}}}})
			bindings = append(bindings, map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": name + "-b"}, "spec": map[string]any{"policyName": name}})
		}
		q := genWidgetRequest(r)
		var hooks []mutating.PolicyHook
		for j, p := range policies {
			var pol admissionregistrationv1.MutatingAdmissionPolicy
			var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
			fromMap(t, p, &pol)
			fromMap(t, bindings[j], &bd)
			hooks = append(hooks, mutating.PolicyHook{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)})
		}
		attrs := q.attrs()
		refErr := mutating.NewDispatcher(nil, w.rawMatcher, crTypes{}).Dispatch(context.Background(), attrs, o, hooks)
		res, err := q.ours(t, w, crd, append(append([]map[string]any{}, policies...), bindings...))
		ctx, _ := json.Marshal(map[string]any{"policies": policies, "req": fmt.Sprintf("%+v", q)})
		if refErr != nil {
			if !assert.Error(t, err, "case %d: %s", i, ctx) || !assert.Equal(t, refErr.Error(), err.Error(), "case %d: %s", i, ctx) {
				return
			}
			continue
		}
		if !assert.NoError(t, err, "case %d: %s", i, ctx) {
			return
		}
		want, _ := json.Marshal(attrs.GetObject().(*unstructured.Unstructured).Object)
		got, _ := json.Marshal(res.Object)
		if len(res.Patches) > 0 {
			mutated++
			if throughOther(string(got), q.version) || strings.Count(string(got), " "+q.version+`"`) < strings.Count(string(got), `example.com/v`)-1 {
				equivalent++
			}
		}
		if !assert.JSONEq(t, string(want), string(got), "case %d: %s", i, ctx) {
			return
		}
	}
	t.Logf("%d cases (%d mutated, %d with a policy matched through another version), 0 disagreements", n, mutated, equivalent)
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
