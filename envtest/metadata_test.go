package envtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// TestMetadataClientAndInformer uses client-go's metadata client (Accept
// as=PartialObjectMetadata[List]) and a metadata informer (a WatchList of PartialObjectMetadata).
func TestMetadataClientAndInformer(t *testing.T) {
	_, cfg := startEnvForClients(t)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m1", Labels: map[string]string{"a": "b"}},
		Data: map[string]string{"big": "value"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	mc, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	m, err := mc.Resource(gvr).Namespace("default").Get(ctx, "m1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "b", m.Labels["a"])
	l, err := mc.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.NotEmpty(t, l.ResourceVersion)

	inf := metadatainformer.NewFilteredMetadataInformer(mc, gvr, "default", 0, cache.Indexers{}, nil).Informer()
	added := make(chan string, 8)
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(o any) { added <- o.(*metav1.PartialObjectMetadata).Name }})
	require.NoError(t, err)
	go inf.Run(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	require.True(t, cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced))
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m2"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case n := <-added:
			got[n] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("metadata informer saw %v", got)
		}
	}
}
