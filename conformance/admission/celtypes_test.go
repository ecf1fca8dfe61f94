package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// typedWorld has namespaces with every field BuildNamespaceType declares.
func newTypedWorld(t testing.TB) *world {
	w := &world{
		namespaces: []map[string]any{
			{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns-a", "uid": "u-1",
				"labels": map[string]any{"env": "prod"}, "annotations": map[string]any{"a": "b"},
				"creationTimestamp": "2024-01-02T03:04:05Z", "resourceVersion": "7", "generation": 2,
				"finalizers": []any{"example.com/f"}},
				"spec":   map[string]any{"finalizers": []any{"kubernetes"}},
				"status": map[string]any{"phase": "Active", "conditions": []any{map[string]any{"type": "NamespaceDeletionDiscoveryFailure", "status": "False", "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "R", "message": "m"}}}},
			{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns-b", "labels": map[string]any{"env": "dev"}},
				"status": map[string]any{"phase": "Active"}},
		},
		params: []map[string]any{
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "ns-a"}, "data": map[string]any{"max": "2"}},
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "ns-b"}, "data": map[string]any{"max": "5"}},
		},
	}
	return w.start(t)
}

// typedRequest is a ConfigMap request with everything `request` carries.
type typedRequest struct {
	op, name, ns, sub string
	dryRun            bool
	user              user.DefaultInfo
	obj, old          map[string]any
}

func (w *world) refTyped(t testing.TB, c compiledRef, r typedRequest) outcome {
	var o, oo runtime.Object
	if r.obj != nil {
		o = &unstructured.Unstructured{Object: deepCopy(r.obj)}
	}
	if r.old != nil {
		oo = &unstructured.Unstructured{Object: deepCopy(r.old)}
	}
	var opts runtime.Object
	switch r.op {
	case "CREATE":
		opts = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}}
	case "UPDATE":
		opts = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"}}
	case "DELETE":
		opts = &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}}
	}
	u := r.user
	attrs := admission.NewAttributesRecord(o, oo, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, r.ns, r.name,
		schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, r.sub, admission.Operation(r.op), opts, r.dryRun, &u)
	rec := &warnings{}
	ann := &annotated{Attributes: attrs, annotations: map[string]string{}}
	ctx, cancel := context.WithTimeout(warning.WithWarningRecorder(context.Background(), rec), 30*time.Second)
	defer cancel()
	d := validating.NewDispatcher(nil, w.matcher)
	err := d.Dispatch(ctx, ann, admission.NewObjectInterfacesFromScheme(w.scheme), c.hooks)
	out := outcome{Warnings: rec.list}
	if len(ann.annotations) > 0 {
		out.Annotations = ann.annotations
	}
	if err != nil {
		out.Err = err.Error()
		if se, ok := err.(interface{ Status() metav1.Status }); ok {
			st := se.Status()
			st.Kind, st.APIVersion = "Status", "v1"
			out.Status, _ = json.Marshal(st)
		}
	}
	return out
}

