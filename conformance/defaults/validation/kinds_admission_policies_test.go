package validation

import (
	"math/rand"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// The policies and webhook configurations. Their expressions are drawn from lists of CEL that
// compiles and that does not (syntax errors, wrong output types, undeclared params, variables
// and authorizer, undefined fields of request and namespaceObject, the patch types outside a
// mutation), so that writepath's compilation (admission.ExpressionCompiler) is compared with
// the apiserver's word for word; the generator's words land in them too.

func policyKinds() []harnessKind {
	vap := validatingadmissionpolicy.NewStrategy(nil, noResolver{})
	mp := mutatingadmissionpolicy.NewStrategy(nil, noResolver{})
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"},
			resource: "validatingadmissionpolicies", seed: seedVAP, stored: storedVAP, complete: true,
			create: vap, updates: map[string]rest.RESTUpdateStrategy{"": vap, "status": validatingadmissionpolicy.NewStatusStrategy(vap)}},
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"},
			resource: "mutatingadmissionpolicies", seed: seedMAP, complete: true,
			create: mp, updates: map[string]rest.RESTUpdateStrategy{"": mp}},
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"},
			resource: "validatingwebhookconfigurations", seed: seedVWC, complete: true,
			create: validatingwebhookconfiguration.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": validatingwebhookconfiguration.Strategy}},
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"},
			resource: "mutatingwebhookconfigurations", seed: seedMWC, complete: true,
			create: mutatingwebhookconfiguration.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": mutatingwebhookconfiguration.Strategy}},
	}
}

// mostly picks from valid five times in six.
func mostly(r *rand.Rand, valid, invalid []string) string {
	if r.Intn(6) == 0 {
		return pick(r, invalid)
	}
	return pick(r, valid)
}

var (
	validBool = []string{"object.metadata.name != ''", "has(object.spec)", "request.operation == 'CREATE'",
		"authorizer.group('apps').resource('deployments').check('get').allowed()", "namespaceObject.metadata.name == 'default'",
		"oldObject == null", "isQuantity('1Gi')", "object.spec.containers.all(c, c.image != '')", "true"}
	validString = []string{"'denied: ' + object.metadata.name", "'x'", "string(object.spec.replicas)"}
	validAudit  = []string{"'x'", "null", "string(1)"}
	validApply  = []string{"Object{metadata: Object.metadata{labels: {'a': 'b'}}}", "Object{spec: Object.spec{replicas: 1}}"}
	validPatch  = []string{"[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]", "[]",
		"[JSONPatch{op: 'test', path: '/' + jsonpatch.escapeKey(object.metadata.name)}]"}
	validMatch = []string{"request.resource.resource == 'deployments'", "!has(object.metadata.labels)",
		"request.userInfo.groups.exists(g, g == 'system:masters')"}
	boolExprs = []string{
		"object.metadata.name != ''", "has(object.spec)", "request.operation == 'CREATE'", "object.spec.replicas <= 5",
		"params.maxReplicas > 1", "variables.replicas > 1", "variables.name.startsWith('a')", "variables.undefined == 1",
		"authorizer.group('apps').resource('deployments').check('get').allowed()", "authorizer.requestResource.check('get').allowed()",
		"namespaceObject.metadata.name == 'default'", "namespaceObject.metadata.uid == ''", "request.userInfo.username == 'a'",
		"request.nope == 1", "oldObject == null", "object.data.nope((", "1 + 1", "'abc'", "undefinedVar", "object.metadata.name",
		"  object.metadata.name != ''  ", "isQuantity('1Gi')", "quantity('1Gi').isGreaterThan(quantity('1'))", "ip('10.0.0.1').family() == 4",
		"cidr('10.0.0.0/8').containsIP('10.1.2.3')", "semver('1.2.3').major() == 1", "url('https://a/b').getHost() == 'a'",
		"object.spec.containers.all(c, c.image != '')", "[1, 2].sum() == 3", "'a'.matches('[')", "Object{} == Object{}",
		"jsonpatch.escapeKey('a/b') == 'a~1b'", "format.dns1123Label().validate('a').hasValue()", "optional.of(1).hasValue()",
		"object.?spec.?replicas.orValue(1) > 0", "x.y.z", "true", "false && ", "object.metadata.labels.all(k, k != 'a')",
	}
	stringExprs = []string{
		"'denied: ' + object.metadata.name", "object.metadata.name", "1", "'x'", "authorizer.group('').resource('pods').check('get').reason()",
		"params.message", "variables.name", "'a' + ", "string(object.spec.replicas)", "null", "  'x'  ",
	}
	auditExprs = []string{"'x'", "null", "object.metadata.name", "1", "variables.name", "params.x", "'a' +", "  'v'  ", "string(1)"}
	varExprs   = []struct{ name, expr string }{
		{"replicas", "object.spec.replicas"}, {"name", "object.metadata.name"}, {"isProd", "variables.name == 'prod'"},
		{"bad", "object.(("}, {"later", "variables.after"}, {"after", "1"}, {"p", "params.x"}, {"allowed", "authorizer.group('').resource('pods').check('get').allowed()"},
		{"obj", "Object{}"}, {"self", "variables.self"}, {"in", "1"}, {"_x1", "[1,2,3]"}, {"m", "{'a': 1}"},
	}
	applyExprs = []string{
		"Object{metadata: Object.metadata{labels: {'a': 'b'}}}", "object", "Object{spec: Object.spec{replicas: 1}}",
		"Object{spec: Object.spec{replicas: variables.replicas}}", "Object{spec: Object.spec{replicas: params.replicas}}", "1", "Object{",
		"[JSONPatch{op: 'add', path: '/a', value: 1}]",
	}
	jsonPatchExprs = []string{
		"[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]", "[JSONPatch{op: 'replace', path: '/spec/replicas', value: variables.replicas}]",
		"JSONPatch{op: 'add'}", "[jsonpatch.escapeKey('a/b')]", "[]", "[JSONPatch{op: 'add', path: '/a', value: params.x}]", "[JSONPatch{nope: 1}]",
		"Object{}", "[JSONPatch{op: 'test', path: '/' + jsonpatch.escapeKey(object.metadata.name)}]",
	}
	matchConditionExprs = []string{
		"request.resource.resource == 'deployments'", "params.x == 1", "variables.x", "authorizer.group('').resource('x').check('get').allowed()",
		"object.metadata.name == ''", "1", "(", "request.userInfo.groups.exists(g, g == 'system:masters')", "!has(object.metadata.labels)",
	}
)

