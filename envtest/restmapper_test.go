package envtest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// TestControllerRuntimeRESTMapper: controller-runtime's dynamic RESTMapper (what a manager's
// client uses) maps built-in kinds and the CRD's kind through the aggregated discovery
// documents, resolves resources to kinds with the apiserver's group priority (events: core
// before events.k8s.io), and finds a CRD created after it started once asked again.
func TestControllerRuntimeRESTMapper(t *testing.T) {
	_, cfg := startEnvForClients(t)
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	require.NoError(t, err)

	m, err := mapper.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"})
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, m.Resource)
	assert.Equal(t, meta.RESTScopeNameNamespace, m.Scope.Name())

	m, err = mapper.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	require.NoError(t, err)
	assert.Equal(t, "widgets", m.Resource.Resource)

	gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: "events"})
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionKind{Version: "v1", Kind: "Event"}, gvk)

	m, err = mapper.RESTMapping(schema.GroupKind{Kind: "Namespace"})
	require.NoError(t, err)
	assert.Equal(t, meta.RESTScopeNameRoot, m.Scope.Name())

	_, err = mapper.RESTMapping(schema.GroupKind{Group: "late.example.com", Kind: "Gadget"})
	require.True(t, meta.IsNoMatchError(err), "%v", err)
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	crd := &unstructured.Unstructured{}
	require.NoError(t, crd.UnmarshalJSON([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.late.example.com"},
	"spec":{"group":"late.example.com","scope":"Cluster","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)))
	_, err = dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
		Create(context.Background(), crd, metav1.CreateOptions{})
	require.NoError(t, err)
	m, err = mapper.RESTMapping(schema.GroupKind{Group: "late.example.com", Kind: "Gadget"})
	require.NoError(t, err)
	assert.Equal(t, "gadgets", m.Resource.Resource)
	assert.Equal(t, meta.RESTScopeNameRoot, m.Scope.Name())
}
