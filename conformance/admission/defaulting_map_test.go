package admission

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/authentication/user"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
)

// typedPolicyObjects are typedObjects whose conversion of an
// ApplyConfiguration's unstructured result is the scheme's (unstructuredToTyped:
// runtime.DefaultUnstructuredConverter, "unable to convert unstructured object
// to <gvk>: ..."), as dispatchOne's ConvertToVersion.
type typedPolicyObjects struct{ typedObjects }

func (o typedPolicyObjects) GetObjectConvertor() runtime.ObjectConvertor { return o }

func (o typedPolicyObjects) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	if _, ok := in.(*unstructured.Unstructured); ok {
		return clientscheme.Scheme.ConvertToVersion(in, gv)
	}
	return in, nil
}

var deploymentMutations = []map[string]any{
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "sidecar", "image": "busybox"}}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "remove", path: "/spec/strategy"}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/spec/bogus", value: 1}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/spec/zzz", value: {"a": 1}}, JSONPatch{op: "add", path: "/spec/template/spec/containers/0/extra", value: "x"}, JSONPatch{op: "add", path: "/spec/template/extra", value: true}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "replace", path: "/spec/replicas", value: "3"}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources", value: {"limits": {"cpu": "lots"}}}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/spec/paused", value: object.spec.replicas > 1}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/metadata/labels", value: {"containers": string(size(object.spec.template.spec.containers)), "policy": object.spec.template.spec.containers[0].imagePullPolicy}}]`}},
	{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": `[JSONPatch{op: "test", path: "/spec/replicas", value: 99}]`}},
	{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "sidecar", image: "busybox:1"}]}}}}`}},
	{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "app", resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "lots"}}}]}}}}`}},
	{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{spec: Object.spec{strategy: Object.spec.strategy{type: "RollingUpdate"}}}`}},
	{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{dnsPolicy: ""}}}}`}},
}

// TestPolicyMutationDefaulting runs k8s.io/apiserver's mutating policy
// dispatcher over typed Deployments (JSONPatch results decoded strictly into
// apps/v1.Deployment by the json serializer, ApplyConfiguration results
// converted by the scheme, each defaulted before the next mutation, with
// defaults.Builtin as the scheme's defaulter) and Admit on generated
// policies of one to three mutations: the admitted object and the errors
// must be equal, encoding/json's type errors included. 200 cases normally,
// 100,000 with WRITEPATH_LONG=1.
func TestPolicyMutationDefaulting(t *testing.T) {
	w := newWorld(t)
	o := typedPolicyObjects{typedObjects{admission.NewObjectInterfacesFromScheme(clientscheme.Scheme)}}
	r := rand.New(rand.NewPCG(6, 62))
	n := sampleSize(200)
	mutated, denied, typeErrors := 0, 0, 0
	for i := 0; i < n; i++ {
		var muts []any
		for m := 0; m < 1+r.IntN(3); m++ {
			muts = append(muts, deepCopy(pick(r, deploymentMutations...)))
		}
		policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
			"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
				"matchConstraints": map[string]any{"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent",
					"resourceRules": []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
						"operations": []any{"*"}, "resources": []any{"deployments"}}}},
				"failurePolicy": pick(r, "Fail", "Fail", "Ignore"), "reinvocationPolicy": "Never", "mutations": muts}}
		binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "p-b"}, "spec": map[string]any{"policyName": "p"}}
		obj := genDeployment(r)
		var pol admissionregistrationv1.MutatingAdmissionPolicy
		var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
		fromMap(t, policy, &pol)
		fromMap(t, binding, &bd)
		hooks := []mutating.PolicyHook{{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)}}
		var d appsv1.Deployment
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(deepCopy(obj), &d))
		attrs := admission.NewAttributesRecord(&d, nil, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "ns-a", "d1",
			schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
		refErr := mutating.NewDispatcher(nil, w.rawMatcher, builtinTypes{}).Dispatch(context.Background(), attrs, o, hooks)

		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{policy, binding}, Namespaces: w.namespaces})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Create,
			Kind:     wschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource: wschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Name:     "d1", Namespace: "ns-a", Object: obj, UserInfo: wadmission.UserInfo{Username: "alice"}})
		desc, _ := json.Marshal(map[string]any{"mutations": muts, "obj": obj, "failurePolicy": policy["spec"].(map[string]any)["failurePolicy"]})
		if refErr != nil {
			denied++
			if !assert.Error(t, err, "case %d: %s", i, desc) {
				return
			}
			want := refErr.Error()
			if strings.Contains(want, "json: cannot unmarshal") {
				typeErrors++
			}
			if !assert.Equal(t, want, err.Error(), "case %d: %s", i, desc) {
				return
			}
			continue
		}
		if !assert.NoError(t, err, "case %d: %s", i, desc) {
			return
		}
		if len(res.Patches) > 0 {
			mutated++
		}
		want, _ := json.Marshal(attrs.GetObject())
		got, _ := json.Marshal(res.Object)
		if !assert.JSONEq(t, string(want), string(got), "case %d: %s", i, desc) {
			return
		}
	}
	t.Logf("%d cases (%d mutated, %d denied, %d of them type errors), 0 disagreements", n, mutated, denied, typeErrors)
}
