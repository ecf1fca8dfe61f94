package envtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/writepath/writepath/envtest"
)

// startEnvForClients starts an Environment with the test CRD and stops it when the test ends.
func startEnvForClients(t *testing.T) (*envtest.Environment, *rest.Config) {
	t.Helper()
	env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, env.Stop()) })
	return env, cfg
}

func TestTypedClient(t *testing.T) {
	_, cfg := startEnvForClients(t)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()

	ns, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "default", ns.Name)

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", Labels: map[string]string{"app": "a"}}, Data: map[string]string{"k": "v"}}
	created, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, created.UID)
	assert.NotEmpty(t, created.ResourceVersion)
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "two", Labels: map[string]string{"app": "b"}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	list, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{LabelSelector: "app=a"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "one", list.Items[0].Name)
	assert.NotEmpty(t, list.ResourceVersion, "a list carries the revision it was read at")

	list, err = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=two"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "two", list.Items[0].Name)

	created.Data["k"] = "w"
	updated, err := cs.CoreV1().ConfigMaps("default").Update(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "w", updated.Data["k"])
	_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, created, metav1.UpdateOptions{})
	require.Error(t, err, "an update from a stale resourceVersion conflicts")

	require.NoError(t, cs.CoreV1().ConfigMaps("default").Delete(ctx, "one", metav1.DeleteOptions{}))
	_, err = cs.CoreV1().ConfigMaps("default").Get(ctx, "one", metav1.GetOptions{})
	require.Error(t, err)
}

func TestListPagination(t *testing.T) {
	_, cfg := startEnvForClients(t)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	var names []string
	opts := metav1.ListOptions{Limit: 2}
	pages := 0
	for {
		l, err := cs.CoreV1().ConfigMaps("default").List(ctx, opts)
		require.NoError(t, err)
		pages++
		for _, it := range l.Items {
			names = append(names, it.Name)
		}
		if l.Continue == "" {
			break
		}
		require.NotNil(t, l.RemainingItemCount)
		opts.Continue = l.Continue
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, names)
	assert.Equal(t, 3, pages)
}

func TestDynamicClientCustomResource(t *testing.T) {
	_, cfg := startEnvForClients(t)
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"size": int64(3), "color": "red"}}}
	got, err := dc.Resource(gvr).Namespace("default").Create(ctx, w, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.GetGeneration())
	l, err := dc.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.Equal(t, "Widget", l.Items[0].GetKind())
}

// TestInformerWatchList runs a shared informer (client-go's WatchListClient feature is on by
// default: its first request is a watch with sendInitialEvents) through a sync, an add, an
// update and a delete.
func TestInformerWatchList(t *testing.T) {
	_, cfg := startEnvForClients(t)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	events := make(chan string, 16)
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { events <- "add " + o.(*corev1.ConfigMap).Name },
		UpdateFunc: func(_, o any) { events <- "update " + o.(*corev1.ConfigMap).Name },
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			events <- "delete " + o.(*corev1.ConfigMap).Name
		},
	})
	require.NoError(t, err)
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	require.True(t, cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced), "the informer's cache syncs")
	assert.Equal(t, "add before", next(t, events))

	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "add after", next(t, events))
	cm.Data = map[string]string{"x": "y"}
	_, err = cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "update after", next(t, events))
	require.NoError(t, cs.CoreV1().ConfigMaps("default").Delete(ctx, "after", metav1.DeleteOptions{}))
	assert.Equal(t, "delete after", next(t, events))
}

func next(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no informer event within 10s")
		return ""
	}
}
