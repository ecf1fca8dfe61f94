package bench

import (
	"context"
	"encoding/json"
	"os"
	goruntime "runtime"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	wadmission "github.com/writepath/writepath/admission"
	wschema "github.com/writepath/writepath/schema"
)

// admissionVAP is a ValidatingAdmissionPolicy with 5 validations on
// Deployments, bound with Deny: the apiserver's per-request work on an update.
var admissionVAP = map[string]any{
	"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
	"metadata": map[string]any{"name": "deployments"},
	"spec": map[string]any{
		"failurePolicy": "Fail",
		"matchConstraints": map[string]any{
			"namespaceSelector": map[string]any{}, "objectSelector": map[string]any{}, "matchPolicy": "Equivalent",
			"resourceRules": []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
				"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"deployments"}}}},
		"validations": []any{
			map[string]any{"expression": "object.spec.replicas <= 10", "message": "too many replicas"},
			map[string]any{"expression": "object.spec.template.spec.containers.all(c, c.image.contains(':'))"},
			map[string]any{"expression": "'app' in object.metadata.labels"},
			map[string]any{"expression": "oldObject == null || object.spec.selector == oldObject.spec.selector", "messageExpression": "'selector is immutable for ' + object.metadata.name"},
			map[string]any{"expression": "object.spec.template.spec.containers.all(c, !has(c.resources) || !has(c.resources.limits) || quantity(c.resources.limits.cpu).isLessThan(quantity('4')))"},
		},
	},
}

var admissionBinding = map[string]any{
	"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
	"metadata": map[string]any{"name": "deployments-deny"},
	"spec":     map[string]any{"policyName": "deployments", "validationActions": []any{"Deny"}},
}

func admissionDeployment(replicas int64, image string) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "prod", "labels": map[string]any{"app": "web"}, "resourceVersion": "7"},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "web", "image": image, "resources": map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "256Mi"}}},
					map[string]any{"name": "sidecar", "image": "envoy:1.30"},
				}},
			},
		},
	}
}

func admissionNamespace() map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "prod"}}
}

