package validation

import (
	"math/rand"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
)

// The admission-registration kinds. The binding strategy is the one kube-apiserver builds
// (NewStrategy) with no authorizer: its paramRef authorization, which asks the authorizer, is
// not part of the comparison (writepath does not model it; see admissionregistration.go).

// noResolver is a resource resolver the strategy never calls without an authorizer.
type noResolver struct{}

func (noResolver) Resolve(gvk kschema.GroupVersionKind) (kschema.GroupVersionResource, error) {
	return kschema.GroupVersionResource{}, nil
}

func admissionKinds() []harnessKind {
	vapb := validatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver{})
	mapb := mutatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver{})
	return append([]harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding"},
			resource: "mutatingadmissionpolicybindings", seed: seedMAPBinding, complete: true,
			create: mapb, updates: map[string]rest.RESTUpdateStrategy{"": mapb}},
		{gvk: kschema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
			resource: "validatingadmissionpolicybindings", seed: seedVAPBinding, complete: true,
			create: vapb, updates: map[string]rest.RESTUpdateStrategy{"": vapb}},
	}, policyKinds()...)
}

func seedVAPBinding(r *rand.Rand) runtime.Object {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: seedMeta(r), Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replica-limit",
			ValidationActions: []admissionregistrationv1.ValidationAction{pick(r, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Warn})}}}
	if r.Intn(2) == 0 {
		b.Spec.ValidationActions = append(b.Spec.ValidationActions, admissionregistrationv1.Audit)
	}
	switch r.Intn(3) {
	case 0:
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "default", ParameterNotFoundAction: ptr(admissionregistrationv1.DenyAction)}
	case 1:
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "test"}},
			ParameterNotFoundAction: ptr(admissionregistrationv1.AllowAction)}
	}
	if r.Intn(2) == 0 {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"test"}}}},
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"web"}, RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "deployments/scale"},
					Scope: ptr(admissionregistrationv1.NamespacedScope)}}}},
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/status"}}}}},
		}
	}
	if r.Intn(8) == 0 {
		b.Name = "policy.static.k8s.io"
	}
	return b
}

func seedMAPBinding(r *rand.Rand) runtime.Object {
	v := seedVAPBinding(r).(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: v.ObjectMeta, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: v.Spec.PolicyName, ParamRef: v.Spec.ParamRef, MatchResources: v.Spec.MatchResources}}
	if b.Spec.MatchResources != nil && r.Intn(2) == 0 {
		b.Spec.MatchResources.ResourceRules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Connect}
	}
	return b
}