func (w *world) oursTyped(t testing.TB, objs []map[string]any, r typedRequest) outcome {
	chain, err := wadmission.New(wadmission.Config{Objects: objs, Params: w.params, Namespaces: w.namespaces})
	require.NoError(t, err)
	res, err := chain.Admit(context.Background(), wadmission.Request{
		Operation: wadmission.Operation(r.op),
		Kind:      wschema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  wschema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      r.name, Namespace: r.ns, Object: r.obj, OldObject: r.old, SubResource: r.sub, DryRun: r.dryRun,
		UserInfo: wadmission.UserInfo{Username: r.user.Name, UID: r.user.UID, Groups: r.user.Groups, Extra: r.user.Extra},
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

// typedFields are the paths of `request` and `namespaceObject`, declared and
// not (misspelt, absent from BuildNamespaceType, the uid the apiserver
// spells UID), with the kind of value they hold.
var typedFields = []string{
	"request.kind", "request.kind.group", "request.kind.version", "request.kind.kind", "request.kind.resource",
	"request.resource", "request.resource.resource", "request.resource.kind",
	"request.subResource", "request.requestKind.kind", "request.requestResource.group", "request.requestSubResource",
	"request.name", "request.namespace", "request.operation", "request.uid", "request.object", "request.oldObject",
	"request.userInfo", "request.userInfo.username", "request.userInfo.uid", "request.userInfo.groups",
	"request.userInfo.extra", "request.userInfo.name", "request.dryRun", "request.options", "request.options.kind",
	"request.nonexistentField", "request.Name",
	"namespaceObject", "namespaceObject.metadata", "namespaceObject.metadata.name", "namespaceObject.metadata.UID",
	"namespaceObject.metadata.uid", "namespaceObject.metadata.labels", "namespaceObject.metadata.labels.env",
	"namespaceObject.metadata.annotations", "namespaceObject.metadata.creationTimestamp",
	"namespaceObject.metadata.deletionTimestamp", "namespaceObject.metadata.generation",
	"namespaceObject.metadata.resourceVersion", "namespaceObject.metadata.finalizers",
	"namespaceObject.metadata.ownerReferences", "namespaceObject.metadata.managedFields",
	"namespaceObject.spec", "namespaceObject.spec.finalizers", "namespaceObject.status.phase",
	"namespaceObject.status.conditions", "namespaceObject.status.conditions[0].lastTransitionTime",
	"namespaceObject.status.conditions[0].type", "namespaceObject.status.conditions[0].foo",
	"namespaceObject.kind", "namespaceObject.apiVersion",
	// ConfigMap params are typed objects in the apiserver (a Go map compares
	// with a non-map as "no such overload").
	"params.data.max", "params.nope", "params.metadata.name", "params.data", "params.metadata", "params",
	"variables.v", "variables.v.group", "variables.v.nope", "variables.w", "variables.missing",
}

// typedTemplates use a field (%[1]s) with values of every type.
var typedTemplates = []string{
	"%[1]s == 'a'", "%[1]s == 1", "%[1]s == true", "%[1]s == 1.5", "%[1]s == null", "%[1]s == []", "%[1]s == {}",
	"%[1]s != timestamp('2024-01-02T03:04:05Z')", "%[1]s < 3", "%[1]s > 'a'",
	"has(%[1]s)", "size(%[1]s) > 0", "%[1]s.startsWith('a')", "%[1]s.exists(x, x == 'kubernetes')",
	"%[1]s[0] == 1", "%[1]s[0] == 'kubernetes'", "%[1]s['env'] == 'prod'", "%[1]s.all(k, k != '')",
	"type(%[1]s) == string", "%[1]s", "string(%[1]s) != ''", "%[1]s.getFullYear() > 2000",
	"%[1]s.size() >= 0 && %[1]s.matches('^a')", "'kubernetes' in %[1]s", "!%[1]s",
	"%[1]s.?foo.orValue('') == ''", "%[1]s.map(x, x).size() >= 0",
}

// variableExprs are what variables v and w are bound to.
var variableExprs = []string{
	"request.kind", "request.userInfo.groups", "request.userInfo.extra", "namespaceObject.metadata.labels",
	"request.name", "request.dryRun", "namespaceObject.metadata.creationTimestamp", "namespaceObject",
	"namespaceObject.metadata.generation", "request.options", "request.nope", "[request.name]",
	"{'k': request.userInfo.groups}", "namespaceObject.status.conditions", "1.5", "null", "optional.of(1)",
	"type(1)", "b'x'", "duration('1s')", "request.userInfo.uid == '' ? 1u : 2u",
}

func typedExpr(r *rand.Rand) string {
	return fmt.Sprintf(pick(r, typedTemplates...), pick(r, typedFields...))
}

// genTypedPolicy builds a policy whose expressions read request,
// namespaceObject, params and variables, typed and mistyped.
func genTypedPolicy(r *rand.Rand, name string) map[string]any {
	spec := map[string]any{
		"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
			"operations": []any{"*"}, "resources": []any{"configmaps", "configmaps/status"}}},
			"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent"},
		"failurePolicy": pick(r, "Fail", "Ignore"),
	}
	if r.IntN(2) == 0 {
		spec["paramKind"] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}
	}
	if r.IntN(2) == 0 {
		spec["variables"] = []any{
			map[string]any{"name": "v", "expression": pick(r, variableExprs...)},
			map[string]any{"name": "w", "expression": pick(r, "variables.v", "variables.v[0]", "variables.w", "size(variables.v)", pick(r, variableExprs...))},
		}
	}
	if r.IntN(4) == 0 {
		spec["matchConditions"] = []any{map[string]any{"name": "c", "expression": typedExpr(r)}}
	}
	var vals []any
	for i := 0; i < 1+r.IntN(3); i++ {
		v := map[string]any{"expression": typedExpr(r)}
		if r.IntN(2) == 0 {
			v["messageExpression"] = pick(r,
				"'got ' + string(%[1]s)", "%[1]s", "string(%[1]s)", "%[1]s + ''",
				"authorizer.group('').resource('configmaps').check('get').allowed() ? 'a' : 'b'",
				"string(authorizer.requestResource.check('get').allowed())")
			if strings.Contains(v["messageExpression"].(string), "%[1]s") {
				v["messageExpression"] = fmt.Sprintf(v["messageExpression"].(string), pick(r, typedFields...))
			}
		}
		vals = append(vals, v)
	}
	spec["validations"] = vals
	if r.IntN(3) == 0 {
		spec["auditAnnotations"] = []any{map[string]any{"key": "k", "valueExpression": fmt.Sprintf(pick(r, "string(%[1]s)", "%[1]s", "%[1]s + 'x'"), pick(r, typedFields...))}}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name}, "spec": spec}
}

