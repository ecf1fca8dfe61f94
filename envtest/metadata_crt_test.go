package envtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestControllerRuntimeMetadataOnly: a controller watching ConfigMaps with builder.OnlyMetadata
// (controller-runtime's metadata-only informer: PartialObjectMetadata lists and watches) is
// told of a create and an update, and its cache reads PartialObjectMetadata.
func TestControllerRuntimeMetadataOnly(t *testing.T) {
	_, cfg := startEnvForClients(t)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0"})
	require.NoError(t, err)
	seen := make(chan string, 16)
	err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, builder.OnlyMetadata).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			m := &metav1.PartialObjectMetadata{}
			m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
			if err := mgr.GetClient().Get(ctx, req.NamespacedName, m); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			seen <- m.Name + ":" + m.Labels["v"]
			return reconcile.Result{}, nil
		}))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	k := mgr.GetClient()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "meta", Namespace: "default", Labels: map[string]string{"v": "1"}}, Data: map[string]string{"big": "x"}}
	require.NoError(t, k.Create(ctx, cm))
	wait := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-seen:
				if got == want {
					return
				}
			case <-deadline:
				t.Fatalf("the metadata-only controller never saw %s", want)
			}
		}
	}
	wait("meta:1")
	require.NoError(t, k.Patch(ctx, cm, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"v":"2"}}}`))))
	wait("meta:2")

	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	require.NoError(t, mgr.GetCache().List(ctx, list, client.InNamespace("default")))
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Name)
	}
	assert.Contains(t, names, "meta")
}
