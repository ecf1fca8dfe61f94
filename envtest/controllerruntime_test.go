package envtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestControllerRuntimeClient(t *testing.T) {
	_, cfg := startEnvForClients(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx := context.Background()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default", Labels: map[string]string{"team": "x"}}}
	require.NoError(t, c.Create(ctx, cm))
	var got corev1.ConfigMap
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cm), &got))
	assert.Equal(t, cm.UID, got.UID)

	var list corev1.ConfigMapList
	require.NoError(t, c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"team": "x"}))
	require.Len(t, list.Items, 1)

	patch := client.MergeFrom(got.DeepCopy())
	got.Data = map[string]string{"a": "1"}
	require.NoError(t, c.Patch(ctx, &got, patch))
	assert.Equal(t, "1", got.Data["a"])

	require.NoError(t, c.Delete(ctx, &got))
	err = c.Get(ctx, client.ObjectKeyFromObject(cm), &got)
	assert.True(t, apierrors.IsNotFound(err), "get after delete: %v", err)
}

// TestControllerRuntimeServerSideApply applies a ConfigMap twice through controller-runtime's
// client (apply configurations), with two field managers: the second conflicts on a field the
// first owns, and succeeds when forced.
func TestControllerRuntimeServerSideApply(t *testing.T) {
	_, cfg := startEnvForClients(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx := context.Background()

	first := applycorev1.ConfigMap("ssa", "default").WithData(map[string]string{"owner": "one"})
	require.NoError(t, c.Apply(ctx, first, client.FieldOwner("one")))
	var got corev1.ConfigMap
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "ssa"}, &got))
	assert.Equal(t, "one", got.Data["owner"])
	require.Len(t, got.ManagedFields, 1)
	assert.Equal(t, "one", got.ManagedFields[0].Manager)
	assert.Equal(t, metav1.ManagedFieldsOperationApply, got.ManagedFields[0].Operation)

	second := applycorev1.ConfigMap("ssa", "default").WithData(map[string]string{"owner": "two"})
	err = c.Apply(ctx, second, client.FieldOwner("two"))
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "a second manager's apply conflicts: %v", err)
	require.NoError(t, c.Apply(ctx, second, client.FieldOwner("two"), client.ForceOwnership))
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "ssa"}, &got))
	assert.Equal(t, "two", got.Data["owner"])
}

// TestManagerReconciles runs a controller-runtime manager (its cache: informers with WatchList)
// with a reconciler that keeps a ConfigMap per Deployment, owned by it; the server's own
// Deployment controller rolls the Deployment out and its garbage collector removes the ConfigMap
// when the Deployment is deleted.
func TestManagerReconciles(t *testing.T) {
	_, cfg := startEnvForClients(t)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0"})
	require.NoError(t, err)
	k := mgr.GetClient()
	err = ctrl.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Owns(&corev1.ConfigMap{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var d appsv1.Deployment
			if err := k.Get(ctx, req.NamespacedName, &d); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-config", Namespace: d.Namespace}}
			_, err := ctrl.CreateOrUpdate(ctx, k, cm, func() error {
				cm.Data = map[string]string{"replicas": string(rune('0' + *d.Spec.Replicas))}
				return ctrl.SetControllerReference(&d, cm, mgr.GetScheme())
			})
			return reconcile.Result{}, err
		}))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](2),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
	}}
	require.NoError(t, k.Create(ctx, d))

	var cm corev1.ConfigMap
	key := types.NamespacedName{Namespace: "default", Name: "web-config"}
	require.Eventually(t, func() bool { return k.Get(ctx, key, &cm) == nil && cm.Data["replicas"] == "2" }, 10*time.Second, 10*time.Millisecond,
		"the reconciler creates the ConfigMap")
	require.Len(t, cm.OwnerReferences, 1)
	assert.Equal(t, "web", cm.OwnerReferences[0].Name)

	require.Eventually(t, func() bool {
		var got appsv1.Deployment
		return k.Get(ctx, client.ObjectKeyFromObject(d), &got) == nil && got.Status.ReadyReplicas == 2
	}, 10*time.Second, 10*time.Millisecond, "the server's Deployment controller rolls the Deployment out")

	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(d), d))
	d.Spec.Replicas = ptr.To[int32](3)
	require.NoError(t, k.Update(ctx, d))
	require.Eventually(t, func() bool { return k.Get(ctx, key, &cm) == nil && cm.Data["replicas"] == "3" }, 10*time.Second, 10*time.Millisecond,
		"the reconciler sees the update through its cache")

	require.NoError(t, k.Delete(ctx, d))
	require.Eventually(t, func() bool { return apierrors.IsNotFound(mgr.GetAPIReader().Get(ctx, key, &cm)) }, 10*time.Second, 10*time.Millisecond,
		"the garbage collector removes the owned ConfigMap")
}