func matchResourcesSeed(r *rand.Rand, mutating bool) *admissionregistrationv1.MatchResources {
	ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	if !mutating && r.Intn(3) == 0 {
		ops = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	}
	mr := &admissionregistrationv1.MatchResources{
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops,
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}},
	}
	if r.Intn(2) == 0 {
		mr.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "test"}}
		mr.ExcludeResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"skip"}, RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/status"}}}}}
	}
	return mr
}

func seedMatchConditions(r *rand.Rand) []admissionregistrationv1.MatchCondition {
	var out []admissionregistrationv1.MatchCondition
	for i, n := 0, r.Intn(3); i < n; i++ {
		out = append(out, admissionregistrationv1.MatchCondition{Name: pick(r, []string{"a", "b", "example.com/c", "exclude-leases"}), Expression: mostly(r, validMatch, matchConditionExprs)})
	}
	return out
}

func seedVariables(r *rand.Rand) []admissionregistrationv1.Variable {
	var out []admissionregistrationv1.Variable
	for i, n := 0, r.Intn(4)*r.Intn(2); i < n; i++ {
		v := pick(r, varExprs)
		out = append(out, admissionregistrationv1.Variable{Name: v.name, Expression: v.expr})
	}
	return out
}

func seedParamKind(r *rand.Rand) *admissionregistrationv1.ParamKind {
	if r.Intn(2) == 0 {
		return nil
	}
	return &admissionregistrationv1.ParamKind{APIVersion: pick(r, []string{"v1", "example.com/v1", "rules.example.com/v1beta1"}), Kind: pick(r, []string{"ConfigMap", "ReplicaLimit"})}
}

func seedVAP(r *rand.Rand) runtime.Object {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: seedMeta(r), Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: seedParamKind(r), MatchConstraints: matchResourcesSeed(r, false), MatchConditions: seedMatchConditions(r), Variables: seedVariables(r)}}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		v := admissionregistrationv1.Validation{Expression: mostly(r, validBool, boolExprs)}
		switch r.Intn(4) {
		case 0:
			v.Message = mostly(r, []string{"too many replicas"}, []string{"line\nbreak", " "})
		case 1:
			v.MessageExpression = mostly(r, validString, stringExprs)
		}
		if r.Intn(3) == 0 {
			v.Reason = ptr(metav1.StatusReason(mostly(r, []string{"Invalid", "Forbidden"}, []string{"Conflict"})))
		}
		p.Spec.Validations = append(p.Spec.Validations, v)
	}
	if r.Intn(3) == 0 {
		p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: pick(r, []string{"high-replicas", "a", "b"}), ValueExpression: mostly(r, validAudit, auditExprs)}}
		if r.Intn(3) == 0 {
			p.Spec.Validations = nil
		}
	}
	if r.Intn(4) == 0 {
		p.Spec.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	}
	if r.Intn(10) == 0 {
		p.Name = "policy.static.k8s.io"
	}
	return p
}

