package envtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/registry"
)

const crdCollection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// installCRDs is controller-runtime's InstallCRDs against the Environment's own cluster, in
// process: the same CRDs read from the same paths, the same conversion webhook settings, each
// created (or, when it exists, updated) as controller-runtime's client would send it, and
// returned as the server answered them. Discovery is read from the cluster's handler; only if it
// does not list a CRD's resource yet does it fall back to controller-runtime's poll.
func installCRDs(srv *cluster.Server, cfg *rest.Config, options CRDInstallOptions) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if options.Scheme == nil {
		options.Scheme = scheme.Scheme
	}
	if options.MaxTime == 0 {
		options.MaxTime = 10 * time.Second // controller-runtime's default wait
	}
	if err := crenvtest.ReadCRDFiles(&options); err != nil {
		return nil, fmt.Errorf("unable to read CRD files: %w", err)
	}
	if err := pointAtConversionWebhook(options.CRDs, options.Scheme, options.WebhookOptions); err != nil {
		return nil, err
	}
	ctx := context.Background()
	for _, crd := range options.CRDs {
		if err := createOrUpdateCRD(ctx, srv.Cluster, crd); err != nil {
			return options.CRDs, fmt.Errorf("unable to create CRD instances: %w", err)
		}
	}
	if !discovered(srv, options.CRDs) {
		if err := crenvtest.WaitForCRDs(cfg, options.CRDs, options); err != nil {
			return options.CRDs, fmt.Errorf("something went wrong waiting for CRDs to appear as API resources: %w", err)
		}
	}
	return options.CRDs, nil
}

// pointAtConversionWebhook is what controller-runtime does to the CRDs when the webhook options
// have a local serving CA: a CRD of a kind the scheme implements conversion for (one Hub, the
// other versions Convertible) converts through the local webhook's /convert; the others lose the
// conversion the manifest gave them. Convertibility is asked of the CRDs' kinds only, where
// controller-runtime asks it of every kind in the scheme, each by a scan of the whole scheme (the
// same answers; a quadratic walk of client-go's scheme takes longer than this server's start).
func pointAtConversionWebhook(crds []*apiextensionsv1.CustomResourceDefinition, s *runtime.Scheme, opts crenvtest.WebhookInstallOptions) error {
	if len(opts.LocalServingCAData) == 0 {
		return nil
	}
	wanted := map[k8sschema.GroupKind]bool{}
	for _, crd := range crds {
		wanted[k8sschema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = false
	}
	for gvk := range s.AllKnownTypes() {
		gk := gvk.GroupKind()
		done, ok := wanted[gk]
		if !ok || done {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			return err
		}
		if yes, err := conversion.IsConvertible(s, obj); yes && err == nil {
			wanted[gk] = true
		}
	}
	host := opts.LocalServingHostExternalName
	if host == "" {
		host = opts.LocalServingHost
	}
	url := "https://" + net.JoinHostPort(host, strconv.Itoa(opts.LocalServingPort)) + "/convert"
	for _, crd := range crds {
		if crd.Spec.PreserveUnknownFields {
			continue
		}
		if !opts.IgnoreSchemeConvertible && !wanted[k8sschema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] {
			crd.Spec.Conversion = nil
			continue
		}
		if crd.Spec.Conversion == nil {
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Webhook: &apiextensionsv1.WebhookConversion{}}
		}
		if crd.Spec.Conversion.Webhook == nil {
			crd.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{}
		}
		crd.Spec.Conversion.Strategy = apiextensionsv1.WebhookConverter
		crd.Spec.Conversion.Webhook.ConversionReviewVersions = []string{"v1", "v1beta1"}
		u := url
		crd.Spec.Conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{URL: &u, CABundle: opts.LocalServingCAData}
	}
	return nil
}

// createOrUpdateCRD creates crd, or replaces the stored one of its name, and fills crd with the
// server's answer, as controller-runtime's CreateCRDs does through its client.
func createOrUpdateCRD(ctx context.Context, c *cluster.Cluster, crd *apiextensionsv1.CustomResourceDefinition) error {
	resp, err := do(ctx, c, "POST", crdCollection, crd)
	if err != nil {
		return err
	}
	if resp.Code == http.StatusConflict && statusReason(resp) == metav1.StatusReasonAlreadyExists {
		// Replaced at the stored resourceVersion; a write between the GET and the PUT is retried.
		for attempt := 0; ; attempt++ {
			got, err := do(ctx, c, "GET", crdCollection+"/"+crd.Name, nil)
			if err != nil {
				return err
			}
			if got.Code != http.StatusOK {
				return fmt.Errorf("unable to get CRD %q to check if it exists: %w", crd.Name, statusError(got))
			}
			meta, _ := got.Object["metadata"].(map[string]any)
			rv, _ := meta["resourceVersion"].(string)
			crd.SetResourceVersion(rv)
			resp, err = do(ctx, c, "PUT", crdCollection+"/"+crd.Name, crd)
			if err != nil {
				return err
			}
			if resp.Code != http.StatusConflict || attempt == 4 {
				break
			}
		}
		if resp.Code != http.StatusOK {
			return statusError(resp)
		}
	} else if resp.Code != http.StatusCreated {
		return fmt.Errorf("unable to create CRD %q: %w", crd.Name, statusError(resp))
	}
	*crd = apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(resp.Body, crd); err != nil {
		return err
	}
	crd.TypeMeta = metav1.TypeMeta{} // a typed client's decoder leaves the kind unset
	return nil
}

// do sends one request to the cluster as the admin user with client-go's default user agent (the
// field manager a controller-runtime client's writes get).
func do(ctx context.Context, c *cluster.Cluster, method, path string, obj any) (registry.Response, error) {
	var body []byte
	if obj != nil {
		b, err := json.Marshal(obj)
		if err != nil {
			return registry.Response{}, err
		}
		body = b
	}
	return c.Do(ctx, registry.Request{Method: method, Path: path, Body: body, ContentType: "application/json",
		User: cluster.Admin, UserAgent: rest.DefaultKubernetesUserAgent()})
}

func statusReason(resp registry.Response) metav1.StatusReason {
	r, _ := resp.Object["reason"].(string)
	return metav1.StatusReason(r)
}

// statusError is the client's error for a Status answer.
func statusError(resp registry.Response) error {
	var st metav1.Status
	if err := json.Unmarshal(resp.Body, &st); err != nil || st.Kind != "Status" {
		return fmt.Errorf("the server answered %d: %s", resp.Code, resp.Body)
	}
	return apierrors.FromObject(&st)
}

// discovered reports whether the server's discovery lists, for every served version of every
// CRD, its resource: what controller-runtime's WaitForCRDs polls for.
func discovered(srv *cluster.Server, crds []*apiextensionsv1.CustomResourceDefinition) bool {
	h := srv.Cluster.Handler()
	lists := map[string]map[string]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := crd.Spec.Group + "/" + v.Name
			names, ok := lists[gv]
			if !ok {
				req := httptest.NewRequest("GET", "/apis/"+gv, nil)
				req.Header.Set("Authorization", "Bearer "+srv.Token)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				var list metav1.APIResourceList
				if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &list) != nil {
					return false
				}
				names = map[string]bool{}
				for _, r := range list.APIResources {
					names[r.Name] = true
				}
				lists[gv] = names
			}
			if !names[crd.Spec.Names.Plural] {
				return false
			}
		}
	}
	return true
}
