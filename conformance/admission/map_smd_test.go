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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/authentication/user"

	wadmission "github.com/writepath/writepath/admission"
	wpschema "github.com/writepath/writepath/schema"
	wpdefaults "github.com/writepath/writepath/schema/defaults"
)

// schemeDefaulting is the ObjectInterfaces of a built-in resource's request
// scope with the scheme's defaulting functions: the suite's scheme has none
// (k8s.io/kubernetes is not a dependency of this module), so objects are
// defaulted by defaults.Builtin, which conformance/defaults checks
// against k8s.io/kubernetes' legacyscheme. The dispatcher calls it after each
// mutation, as it calls the apiserver's (objects read as the unstructured
// converter reads them, schema.DefaultBuiltinUnstructured).
type schemeDefaulting struct{ admission.ObjectInterfaces }

func (s schemeDefaulting) GetObjectDefaulter() runtime.ObjectDefaulter { return builtinDefaulter{} }

type builtinDefaulter struct{}

func (builtinDefaulter) Default(obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	gvk := u.GroupVersionKind()
	// The dispatcher converts an ApplyConfiguration's unstructured result to
	// the Go type with the unstructured converter before defaulting.
	if out, err := wpdefaults.Builtin(wpschema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, u.Object, wpdefaults.Options{Unstructured: true}); err == nil {
		u.Object = out
	}
}

// defaultedWorkload is obj as the apiserver holds a request's object: decoded
// and defaulted.
func defaultedWorkload(t *testing.T, obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	gv, _ := obj["apiVersion"].(string)
	gvk := wpschema.GroupVersionKind{Version: gv, Kind: obj["kind"].(string)}
	if g, v, ok := strings.Cut(gv, "/"); ok {
		gvk.Group, gvk.Version = g, v
	}
	out, err := wpdefaults.Builtin(gvk, obj, wpdefaults.Options{})
	require.NoError(t, err)
	return out
}

// Apply configurations over pod specs: list-maps (containers by name, ports by
// containerPort and protocol, env by name, volumes by name), sets
// (finalizers), atomic lists (args, command, tolerations) and atomic structs
// (the Deployment's selector), fields the type does not have, wrong types.
var podSpecApplies = []string{
	`{containers: [C{name: "app", image: "img:2"}]}`,
	`{containers: [C{name: "sidecar", image: "proxy"}]}`,
	`{containers: [C{name: "app", ports: [C.ports{containerPort: 8080, protocol: "TCP", name: "alt"}]}]}`,
	`{containers: [C{name: "app", ports: [C.ports{containerPort: 80, name: "web"}]}]}`,
	`{containers: [C{name: "app", ports: [C.ports{containerPort: 80, protocol: "UDP"}]}]}`,
	`{containers: [C{name: "app", env: [C.env{name: "A", value: "new"}, C.env{name: "Z", value: "z"}]}]}`,
	`{containers: [C{name: "app", args: ["--x"]}]}`,
	`{containers: [C{name: "app", command: ["sh"]}]}`,
	`{tolerations: [S.tolerations{key: "k", operator: "Exists"}]}`,
	`{volumes: [S.volumes{name: "v1", emptyDir: S.volumes.emptyDir{}}]}`,
	`{containers: [C{name: "app", bogus: "x"}]}`,
	`{containers: [C{name: "app", image: 3}]}`,
	`{containers: [C{image: "nameless"}]}`,
	`{nodeSelector: {"disk": "ssd"}}`,
	`{containers: [C{name: "app", resources: C.resources{limits: {"cpu": "1"}}}]}`,
}

var metaApplies = []string{
	`Object{metadata: Object.metadata{finalizers: ["example.com/f"]}}`,
	`Object{metadata: Object.metadata{labels: {"x": "y"}}}`,
	`Object{metadata: Object.metadata{ownerReferences: [Object.metadata.ownerReferences{apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u1"}]}}`,
}

var deploymentApplies = []string{
	`Object{spec: Object.spec{replicas: 5}}`,
	`Object{spec: Object.spec{replicas: "five"}}`,
	`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"app": "other"}}}}`,
	`Object{spec: Object.spec{strategy: Object.spec.strategy{type: "Recreate"}}}`,
	`Object{spec: Object.spec{nope: 1}}`,
}

// podSpecExpr wraps a pod spec apply configuration for a Pod or a Deployment.
func podSpecExpr(kind, spec string) string {
	if kind == "Pod" {
		return strings.NewReplacer("C{", "Object.spec.containers{", "C.", "Object.spec.containers.", "S.", "Object.spec.").Replace(`Object{spec: Object.spec` + spec + `}`)
	}
	return strings.NewReplacer("C{", "Object.spec.template.spec.containers{", "C.", "Object.spec.template.spec.containers.", "S.", "Object.spec.template.spec.").
		Replace(`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec` + spec + `}}}`)
}

func genContainer(r *rand.Rand, name string) map[string]any {
	c := map[string]any{"name": name, "image": pick(r, "img:1", "busybox")}
	if r.IntN(2) == 0 {
		var ports []any
		for _, p := range some(r, 2, "80", "443", "8080") {
			port := map[string]any{"containerPort": map[string]int64{"80": 80, "443": 443, "8080": 8080}[p]}
			if r.IntN(2) == 0 {
				port["protocol"] = pick(r, "TCP", "UDP")
			}
			ports = append(ports, port)
		}
		if len(ports) > 0 {
			c["ports"] = ports
		}
	}
	if r.IntN(2) == 0 {
		var env []any
		for _, n := range some(r, 3, "A", "B", "A") {
			env = append(env, map[string]any{"name": n, "value": pick(r, "1", "2")})
		}
		if len(env) > 0 {
			c["env"] = env
		}
	}
	if r.IntN(3) == 0 {
		c["args"] = []any{"--v=2"}
	}
	return c
}

