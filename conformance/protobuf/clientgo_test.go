package protobuf

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/writepath/writepath/cluster"
)

// protoContentTypes records the Content-Type and Accept of every request the server saw.
type protoContentTypes struct {
	mu       sync.Mutex
	sent     map[string]int // request Content-Type -> count
	received map[string]int // response Content-Type -> count
}

func (p *protoContentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return protoRoundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		p.mu.Lock()
		defer p.mu.Unlock()
		if ct := r.Header.Get("Content-Type"); ct != "" {
			p.sent[ct]++
		}
		if err == nil {
			p.received[resp.Header.Get("Content-Type")]++
		}
		return resp, err
	})
}

type protoRoundTripper func(*http.Request) (*http.Response, error)

func (f protoRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestClientGoTypedProtobuf: client-go's typed clientset, as configured by default for built-in
// kinds (protobuf bodies, protobuf preferred on Accept), against cluster.StartTLS: create, get,
// update, list, watch and delete of a Namespace, a ConfigMap and a Deployment, and a 404 that
// comes back as a typed NotFound (a protobuf Status).
func TestClientGoTypedProtobuf(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	defer srv.Close()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	require.NoError(t, err)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf, application/json"
	seen := &protoContentTypes{sent: map[string]int{}, received: map[string]int{}}
	cfg.Wrap(seen.wrap)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Namespace.
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "proto", Labels: map[string]string{"a": "b"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "proto", ns.Name)
	assert.NotEmpty(t, ns.UID)
	assert.NotEmpty(t, ns.ResourceVersion)
	assert.Equal(t, corev1.NamespaceActive, ns.Status.Phase)
	assert.NotEmpty(t, ns.ManagedFields)

	// ConfigMap: create, get, update, list, watch, delete.
	w, err := cs.CoreV1().ConfigMaps("proto").Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	cm, err := cs.CoreV1().ConfigMaps("proto").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm"},
		Data:       map[string]string{"k": "v"},
		BinaryData: map[string][]byte{"b": {0, 1, 2}},
	}, metav1.CreateOptions{FieldManager: "proto-test"})
	require.NoError(t, err)
	assert.Equal(t, "v", cm.Data["k"])
	assert.Equal(t, []byte{0, 1, 2}, cm.BinaryData["b"])
	got, err := cs.CoreV1().ConfigMaps("proto").Get(ctx, "cm", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, cm.ResourceVersion, got.ResourceVersion)
	assert.Equal(t, "proto-test", got.ManagedFields[0].Manager)
	got.Data["k"] = "w"
	upd, err := cs.CoreV1().ConfigMaps("proto").Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "w", upd.Data["k"])
	assert.NotEqual(t, got.ResourceVersion, upd.ResourceVersion)
	got.Data["k"] = "stale"
	_, err = cs.CoreV1().ConfigMaps("proto").Update(ctx, got, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsConflict(err), "a stale update is a typed Conflict: %v", err)
	list, err := cs.CoreV1().ConfigMaps("proto").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "w", list.Items[0].Data["k"])
	assert.NotEmpty(t, list.ResourceVersion, "the list's resourceVersion comes through ListMeta")
	require.NoError(t, cs.CoreV1().ConfigMaps("proto").Delete(ctx, "cm", metav1.DeleteOptions{}))
	_, err = cs.CoreV1().ConfigMaps("proto").Get(ctx, "cm", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get after delete is a typed NotFound: %v", err)
	var events []watch.EventType
	for len(events) < 3 {
		select {
		case ev := <-w.ResultChan():
			require.NotEqual(t, watch.Error, ev.Type, "%v", ev.Object)
			obj, ok := ev.Object.(*corev1.ConfigMap)
			require.True(t, ok, "watch object %T", ev.Object)
			assert.Equal(t, "cm", obj.Name)
			events = append(events, ev.Type)
		case <-ctx.Done():
			t.Fatalf("watch: only %v", events)
		}
	}
	assert.Equal(t, []watch.EventType{watch.Added, watch.Modified, watch.Deleted}, events)

	// Deployment.
	replicas := int32(2)
	dep, err := cs.AppsV1().Deployments("proto").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), dep.Generation)
	// Defaults applied by the server come back through protobuf.
	assert.Equal(t, appsv1.RollingUpdateDeploymentStrategyType, dep.Spec.Strategy.Type)
	require.NotNil(t, dep.Spec.Strategy.RollingUpdate)
	assert.Equal(t, "25%", dep.Spec.Strategy.RollingUpdate.MaxSurge.String())
	assert.Equal(t, corev1.PullAlways, dep.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	// The deployment controller wrote status after the create: update the current object.
	dep, err = cs.AppsV1().Deployments("proto").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	dep.Spec.Replicas = ptrInt32Proto(3)
	dep, err = cs.AppsV1().Deployments("proto").Update(ctx, dep, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(2), dep.Generation)
	deps, err := cs.AppsV1().Deployments("proto").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, deps.Items, 1)
	fg := metav1.DeletePropagationForeground
	require.NoError(t, cs.AppsV1().Deployments("proto").Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &fg}))
	require.NoError(t, cs.CoreV1().Namespaces().Delete(ctx, "proto", metav1.DeleteOptions{}))

	seen.mu.Lock()
	defer seen.mu.Unlock()
	assert.NotZero(t, seen.sent["application/vnd.kubernetes.protobuf"], "requests in protobuf: %v", seen.sent)
	assert.NotZero(t, seen.received["application/vnd.kubernetes.protobuf"], "responses in protobuf: %v", seen.received)
	assert.NotZero(t, seen.received["application/vnd.kubernetes.protobuf;stream=watch"], "watch in protobuf: %v", seen.received)
	assert.Zero(t, seen.received["application/json"], "no JSON responses: %v", seen.received)
}

func ptrInt32Proto(i int32) *int32 { return &i }

// TestClientGoInformerProtobuf: a typed informer (list then watch, or WatchList's initial events
// ending in the annotated BOOKMARK, as client-go 0.37 chooses) syncs over protobuf and sees a
// create made after the sync.
func TestClientGoInformerProtobuf(t *testing.T) {
	c, err := cluster.New(cluster.Options{})
	require.NoError(t, err)
	srv := cluster.StartTLS(c)
	defer srv.Close()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	require.NoError(t, err)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf, application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "inf"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().ConfigMaps("inf").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("inf"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	added := make(chan string, 10)
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			added <- cm.Name
		}
	}})
	require.NoError(t, err)
	factory.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced), "the informer syncs over protobuf")
	_, err = cs.CoreV1().ConfigMaps("inf").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	seen := map[string]bool{}
	for !seen["before"] || !seen["after"] {
		select {
		case name := <-added:
			seen[name] = true
		case <-ctx.Done():
			t.Fatalf("informer saw only %v", seen)
		}
	}
	cancel()
	factory.Shutdown()
}