// refVAPDispatch is the apiserver's validating policy dispatcher with the
// policy compiled as its plugin compiles it.
func refVAPDispatch(b testing.TB) (func(obj, old map[string]any) error, error) {
	var pol admissionregistrationv1.ValidatingAdmissionPolicy
	var bd admissionregistrationv1.ValidatingAdmissionPolicyBinding
	for _, x := range []struct {
		m    map[string]any
		into any
	}{{admissionVAP, &pol}, {admissionBinding, &bd}} {
		data, _ := json.Marshal(x.m)
		require.NoError(b, json.Unmarshal(data, x.into))
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	require.NoError(b, err)
	opt := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	msgOpt := plugincel.OptionalVariableDeclarations{}
	vals := make([]plugincel.ExpressionAccessor, len(pol.Spec.Validations))
	msgs := make([]plugincel.ExpressionAccessor, len(pol.Spec.Validations))
	for i, v := range pol.Spec.Validations {
		vals[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			msgs[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	validator := validating.NewValidator(
		compiler.CompileCondition(vals, opt, environment.StoredExpressions), nil,
		compiler.CompileCondition(nil, opt, environment.StoredExpressions),
		compiler.CompileCondition(msgs, msgOpt, environment.StoredExpressions), pol.Spec.FailurePolicy, nil)
	hooks := []validating.PolicyHook{{Policy: &pol, Bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{&bd}, Evaluator: validator}}
	client := fake.NewSimpleClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	nsLister := factory.Core().V1().Namespaces().Lister()
	factory.Start(context.Background().Done())
	factory.WaitForCacheSync(context.Background().Done())
	d := validating.NewDispatcher(nil, generic.NewPolicyMatcher(matching.NewMatcher(nsLister, client)))
	scheme := runtime.NewScheme()
	o := admission.NewObjectInterfacesFromScheme(scheme)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	u := &user.DefaultInfo{Name: "alice"}
	return func(obj, old map[string]any) error {
		attrs := admission.NewAttributesRecord(&unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: old},
			gvk, "prod", "web", gvr, "", admission.Update, nil, false, u)
		return d.Dispatch(context.Background(), attrs, o, hooks)
	}, nil
}

func wpVAPChain(b testing.TB) *wadmission.Chain {
	chain, err := wadmission.New(wadmission.Config{Objects: []map[string]any{admissionVAP, admissionBinding},
		Namespaces: []map[string]any{admissionNamespace()}})
	require.NoError(b, err)
	return chain
}

func wpVAPRequest(obj, old map[string]any) wadmission.Request {
	return wadmission.Request{Operation: wadmission.Update,
		Kind:     wschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource: wschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Name:     "web", Namespace: "prod", Object: obj, OldObject: old, UserInfo: wadmission.UserInfo{Username: "alice"}}
}

// BenchmarkAdmissionVAP: a VAP with 5 validations on a Deployment update,
// admitted (all pass) and denied (the first fails), writepath vs the apiserver.
func BenchmarkAdmissionVAP(b *testing.B) {
	old := admissionDeployment(3, "nginx:1.27")
	for _, c := range []struct {
		name string
		obj  map[string]any
	}{{"allowed", admissionDeployment(5, "nginx:1.28")}, {"denied", admissionDeployment(50, "nginx:1.28")}} {
		b.Run("impl=writepath/"+c.name, func(b *testing.B) {
			chain := wpVAPChain(b)
			req := wpVAPRequest(c.obj, old)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, _ = chain.Admit(context.Background(), req)
			}
		})
		b.Run("impl=apiserver/"+c.name, func(b *testing.B) {
			dispatch, err := refVAPDispatch(b)
			require.NoError(b, err)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = dispatch(c.obj, old)
			}
		})
	}
}

// TestAdmissionVAPBenchAgrees checks both sides of the benchmark give the same answer.
func TestAdmissionVAPBenchAgrees(t *testing.T) {
	chain := wpVAPChain(t)
	old := admissionDeployment(3, "nginx:1.27")
	for _, obj := range []map[string]any{admissionDeployment(5, "nginx:1.28"), admissionDeployment(50, "nginx:1.28")} {
		_, werr := chain.Admit(context.Background(), wpVAPRequest(obj, old))
		dispatch, err := refVAPDispatch(t)
		require.NoError(t, err)
		rerr := dispatch(obj, old)
		if rerr == nil {
			require.NoError(t, werr)
		} else {
			require.Error(t, werr)
			require.Equal(t, rerr.Error(), werr.Error())
		}
	}
}

// TestAdmissionCPUTime measures the process CPU time per request of both
// sides of BenchmarkAdmissionVAP in interleaved rounds (median of rounds),
// which the other jobs on a shared machine disturb less than wall time. Run
// with WRITEPATH_CPUBENCH=1.
func TestAdmissionCPUTime(t *testing.T) {
	if os.Getenv("WRITEPATH_CPUBENCH") == "" {
		t.Skip("set WRITEPATH_CPUBENCH=1")
	}
	old := admissionDeployment(3, "nginx:1.27")
	chain := wpVAPChain(t)
	dispatch, err := refVAPDispatch(t)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		obj  map[string]any
	}{{"allowed", admissionDeployment(5, "nginx:1.28")}, {"denied", admissionDeployment(50, "nginx:1.28")}} {
		req := wpVAPRequest(c.obj, old)
		impls := map[string]func(){
			"writepath": func() { _, _ = chain.Admit(context.Background(), req) },
			"apiserver": func() { _ = dispatch(c.obj, old) },
		}
		const rounds, perRound = 21, 2000
		samples := map[string][]float64{}
		for r := 0; r < rounds; r++ {
			for _, name := range []string{"writepath", "apiserver"} {
				goruntime.GC()
				start := cpuTime()
				for i := 0; i < perRound; i++ {
					impls[name]()
				}
				samples[name] = append(samples[name], float64(cpuTime()-start)/perRound)
			}
		}
		med := func(xs []float64) float64 {
			s := append([]float64(nil), xs...)
			sort.Float64s(s)
			return s[len(s)/2]
		}
		w, a := med(samples["writepath"]), med(samples["apiserver"])
		t.Logf("%s: writepath %.1fµs, apiserver %.1fµs CPU per request, ratio %.2f", c.name, w/1000, a/1000, w/a)
	}
}