func genPodSpec(r *rand.Rand) map[string]any {
	var cs []any
	for _, n := range some(r, 2, "app", "log") {
		cs = append(cs, genContainer(r, n))
	}
	if len(cs) == 0 {
		cs = []any{genContainer(r, "app")}
	}
	spec := map[string]any{"containers": cs}
	if r.IntN(3) == 0 {
		spec["tolerations"] = []any{map[string]any{"key": "t", "operator": "Exists"}}
	}
	if r.IntN(3) == 0 {
		spec["volumes"] = []any{map[string]any{"name": pick(r, "v1", "v2"), "emptyDir": map[string]any{}}}
	}
	return spec
}

func genWorkload(r *rand.Rand, kind, ns string) map[string]any {
	md := map[string]any{"name": "w1", "namespace": ns, "labels": map[string]any{"app": "w"}}
	if r.IntN(3) == 0 {
		md["finalizers"] = []any{pick(r, "example.com/f", "example.com/g")}
	}
	if kind == "Pod" {
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": genPodSpec(r)}
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": map[string]any{
		"replicas": int64(1 + r.IntN(3)),
		"selector": map[string]any{"matchLabels": map[string]any{"app": "w"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "w"}}, "spec": genPodSpec(r)},
	}}
}

// TestMutatingPoliciesBuiltinSMD compares ApplyConfiguration mutations of
// Pods and Deployments with the mutating policy dispatcher given the built-in
// type converter: list-maps merged by key, sets, atomic lists and structs
// refused, fields outside the schema and wrong types refused.
func TestMutatingPoliciesBuiltinSMD(t *testing.T) {
	w := newWorld(t)
	r := rand.New(rand.NewPCG(37, 2))
	n := sampleSize(200)
	mutated, denied := 0, 0
	for i := 0; i < n; i++ {
		kind := pick(r, "Pod", "Deployment")
		group, version, resource := "", "v1", "pods"
		if kind == "Deployment" {
			group, version, resource = "apps", "v1", "deployments"
		}
		var muts []any
		for m := 0; m < 1+r.IntN(2); m++ {
			var expr string
			switch x := r.IntN(10); {
			case x < 6:
				expr = podSpecExpr(kind, pick(r, podSpecApplies...))
			case x < 8 || kind == "Pod":
				expr = pick(r, metaApplies...)
			default:
				expr = pick(r, deploymentApplies...)
			}
			muts = append(muts, map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": expr}})
		}
		policy := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
			"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
				"matchConstraints": map[string]any{"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent",
					"resourceRules": []any{map[string]any{"apiGroups": []any{group}, "apiVersions": []any{version},
						"operations": []any{"*"}, "resources": []any{resource}}}},
				"failurePolicy": "Fail", "reinvocationPolicy": "Never", "mutations": muts}}
		binding := map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "p-b"}, "spec": map[string]any{"policyName": "p"}}
		op := pick(r, "CREATE", "UPDATE")
		ns := pick(r, "ns-a", "ns-b")
		obj := defaultedWorkload(t, genWorkload(r, kind, ns))
		var old map[string]any
		if op == "UPDATE" {
			old = defaultedWorkload(t, genWorkload(r, kind, ns))
		}
		var pol admissionregistrationv1.MutatingAdmissionPolicy
		var bd admissionregistrationv1.MutatingAdmissionPolicyBinding
		fromMap(t, policy, &pol)
		fromMap(t, binding, &bd)
		hooks := []mutating.PolicyHook{{Policy: &pol, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{&bd}, Evaluator: compileMAP(&pol)}}
		uobj := &unstructured.Unstructured{Object: deepCopy(obj)}
		var uold runtime.Object
		if old != nil {
			uold = &unstructured.Unstructured{Object: deepCopy(old)}
		}
		attrs := admission.NewAttributesRecord(uobj, uold, schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, ns, "w1",
			schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, "", admission.Operation(op), nil, false, &user.DefaultInfo{Name: "alice"})
		refErr := mutating.NewDispatcher(nil, w.rawMatcher, builtinTypes{}).Dispatch(context.Background(), attrs, schemeDefaulting{admission.NewObjectInterfacesFromScheme(w.scheme)}, hooks)

		chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{policy, binding}, Namespaces: w.namespaces})
		require.NoError(t, err)
		res, err := chain.Admit(context.Background(), wadmission.Request{Operation: wadmission.Operation(op),
			Kind:     wpschema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource: wpschema.GroupVersionResource{Group: group, Version: version, Resource: resource},
			Name:     "w1", Namespace: ns, Object: obj, OldObject: old, UserInfo: wadmission.UserInfo{Username: "alice"}})
		ctx, _ := json.Marshal(map[string]any{"policy": policy, "obj": obj, "op": op})
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
	require.Greater(t, mutated, n/10, "too few mutated cases")
	require.Greater(t, denied, n/20, "too few denied cases")
	t.Logf("%d cases (%d mutated, %d denied), 0 disagreements", n, mutated, denied)
}