// storedVAP gives a stored policy the status kube-controller-manager's type checking writes.
func storedVAP(r *rand.Rand, obj runtime.Object) {
	p := obj.(*admissionregistration.ValidatingAdmissionPolicy)
	if r.Intn(2) == 0 {
		return
	}
	p.Status = admissionregistration.ValidatingAdmissionPolicyStatus{ObservedGeneration: 1,
		TypeChecking: &admissionregistration.TypeChecking{ExpressionWarnings: []admissionregistration.ExpressionWarning{
			{FieldRef: pick(r, []string{"spec.validations[0].expression", "spec.validations[?(@.x", "spec.x"}), Warning: "mismatch"}}},
		Conditions: []metav1.Condition{{Type: "TypeChecked", Status: metav1.ConditionTrue, Reason: "Checked", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}}
}

func seedMAP(r *rand.Rand) runtime.Object {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: seedMeta(r), Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			ParamKind: seedParamKind(r), MatchConstraints: matchResourcesSeed(r, true), MatchConditions: seedMatchConditions(r), Variables: seedVariables(r),
			ReinvocationPolicy: pick(r, []admissionregistrationv1.ReinvocationPolicyType{admissionregistrationv1.NeverReinvocationPolicy, admissionregistrationv1.IfNeededReinvocationPolicy})}}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		if r.Intn(2) == 0 {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: mostly(r, validApply, applyExprs)}})
		} else {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: mostly(r, validPatch, jsonPatchExprs)}})
		}
	}
	if r.Intn(10) == 0 {
		p.Name = "policy.static.k8s.io"
	}
	return p
}

func seedClientConfig(r *rand.Rand) admissionregistrationv1.WebhookClientConfig {
	if r.Intn(2) == 0 {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr(mostly(r, []string{"https://hook.example.com/validate", "https://10.0.0.1:8443"}, []string{"http://x", "https://u@h/p?q#f"}))}
	}
	s := &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "hook"}
	if r.Intn(2) == 0 {
		s.Path = ptr(mostly(r, []string{"/validate", "/a/b/"}, []string{"//", "rel", "/A_B"}))
	}
	return admissionregistrationv1.WebhookClientConfig{Service: s}
}

func seedWebhookRules(r *rand.Rand) []admissionregistrationv1.RuleWithOperations {
	rule := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}
	switch r.Intn(3) {
	case 0:
		rule.Rule = admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io", "authorization.k8s.io"}, APIVersions: []string{"v1"},
			Resources: []string{"tokenreviews", "subjectaccessreviews", "tokenreviews"}}
	case 1:
		rule.Rule = admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}
	}
	return []admissionregistrationv1.RuleWithOperations{rule}
}

func seedReviewVersions(r *rand.Rand) []string {
	if r.Intn(8) == 0 {
		return pick(r, [][]string{{"v2"}, {"v1", "v1"}})
	}
	return pick(r, [][]string{{"v1"}, {"v1", "v1beta1"}, {"v1beta1"}})
}

func seedSideEffects(r *rand.Rand) *admissionregistrationv1.SideEffectClass {
	return ptr(admissionregistrationv1.SideEffectClass(mostly(r, []string{"None", "NoneOnDryRun"}, []string{"Some", "Unknown"})))
}

func seedWebhookName(r *rand.Rand) string {
	return mostly(r, []string{"pods.example.com", "v.hooks.example.com"}, []string{"bad", "Bad.example.com"})
}

func seedVWC(r *rand.Rand) runtime.Object {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: seedMeta(r)}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		h := admissionregistrationv1.ValidatingWebhook{Name: seedWebhookName(r), ClientConfig: seedClientConfig(r), Rules: seedWebhookRules(r),
			SideEffects: seedSideEffects(r), AdmissionReviewVersions: seedReviewVersions(r), MatchConditions: seedMatchConditions(r)}
		if r.Intn(3) == 0 {
			h.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn,
				Values: []string{mostly(r, []string{"b"}, []string{"-bad-"})}}}}
		}
		c.Webhooks = append(c.Webhooks, h)
	}
	if r.Intn(10) == 0 {
		c.Name = "hooks.static.k8s.io"
	}
	return c
}

func seedMWC(r *rand.Rand) runtime.Object {
	v := seedVWC(r).(*admissionregistrationv1.ValidatingWebhookConfiguration)
	c := &admissionregistrationv1.MutatingWebhookConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: v.ObjectMeta}
	for _, h := range v.Webhooks {
		m := admissionregistrationv1.MutatingWebhook{Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, SideEffects: h.SideEffects,
			AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions, ObjectSelector: h.ObjectSelector}
		if r.Intn(3) == 0 {
			m.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
		}
		c.Webhooks = append(c.Webhooks, m)
	}
	return c
}
