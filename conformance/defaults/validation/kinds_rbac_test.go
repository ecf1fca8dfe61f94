package validation

import (
	"math/rand"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
)

func rbacKinds() []harnessKind {
	gvk := func(kind string) kschema.GroupVersionKind {
		return kschema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: kind}
	}
	return []harnessKind{
		{gvk: gvk("Role"), resource: "roles", seed: seedRole, complete: true,
			create: role.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": role.Strategy}},
		{gvk: gvk("ClusterRole"), resource: "clusterroles", seed: seedClusterRole, complete: true,
			create: clusterrole.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": clusterrole.Strategy}},
		{gvk: gvk("RoleBinding"), resource: "rolebindings", seed: seedRoleBinding, complete: true,
			create: rolebinding.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": rolebinding.Strategy}},
		{gvk: gvk("ClusterRoleBinding"), resource: "clusterrolebindings", seed: seedClusterRoleBinding, complete: true,
			create: clusterrolebinding.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": clusterrolebinding.Strategy}},
	}
}

func seedRules(r *rand.Rand, cluster bool) []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"", "apps"}, Resources: []string{"pods", "deployments"}, Verbs: []string{"get", "list"}}}
	if r.Intn(2) == 0 {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cfg"}, Verbs: []string{"*"}})
	}
	if cluster && r.Intn(2) == 0 {
		rules = append(rules, rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz", "/metrics/*"}, Verbs: []string{"get"}})
	}
	return rules
}

func seedRole(r *rand.Rand) runtime.Object {
	return &rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"}, ObjectMeta: seedMeta(r), Rules: seedRules(r, false)}
}

func seedClusterRole(r *rand.Rand) runtime.Object {
	cr := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: seedMeta(r), Rules: seedRules(r, true)}
	if r.Intn(3) == 0 {
		cr.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-view": "true"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}, {Key: "x", Operator: metav1.LabelSelectorOpExists}}},
		}}
		cr.Rules = nil
	}
	return cr
}

func seedSubjects(r *rand.Rand) []rbacv1.Subject {
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: "validation-pod"}}
	if r.Intn(2) == 0 {
		subjects = append(subjects, rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice@example.com"},
			rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:authenticated"})
	}
	return subjects
}

func seedRoleBinding(r *rand.Rand) runtime.Object {
	return &rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"}, ObjectMeta: seedMeta(r),
		Subjects: seedSubjects(r), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: pick(r, []string{"Role", "ClusterRole"}), Name: "view"}}
}

func seedClusterRoleBinding(r *rand.Rand) runtime.Object {
	return &rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"}, ObjectMeta: seedMeta(r),
		Subjects: seedSubjects(r), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}}
}
