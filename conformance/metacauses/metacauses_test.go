// Package metacauses checks, against the reference's own code, how often registry.Handle lists
// a metadata error in a 422's causes where the strategy is not k8s.io/kubernetes's: updates (and
// /status updates) of CustomResourceDefinitions (apiextensions-apiserver) and APIServices
// (kube-aggregator). The reference is rest.ValidateUpdate (validateCommonFields, then the
// strategy's ValidateUpdate, concatenated) after the strategy's PrepareForUpdate, on the live
// object with random metadata (labels, annotations, finalizers, an owner reference,
// deletionTimestamp, deletionGracePeriodSeconds) merged in; writepath answers the same change as
// a dry-run merge patch. The causes must agree in number, order and words.
package metacauses

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/registry/apiservice"

	"github.com/writepath/writepath/registry"
)

var scheme = runtime.NewScheme()

func init() {
	apiextensionsinstall.Install(scheme)
	apiregistrationinstall.Install(scheme)
}

// sample is the number of random metadata changes per endpoint (METACAUSES_SAMPLE; 1000 with
// WRITEPATH_LONG).
func sample() int {
	if n, err := strconv.Atoi(os.Getenv("METACAUSES_SAMPLE")); err == nil && n > 0 {
		return n
	}
	if os.Getenv("WRITEPATH_LONG") != "" {
		return 1000
	}
	return 60
}

// randomMeta is a metadata merge patch: each field present or not, with valid and invalid
// values (repeated finalizers give errors of the same message).
func randomMeta(r *rand.Rand) map[string]any {
	md := map[string]any{}
	pick := func(pool []string) string { return pool[r.Intn(len(pool))] }
	if r.Intn(2) == 0 {
		// One key: ValidateLabels and ValidateAnnotations range over Go maps, in random order.
		md["labels"] = map[string]any{pick([]string{"ok", "bad key!", "a/b", "x/-y", "-z"}): pick([]string{"v", "bad value!", ""})}
	}
	if r.Intn(2) == 0 {
		md["annotations"] = map[string]any{pick([]string{"ok", "Bad Key!", "example.com/x"}): "v"}
	}
	if r.Intn(2) == 0 {
		var f []any
		for i := r.Intn(4); i > 0; i-- {
			f = append(f, pick([]string{"example.com/ok", "Bad Fin", "kubernetes", "orphan", "foregroundDeletion", "a/b/c"}))
		}
		md["finalizers"] = f
	}
	if r.Intn(3) == 0 {
		ref := map[string]any{}
		for _, k := range []string{"apiVersion", "kind", "name", "uid"} {
			if r.Intn(2) == 0 {
				ref[k] = map[string]string{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u1"}[k]
			}
		}
		md["ownerReferences"] = []any{ref}
	}
	if r.Intn(4) == 0 {
		md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	}
	if r.Intn(5) == 0 {
		md["deletionGracePeriodSeconds"] = int64(r.Intn(3))
	}
	return md
}

// endpoint is one resource under test: its live v1 object, its path, and the reference's
// strategy with the conversion to its internal type.
type endpoint struct {
	name     string
	live     runtime.Object // v1, defaulted
	internal func() runtime.Object
	path     string
	strategy rest.RESTUpdateStrategy
	gk       kschema.GroupKind
	// others are the objects the world holds besides live (a custom resource's CRD).
	others []runtime.Object
}

func endpoints(t *testing.T) []endpoint {
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "things.example.com", ResourceVersion: "1", UID: "crd-uid", Generation: 1, CreationTimestamp: metav1.Unix(1700000000, 0)},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}, AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing"}},
	}
	as := &apiregistrationv1.APIService{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"},
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com", ResourceVersion: "1", UID: "as-uid", CreationTimestamp: metav1.Unix(1700000000, 0)},
		Spec: apiregistrationv1.APIServiceSpec{Group: "example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10,
			InsecureSkipTLSVerify: true, Service: &apiregistrationv1.ServiceReference{Namespace: "default", Name: "missing", Port: ptr(int32(443))}},
	}
	scheme.Default(crd)
	scheme.Default(as)
	crdNew := func() runtime.Object { return &apiextensions.CustomResourceDefinition{} }
	asNew := func() runtime.Object { return &apiregistration.APIService{} }
	crdGK := kschema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	asGK := kschema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}
	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com"
	asPath := "/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com"
	// A custom resource of the CRD above: its strategy with the CRD's schema.
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t1", "namespace": "default", "resourceVersion": "1", "uid": "cr-uid", "generation": int64(1), "creationTimestamp": "2023-11-14T22:13:20Z"},
		"spec":     map[string]any{"a": int64(1)}}}
	ref := &apiextensions.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}
	refS, err := structuralschema.NewStructural(ref)
	require.NoError(t, err)
	validator, _, err := apiservervalidation.NewSchemaValidator(ref)
	require.NoError(t, err)
	crStrategy := customresource.NewStrategy(nil, true, kschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}, validator, nil, refS, &apiextensions.CustomResourceSubresourceStatus{}, nil, nil)
	crGK := kschema.GroupKind{Group: "example.com", Kind: "Thing"}
	crPath := "/apis/example.com/v1/namespaces/default/things/t1"
	return []endpoint{
		{"cr", cr, nil, crPath, crStrategy, crGK, []runtime.Object{crd}},
		{"cr/status", cr, nil, crPath + "/status", customresource.NewStatusStrategy(crStrategy), crGK, []runtime.Object{crd}},
		{"crd", crd, crdNew, crdPath, customresourcedefinition.NewStrategy(scheme), crdGK, nil},
		{"crd/status", crd, crdNew, crdPath + "/status", customresourcedefinition.NewStatusStrategy(scheme), crdGK, nil},
		{"apiservice", as, asNew, asPath, apiservice.NewStrategy(scheme), asGK, nil},
		{"apiservice/status", as, asNew, asPath + "/status", apiservice.NewStatusStrategy(scheme), asGK, nil},
	}
}

