// Package table checks cluster's Table and PartialObjectMetadata output with the clients that
// ask for them: client-go's metadata client and metadata informers (protobuf
// PartialObjectMetadata, for custom resources too), client-go decoding Tables into
// metav1.Table, and the real kubectl 1.37 binary (`get`, `get -o wide`, `get -w`) when one is
// found ($KUBECTL, ../shared/tools/realcluster's build, or PATH; skipped otherwise).
package table

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/writepath/writepath/cluster"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// fixture starts a cluster on a loopback TLS port with a namespace, a Pod, a Deployment, two
// ConfigMaps, a Role and a CRD with printer columns and one of its objects, all created at t0;
// the clock then stands 5 minutes later.
func fixture(t *testing.T) (*cluster.Server, *rest.Config) {
	clock := cluster.NewFakeClock(t0)
	c, err := cluster.New(cluster.Options{Clock: clock, Kubelet: cluster.PodsPending})
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	t.Cleanup(srv.Close)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	require.NoError(t, err)
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	post := func(path, body string) {
		req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, 201, resp.StatusCode, "POST %s", path)
	}
	post("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)
	post("/api/v1/namespaces/demo/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"busybox"}]}}`)
	post("/apis/apps/v1/namespaces/demo/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"a","image":"nginx"}]}}}}`)
	post("/api/v1/namespaces/demo/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one"},"data":{"a":"1"}}`)
	post("/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"reader"}}`)
	post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
	 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
	 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
	 "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"},{"name":"Color","type":"string","jsonPath":".spec.color","priority":1},{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}]}]}}`)
	post("/apis/example.com/v1/namespaces/demo/widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3,"color":"red"}}`)
	clock.Step(5 * time.Minute)
	return srv, cfg
}

// TestMetadataInformerCustomResource: a metadata informer on a custom resource syncs and sees
// an update, with every answer in protobuf (the metadata client's first choice).
func TestMetadataInformerCustomResource(t *testing.T) {
	_, cfg := fixture(t)
	var mu sync.Mutex
	received := map[string]int{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && strings.Contains(r.URL.Path, "/widgets") {
				mu.Lock()
				received[resp.Header.Get("Content-Type")]++
				mu.Unlock()
			}
			return resp, err
		})
	})
	mc, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := mc.Resource(gvr).Namespace("demo").Get(ctx, "w1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "w1", got.Name)

	f := metadatainformer.NewSharedInformerFactory(mc, 0)
	inf := f.ForResource(gvr).Informer()
	updated := make(chan string, 10)
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
		updated <- obj.(*metav1.PartialObjectMetadata).Labels["v"]
	}})
	require.NoError(t, err)
	f.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	require.Len(t, inf.GetStore().List(), 1)
	_, err = mc.Resource(gvr).Namespace("demo").Patch(ctx, "w1", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"v":"2"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	select {
	case v := <-updated:
		assert.Equal(t, "2", v)
	case <-ctx.Done():
		t.Fatal("no update event")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Positive(t, received["application/vnd.kubernetes.protobuf"]+received["application/vnd.kubernetes.protobuf;stream=watch"], "answers: %v", received)
	assert.Zero(t, received["application/json"], "answers: %v", received)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestTableDecodes: the Tables decode into metav1.Table with client-go's codecs, as kubectl
// reads them.
func TestTableDecodes(t *testing.T) {
	_, cfg := fixture(t)
	scheme := runtime.NewScheme()
	require.NoError(t, metav1.AddMetaToScheme(scheme))
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	for _, path := range []string{"/api/v1/namespaces/demo/pods", "/apis/example.com/v1/namespaces/demo/widgets/w1", "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles"} {
		obj, err := rc.Get().AbsPath(path).SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").Do(ctx).Get()
		require.NoError(t, err, path)
		tbl, ok := obj.(*metav1.Table)
		require.True(t, ok, "%s: %T", path, obj)
		require.Len(t, tbl.Rows, 1, path)
		assert.Len(t, tbl.Rows[0].Cells, len(tbl.ColumnDefinitions), path)
	}
}

func kubectlBinary(t *testing.T) string {
	for _, p := range []string{os.Getenv("KUBECTL"), filepath.Join(os.Getenv("HOME"), ".cache", "realcluster", "bin", "kubectl")} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p
	}
	t.Skip("no kubectl binary ($KUBECTL, ~/.cache/realcluster/bin/kubectl, PATH)")
	return ""
}

func kubeconfigFile(t *testing.T, srv *cluster.Server) string {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(p, srv.Kubeconfig(), 0o600))
	return p
}

// TestKubectlGet: kubectl 1.37's get and get -o wide print the cluster's Tables; AGE is the
// fake clock's 5 minutes.
func TestKubectlGet(t *testing.T) {
	kubectl := kubectlBinary(t)
	srv, _ := fixture(t)
	kc := kubeconfigFile(t, srv)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods", "-n", "demo"}, `
NAME   READY   STATUS    RESTARTS   AGE
web    0/2     Pending   0          5m
`},
		{[]string{"get", "pods", "-n", "demo", "-o", "wide"}, `
NAME   READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES
web    0/2     Pending   0          5m    <none>   <none>   <none>           <none>
`},
		{[]string{"get", "deploy,cm", "-n", "demo"}, `
NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/web   0/0     0            0           5m

NAME            DATA   AGE
configmap/one   1      5m
`},
		{[]string{"get", "deploy", "-n", "demo", "-o", "wide"}, `
NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES   SELECTOR
web    0/0     0            0           5m    a            nginx    app=web
`},
		{[]string{"get", "widgets", "-n", "demo"}, `
NAME   SIZE   AGE
w1     3      5m
`},
		{[]string{"get", "widgets", "-n", "demo", "-o", "wide"}, `
NAME   SIZE   COLOR   AGE
w1     3      red     5m
`},
		{[]string{"get", "roles", "-n", "demo"}, `
NAME     CREATED AT
reader   2026-12-01T00:00:00Z
`},
	} {
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kc}, c.args...)...).CombinedOutput()
		require.NoError(t, err, "kubectl %v: %s", c.args, out)
		assert.Equal(t, strings.TrimPrefix(c.want, "\n"), string(out), "kubectl %v", c.args)
	}
}

// TestKubectlGetWatch: kubectl get -w prints the list's Table, then a row for each watch
// event (the events' Tables carry no column definitions after the first).
func TestKubectlGetWatch(t *testing.T) {
	kubectl := kubectlBinary(t)
	srv, cfg := fixture(t)
	kc := kubeconfigFile(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "get", "configmaps", "-n", "demo", "-w")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	var got []string
	for len(got) < 2 && lines.Scan() {
		got = append(got, lines.Text())
	}
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	req, err := http.NewRequest("POST", srv.URL+"/api/v1/namespaces/demo/configmaps", strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two"},"data":{"a":"1","b":"2"}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 201, resp.StatusCode)
	for len(got) < 3 && lines.Scan() {
		got = append(got, lines.Text())
	}
	assert.Equal(t, []string{
		"NAME   DATA   AGE",
		"one    1      5m",
		"two    2      0s",
	}, got)
}
