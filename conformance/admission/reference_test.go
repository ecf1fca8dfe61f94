package admission

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// world is the cluster state both implementations see: namespaces and the
// ConfigMaps params come from, behind informers as in the apiserver.
type world struct {
	namespaces []map[string]any
	params     []map[string]any
	matcher    generic.PolicyMatcher
	rawMatcher *matching.Matcher
	paramInf   informers.GenericInformer
	scheme     *runtime.Scheme
}

func newWorld(t testing.TB) *world {
	w := &world{
		namespaces: []map[string]any{
			{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns-a", "labels": map[string]any{"env": "prod"}}},
			{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns-b", "labels": map[string]any{"env": "dev", "team": "x"}}},
		},
		params: []map[string]any{
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "ns-a", "labels": map[string]any{"kind": "limit"}}, "data": map[string]any{"max": "2"}},
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "ns-b", "labels": map[string]any{"kind": "limit"}}, "data": map[string]any{"max": "5"}},
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "other", "namespace": "ns-b", "labels": map[string]any{"kind": "limit"}}, "data": map[string]any{"max": "1"}},
		},
	}
	return w.start(t)
}

// start puts the namespaces and params behind informers of a fake client, as the
// apiserver's plugins see them, and builds the reference matcher over them.
func (w *world) start(t testing.TB) *world {
	var objs []runtime.Object
	for _, n := range w.namespaces {
		var ns corev1.Namespace
		fromMap(t, n, &ns)
		objs = append(objs, &ns)
	}
	for _, p := range w.params {
		var cm corev1.ConfigMap
		fromMap(t, p, &cm)
		objs = append(objs, &cm)
	}
	client := fake.NewSimpleClientset(objs...)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(apiserverInformerTransform))
	nsInf := factory.Core().V1().Namespaces()
	w.paramInf, _ = factory.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	nsLister := nsInf.Lister()
	ctx := context.Background()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	w.rawMatcher = matching.NewMatcher(nsLister, client)
	w.matcher = generic.NewPolicyMatcher(w.rawMatcher)
	w.scheme = runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(w.scheme))
	return w
}

func fromMap(t testing.TB, m map[string]any, into any) {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}

// compilePolicy is the validating plugin's compilePolicy (plugin.go), which is
// not exported: the same compiler, environments and accessors.
func compilePolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParam := policy.Spec.ParamKind != nil
	optionalVars := plugincel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	expressionOptionalVars := plugincel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	failurePolicy := policy.Spec.FailurePolicy
	var matcher matchconditions.Matcher
	filterCompiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, failurePolicy, err)
	}
	vars := make([]plugincel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	filterCompiler.CompileAndStoreVariables(vars, optionalVars, environment.StoredExpressions)
	if mcs := policy.Spec.MatchConditions; len(mcs) > 0 {
		acc := make([]plugincel.ExpressionAccessor, len(mcs))
		for i := range mcs {
			acc[i] = (*matchconditions.MatchCondition)(&mcs[i])
		}
		matcher = matchconditions.NewMatcher(filterCompiler.CompileCondition(acc, optionalVars, environment.StoredExpressions), failurePolicy, "policy", "validate", policy.Name)
	}
	vals := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	msgs := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		vals[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			msgs[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	auds := make([]plugincel.ExpressionAccessor, len(policy.Spec.AuditAnnotations))
	for i, a := range policy.Spec.AuditAnnotations {
		auds[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return validating.NewValidator(
		filterCompiler.CompileCondition(vals, optionalVars, environment.StoredExpressions),
		matcher,
		filterCompiler.CompileCondition(auds, optionalVars, environment.StoredExpressions),
		filterCompiler.CompileCondition(msgs, expressionOptionalVars, environment.StoredExpressions),
		failurePolicy, nil)
}

type warnings struct{ list []string }

func (w *warnings) AddWarning(_, text string) { w.list = append(w.list, text) }

// outcome is what both implementations are compared on.
type outcome struct {
	Err         string            `json:"err,omitempty"`
	Status      json.RawMessage   `json:"status,omitempty"`
	Warnings    []string          `json:"warnings,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type compiledRef struct {
	hooks []validating.PolicyHook
}

// compileRef builds the plugin's hooks: policies sorted by name, each with its bindings.
func (w *world) compileRef(t testing.TB, policies, bindings []map[string]any) compiledRef {
	var out compiledRef
	for _, p := range policies {
		var pol admissionregistrationv1.ValidatingAdmissionPolicy
		fromMap(t, p, &pol)
		hook := validating.PolicyHook{Policy: &pol, Evaluator: compilePolicy(&pol)}
		if pol.Spec.ParamKind != nil {
			hook.ParamInformer = w.paramInf
			hook.ParamScope = meta.RESTScopeNamespace
		}
		for _, b := range bindings {
			var bd admissionregistrationv1.ValidatingAdmissionPolicyBinding
			fromMap(t, b, &bd)
			if bd.Spec.PolicyName == pol.Name {
				hook.Bindings = append(hook.Bindings, &bd)
			}
		}
		out.hooks = append(out.hooks, hook)
	}
	return out
}

// refAdmit runs the reference dispatcher for one ConfigMap request.
func (w *world) refAdmit(t testing.TB, c compiledRef, op string, name, ns string, obj, old map[string]any, username string) outcome {
	var o, oo runtime.Object
	if obj != nil {
		o = &unstructured.Unstructured{Object: deepCopy(obj)}
	}
	if old != nil {
		oo = &unstructured.Unstructured{Object: deepCopy(old)}
	}
	attrs := admission.NewAttributesRecord(o, oo, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, ns, name,
		schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", admission.Operation(op), nil, false,
		&user.DefaultInfo{Name: username})
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

func deepCopy(m map[string]any) map[string]any {
	return runtime.DeepCopyJSON(m)
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// annotated records audit annotations as the audit handler would keep them:
// the first value of a key wins.
type annotated struct {
	admission.Attributes
	annotations map[string]string
}

func (a *annotated) AddAnnotation(key, value string) error {
	return a.AddAnnotationWithLevel(key, value, auditinternal.LevelMetadata)
}

func (a *annotated) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	if err := a.Attributes.AddAnnotationWithLevel(key, value, level); err != nil {
		return err
	}
	a.annotations[key] = value
	return nil
}
