package envtest_test

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/envtest"
	"github.com/writepath/writepath/registry"
)

// gadgetV1 is the hub of the test scheme's Gadget kind and gadgetV2 a spoke: controller-runtime
// points the gadgets CRD at the local conversion webhook because of them.
type gadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (g *gadgetV1) DeepCopyObject() runtime.Object { c := *g; return &c }
func (*gadgetV1) Hub()                             {}

type gadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (g *gadgetV2) DeepCopyObject() runtime.Object { c := *g; return &c }
func (*gadgetV2) ConvertTo(conversion.Hub) error   { return nil }
func (*gadgetV2) ConvertFrom(conversion.Hub) error { return nil }

var _ conversion.Convertible = &gadgetV2{}

func gadgetScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	s.AddKnownTypeWithName(k8sschema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, &gadgetV1{})
	s.AddKnownTypeWithName(k8sschema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}, &gadgetV2{})
	return s
}

// TestInstallCRDsAsControllerRuntime installs the same CRDs two ways, the Environment's own
// in-process install and controller-runtime's InstallCRDs over HTTPS (UseExistingCluster against
// a second fresh server), and demands the same CRDs back and stored: the conversion webhook set
// for the scheme's convertible kind and cleared for the other, the server's defaults, the same
// field manager.
func TestInstallCRDsAsControllerRuntime(t *testing.T) {
	paths := []string{"testdata/crd", "testdata/crd-install"}
	own := &envtest.Environment{Scheme: gadgetScheme(t), CRDDirectoryPaths: paths, ErrorIfCRDPathMissing: true}
	_, err := own.Start()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, own.Stop()) })

	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	require.NoError(t, c.Bootstrap(t.Context()))
	srv := cluster.StartTLS(c)
	t.Cleanup(srv.Close)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	require.NoError(t, err)
	yes := true
	ref := &envtest.Environment{Scheme: gadgetScheme(t), CRDDirectoryPaths: paths, ErrorIfCRDPathMissing: true,
		UseExistingCluster: &yes, Config: cfg}
	_, err = ref.Start()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ref.Stop()) })

	require.Len(t, own.CRDs, 3)
	require.Len(t, ref.CRDs, 3)
	// controller-runtime reads the files into a map: the order of CRDs is not defined.
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range own.CRDs {
		byName[crd.Name] = crd
	}
	for _, r := range ref.CRDs {
		o := byName[r.Name]
		require.NotNil(t, o, r.Name)
		assert.NotEmpty(t, o.UID, o.Name)
		assert.NotEmpty(t, o.ResourceVersion, o.Name)
		assert.Equal(t, normalisedCRD(t, r, ref.WebhookInstallOptions), normalisedCRD(t, o, own.WebhookInstallOptions), o.Name)
	}
	gadgets := byName["gadgets.example.com"].Spec.Conversion
	require.NotNil(t, gadgets)
	assert.Equal(t, apiextensionsv1.WebhookConverter, gadgets.Strategy)
	require.NotNil(t, gadgets.Webhook.ClientConfig.URL)
	assert.Equal(t, "https://"+net.JoinHostPort(own.WebhookInstallOptions.LocalServingHost,
		strconv.Itoa(own.WebhookInstallOptions.LocalServingPort))+"/convert", *gadgets.Webhook.ClientConfig.URL)
	assert.Equal(t, apiextensionsv1.NoneConverter, byName["things.example.com"].Spec.Conversion.Strategy,
		"a kind the scheme does not convert loses the manifest's webhook (the server then defaults None)")

	// What each server stores is the same, managedFields' manager and the Established
	// condition included.
	for _, name := range []string{"widgets.example.com", "gadgets.example.com", "things.example.com"} {
		resp, err := own.Server().Cluster.Do(t.Context(), registryGet("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name))
		require.NoError(t, err)
		assert.Contains(t, string(resp.Body), `{"lastTransitionTime":`, name)
		assert.Contains(t, string(resp.Body), `"reason":"InitialNamesAccepted","status":"True","type":"Established"`, name)
		assert.Equal(t, storedCRD(t, srv.Cluster, name, ref.WebhookInstallOptions), storedCRD(t, own.Server().Cluster, name, own.WebhookInstallOptions), name)
	}
}

// normalisedCRD is crd as JSON without what differs between two servers and two webhook setups:
// uid, resourceVersion, times, the local webhook's port and CA.
func normalisedCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, wh envtest.WebhookInstallOptions) string {
	b, err := json.Marshal(crd)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return normalised(t, m, wh)
}

func storedCRD(t *testing.T, c *cluster.Cluster, name string, wh envtest.WebhookInstallOptions) string {
	resp, err := c.Do(t.Context(), registryGet("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name))
	require.NoError(t, err)
	require.Equal(t, 200, resp.Code, string(resp.Body))
	return normalised(t, resp.Object, wh)
}

func normalised(t *testing.T, m map[string]any, wh envtest.WebhookInstallOptions) string {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	meta := out["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		assert.NotEmpty(t, meta[k], k)
		delete(meta, k)
	}
	if mfs, ok := meta["managedFields"].([]any); ok {
		for _, mf := range mfs {
			delete(mf.(map[string]any), "time")
		}
	}
	if st, ok := out["status"].(map[string]any); ok {
		if conds, ok := st["conditions"].([]any); ok {
			for _, c := range conds {
				delete(c.(map[string]any), "lastTransitionTime")
			}
		}
	}
	if spec, ok := out["spec"].(map[string]any); ok {
		if conv, ok := spec["conversion"].(map[string]any); ok {
			if w, ok := conv["webhook"].(map[string]any); ok {
				if cc, ok := w["clientConfig"].(map[string]any); ok {
					want := "https://" + net.JoinHostPort(wh.LocalServingHost, strconv.Itoa(wh.LocalServingPort)) + "/convert"
					if u, ok := cc["url"].(string); ok && u == want {
						cc["url"] = "<local webhook>"
					}
					if ca, ok := cc["caBundle"].(string); ok && ca == base64.StdEncoding.EncodeToString(wh.LocalServingCAData) {
						cc["caBundle"] = "<local CA>"
					}
				}
			}
		}
	}
	b, err = json.MarshalIndent(out, "", "  ")
	require.NoError(t, err)
	return string(b)
}

func registryGet(path string) registry.Request {
	return registry.Request{Method: "GET", Path: path, User: cluster.Admin}
}
