package validation

import (
	"context"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	kfield "k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/authorization"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	authorizationvalidation "k8s.io/kubernetes/pkg/apis/authorization/validation"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/validation"
)

// The access reviews' REST Create validation (a review is not stored and has no strategy):
// random valid reviews mutated at one path, validated by the reference's
// Validate*AccessReviewCreate (hand-written and declarative) and by writepath's
// validation.ValidateAccessReview, on the decoded object (no system fields, no defaults beyond
// the scheme's). WRITEPATH_CASES=n as for TestAgreement.
func TestAccessReviewAgreement(t *testing.T) {
	n := caseCount()
	for _, k := range []struct {
		kind      string
		namespace string
		seed      func(r *rand.Rand) runtime.Object
		ref       func(ctx context.Context, obj runtime.Object) kfield.ErrorList
	}{
		{"SubjectAccessReview", "", seedSubjectAccessReview, func(ctx context.Context, o runtime.Object) kfield.ErrorList {
			return authorizationvalidation.ValidateSubjectAccessReviewCreate(ctx, legacyscheme.Scheme, o.(*authorization.SubjectAccessReview))
		}},
		{"LocalSubjectAccessReview", "validation-pod", seedLocalSubjectAccessReview, func(ctx context.Context, o runtime.Object) kfield.ErrorList {
			return authorizationvalidation.ValidateLocalSubjectAccessReviewCreate(ctx, legacyscheme.Scheme, o.(*authorization.LocalSubjectAccessReview))
		}},
		{"SelfSubjectAccessReview", "", seedSelfSubjectAccessReview, func(ctx context.Context, o runtime.Object) kfield.ErrorList {
			return authorizationvalidation.ValidateSelfSubjectAccessReviewCreate(ctx, legacyscheme.Scheme, o.(*authorization.SelfSubjectAccessReview))
		}},
	} {
		t.Run(k.kind, func(t *testing.T) {
			gvk := kschema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: k.kind}
			hk := harnessKind{gvk: gvk, resource: "x"}
			r := rand.New(rand.NewSource(37))
			invalid, disagree := 0, 0
			for i := 0; i < n; i++ {
				obj := k.seed(r)
				mutate(r, obj)
				in := toInternal(t, obj)
				ctx := genericapirequest.WithNamespace(ctxFor(hk, k.namespace, "create", ""), k.namespace)
				ref := refLines(k.ref(ctx, in))
				got := ourLines(validation.ValidateAccessReview(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, toV1Map(t, hk, in)))
				if len(ref) > 0 {
					invalid++
				}
				if !assert.Equal(t, ref, got, "%s case %d: %s", k.kind, i, js(obj)) {
					disagree++
				}
			}
			t.Logf("| %s | create | %d | %d | %d |", k.kind, n, invalid, disagree)
		})
	}
}

func seedResourceAttributes(r *rand.Rand, namespace string) *authorizationv1.ResourceAttributes {
	ra := &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: pick(r, []string{"get", "list", "create"}), Resource: pick(r, []string{"pods", "deployments"})}
	if r.Intn(2) == 0 {
		ra.Group = "apps"
	}
	if r.Intn(3) == 0 {
		ra.FieldSelector = &authorizationv1.FieldSelectorAttributes{RawSelector: "spec.nodeName=n1"}
		if r.Intn(2) == 0 {
			ra.FieldSelector = &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{{Key: "spec.nodeName", Operator: "In", Values: []string{"n1"}}}}
		}
	}
	if r.Intn(3) == 0 {
		ra.LabelSelector = &authorizationv1.LabelSelectorAttributes{RawSelector: "app=web"}
		if r.Intn(2) == 0 {
			ra.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Exists"}}}
		}
	}
	return ra
}

func seedSubjectAccessReview(r *rand.Rand) runtime.Object {
	s := &authorizationv1.SubjectAccessReview{TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"}}
	s.Spec.User = "alice"
	if r.Intn(2) == 0 {
		s.Spec.Groups = []string{"system:authenticated"}
	}
	if r.Intn(3) == 0 {
		s.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}
	} else {
		s.Spec.ResourceAttributes = seedResourceAttributes(r, pick(r, []string{"", "default"}))
	}
	return s
}

func seedLocalSubjectAccessReview(r *rand.Rand) runtime.Object {
	s := &authorizationv1.LocalSubjectAccessReview{TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "LocalSubjectAccessReview"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "validation-pod"}}
	s.Spec.User = "alice"
	s.Spec.ResourceAttributes = seedResourceAttributes(r, "validation-pod")
	return s
}

func seedSelfSubjectAccessReview(r *rand.Rand) runtime.Object {
	s := &authorizationv1.SelfSubjectAccessReview{TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"}}
	if r.Intn(3) == 0 {
		s.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}
	} else {
		s.Spec.ResourceAttributes = seedResourceAttributes(r, "default")
	}
	return s
}