func genTypedRequest(r *rand.Rand) typedRequest {
	q := typedRequest{op: pick(r, "CREATE", "UPDATE", "DELETE"), name: pick(r, "cm1", "a-cm"), ns: pick(r, "ns-a", "ns-b"),
		sub: pick(r, "", "", "status"), dryRun: r.IntN(3) == 0}
	q.user = user.DefaultInfo{Name: pick(r, "alice", "bob")}
	if r.IntN(2) == 0 {
		q.user.UID = "uid-1"
		q.user.Groups = some(r, 2, "system:authenticated", "kubernetes", "admins")
	}
	if r.IntN(3) == 0 {
		q.user.Extra = map[string][]string{"scopes": {"a", "kubernetes"}}
	}
	cm := func() map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": q.name, "namespace": q.ns},
			"data": map[string]any{"max": pick(r, "1", "9")}}
	}
	if q.op != "DELETE" {
		q.obj = cm()
	}
	if q.op != "CREATE" {
		q.old = cm()
	}
	return q
}

// TestTypedVariables compiles and runs policies whose expressions read the
// declared types of request and namespaceObject (and variables bound to
// them, messageExpressions without authorizer) with both implementations:
// compile errors (exact text, through the failure policy's decision) and
// results must agree.
func TestTypedVariables(t *testing.T) {
	w := newTypedWorld(t)
	r := rand.New(rand.NewPCG(6, 6))
	n := sampleSize(300)
	disagree, denied, compileErrs := 0, 0, 0
	for i := 0; i < n; i++ {
		pol := genTypedPolicy(r, "p")
		b := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p", "validationActions": pick(r, []any{"Deny"}, []any{"Warn", "Audit"}),
				"paramRef": map[string]any{"name": "limits", "parameterNotFoundAction": "Deny"}}}
		q := genTypedRequest(r)
		compiled := w.compileRef(t, []map[string]any{pol}, []map[string]any{b})
		ref := w.refTyped(t, compiled, q)
		got := w.oursTyped(t, []map[string]any{pol, b}, q)
		if ref.Err != "" {
			denied++
		}
		if strings.Contains(ref.Err+strings.Join(ref.Warnings, ""), "compilation") {
			compileErrs++
		}
		c := gencase{policies: []map[string]any{pol}, bindings: []map[string]any{b}, op: q.op, obj: q.obj, old: q.old, ns: q.ns, user: q.user.Name}
		if !assertSame(t, i, c, ref, got) {
			disagree++
			if disagree > 10 {
				t.Fatalf("too many disagreements")
			}
		}
	}
	t.Logf("%d cases (%d denied, %d with compilation errors), %d disagreements", n, denied, compileErrs, disagree)
}