func ptr[T any](v T) *T { return &v }

// reference answers the change as the apiserver's update path validates it: the strategy's
// PrepareForUpdate, then rest.ValidateUpdate; the 422's causes as JSON ("null" when it passes).
func (ep endpoint) reference(t *testing.T, patch map[string]any) string {
	liveJSON, err := json.Marshal(ep.live)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(liveJSON, &m))
	md := m["metadata"].(map[string]any)
	for k, v := range patch {
		md[k] = v
	}
	newJSON, err := json.Marshal(m)
	require.NoError(t, err)
	newV1 := ep.live.DeepCopyObject()
	require.NoError(t, json.Unmarshal(newJSON, newV1))
	obj, old := newV1, ep.live.DeepCopyObject()
	if ep.internal != nil {
		obj, old = ep.internal(), ep.internal()
		require.NoError(t, scheme.Convert(newV1, obj, nil))
		require.NoError(t, scheme.Convert(ep.live.DeepCopyObject(), old, nil))
	}
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	if ep.gk.Group == "example.com" {
		ctx = genericapirequest.WithNamespace(context.Background(), "default")
	}
	ep.strategy.PrepareForUpdate(ctx, obj, old)
	errs := rest.ValidateUpdate(ctx, obj, old, ep.strategy)
	if len(errs) == 0 {
		return "null"
	}
	st := apierrors.NewInvalid(ep.gk, "", errs).ErrStatus
	out, err := json.Marshal(st.Details.Causes)
	require.NoError(t, err)
	return string(out)
}

// writepath answers the change as a dry-run merge patch through registry.Handle.
func (ep endpoint) writepath(t *testing.T, patch map[string]any) string {
	var world []map[string]any
	for _, o := range append(ep.others, ep.live) {
		b, err := json.Marshal(o)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		world = append(world, m)
	}
	w, err := registry.NewStatic(world, registry.StaticOptions{ImplicitNamespaces: true})
	require.NoError(t, err)
	body, err := json.Marshal(map[string]any{"metadata": patch})
	require.NoError(t, err)
	resp, _, err := registry.Handle(context.Background(), w, registry.Request{Method: "PATCH", Path: ep.path + "?dryRun=All",
		ContentType: "application/merge-patch+json", Body: body})
	require.NoError(t, err)
	if resp.Code == 200 {
		return "null"
	}
	var st struct {
		Details struct {
			Causes []metav1.StatusCause `json:"causes"`
		} `json:"details"`
	}
	require.NoError(t, json.Unmarshal(resp.Body, &st), string(resp.Body))
	require.Equal(t, 422, resp.Code, string(resp.Body))
	out, err := json.Marshal(st.Details.Causes)
	require.NoError(t, err)
	return string(out)
}

func TestMetadataCauses(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := sample()
	for _, ep := range endpoints(t) {
		invalid := 0
		for i := 0; i < n; i++ {
			patch := randomMeta(r)
			want := ep.reference(t, patch)
			if want != "null" {
				invalid++
			}
			got := ep.writepath(t, patch)
			desc, _ := json.Marshal(patch)
			require.Equal(t, want, got, fmt.Sprintf("%s: metadata %s", ep.name, desc))
		}
		t.Logf("%s: %d changes, %d refused", ep.name, n, invalid)
	}
}
