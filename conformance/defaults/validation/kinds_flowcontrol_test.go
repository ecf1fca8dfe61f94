package validation

import (
	"math/rand"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/flowcontrol"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
)

// FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1).
func flowcontrolKinds() []harnessKind {
	return []harnessKind{
		{gvk: kschema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema"}, resource: "flowschemas", seed: seedFlowSchema,
			complete: true, stored: flowSchemaStatus,
			create: flowschema.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": flowschema.Strategy, "status": flowschema.StatusStrategy}},
		{gvk: kschema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration"}, resource: "prioritylevelconfigurations",
			seed: seedPriorityLevel, complete: true, stored: priorityLevelStatus,
			create: prioritylevelconfiguration.Strategy, updates: map[string]rest.RESTUpdateStrategy{"": prioritylevelconfiguration.Strategy, "status": prioritylevelconfiguration.StatusStrategy}},
	}
}

func seedFlowSchema(r *rand.Rand) runtime.Object {
	fs := &flowcontrolv1.FlowSchema{TypeMeta: metav1.TypeMeta{APIVersion: "flowcontrol.apiserver.k8s.io/v1", Kind: "FlowSchema"}, ObjectMeta: seedMeta(r)}
	all := flowcontrolv1.PolicyRulesWithSubjects{
		ResourceRules:    []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
	group := func(n string) flowcontrolv1.Subject {
		return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}}
	}
	switch r.Intn(4) {
	case 0:
		fs.Name, fs.GenerateName = "exempt", ""
		all.Subjects = []flowcontrolv1.Subject{group("system:masters")}
		fs.Spec = flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "exempt"}, MatchingPrecedence: 1,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{all}}
	case 1:
		fs.Name, fs.GenerateName = "catch-all", ""
		all.Subjects = []flowcontrolv1.Subject{group("system:unauthenticated"), group("system:authenticated")}
		fs.Spec = flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "catch-all"}, MatchingPrecedence: 10000,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType}, Rules: []flowcontrolv1.PolicyRulesWithSubjects{all}}
	default:
		fs.Spec = flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "workload-low"}, MatchingPrecedence: 9000,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByNamespaceType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{
					{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: "kube-system", Name: "*"}},
					{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "alice"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"},
					Namespaces: []string{"default", "kube-system"}}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/apis/*"}}},
			}}}
	}
	return fs
}

// flowSchemaStatus gives most stored FlowSchemas the Dangling condition the controller writes.
func flowSchemaStatus(r *rand.Rand, obj runtime.Object) {
	if r.Intn(4) == 0 {
		return
	}
	obj.(*flowcontrol.FlowSchema).Status.Conditions = []flowcontrol.FlowSchemaCondition{{Type: "Dangling", Status: "False", Reason: "Found",
		LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}
}

func seedPriorityLevel(r *rand.Rand) runtime.Object {
	pl := &flowcontrolv1.PriorityLevelConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "flowcontrol.apiserver.k8s.io/v1", Kind: "PriorityLevelConfiguration"}, ObjectMeta: seedMeta(r)}
	switch r.Intn(4) {
	case 0:
		pl.Name, pl.GenerateName = "exempt", ""
		pl.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}}
	case 1:
		pl.Name, pl.GenerateName = "catch-all", ""
		pl.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(5)), LendablePercent: ptr(int32(0)),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}
	default:
		pl.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(30)), LendablePercent: ptr(int32(33)),
				BorrowingLimitPercent: ptr(int32(50)),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 6, QueueLengthLimit: 50}}}}
		if r.Intn(3) == 0 {
			pl.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
		}
	}
	return pl
}

// priorityLevelStatus gives most stored priority levels a condition.
func priorityLevelStatus(r *rand.Rand, obj runtime.Object) {
	if r.Intn(4) == 0 {
		return
	}
	obj.(*flowcontrol.PriorityLevelConfiguration).Status.Conditions = []flowcontrol.PriorityLevelConfigurationCondition{{Type: "ConcurrencyShared",
		Status: "True", LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}
}
