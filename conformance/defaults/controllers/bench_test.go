package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	consistencyutil "k8s.io/kubernetes/pkg/controller/util/consistency"

	wpd "github.com/writepath/writepath/controllers/deployment"
	wprs "github.com/writepath/writepath/controllers/replicaset"
)

// benchRS is a ReplicaSet scaled from n to n/2 over n ready Pods on 10 nodes: the sync
// claims every Pod, ranks them and deletes half.
func benchRS(n int) (map[string]any, []map[string]any) {
	base := time.Now().Add(-time.Hour)
	rs := map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "rs-uid", "generation": int64(2)},
		"spec": map[string]any{"replicas": int64(n / 2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}},
		"status": map[string]any{"replicas": int64(n)}}
	var pods []map[string]any
	for i := 0; i < n; i++ {
		t := base.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339)
		pods = append(pods, map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": fmt.Sprintf("p%d", i), "namespace": "ns", "uid": fmt.Sprintf("u%d", i), "creationTimestamp": t,
				"labels":          map[string]any{"app": "web"},
				"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-uid", "controller": true}}},
			"spec":   map[string]any{"nodeName": fmt.Sprintf("n%d", i%10)},
			"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": t}}}})
	}
	return rs, pods
}

func BenchmarkReplicaSetSync(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		rs, pods := benchRS(n)
		b.Run(fmt.Sprintf("pods=%d/impl=writepath", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := wprs.Sync(wprs.Input{ReplicaSet: rs, Pods: pods}, wprs.Options{Now: time.Now()}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("pods=%d/impl=reference", n), func(b *testing.B) {
			ctx := context.Background()
			logger := klog.FromContext(ctx)
			client := fake.NewClientset()
			client.PrependReactor("*", "*", func(a core.Action) (bool, runtime.Object, error) { return true, nil, nil })
			factory := informers.NewSharedInformerFactory(client, 0)
			rsInf, podInf := factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
			rsc := replicaset.NewBaseController(logger, rsInf, podInf, client, wprs.BurstReplicas,
				apps.SchemeGroupVersion.WithKind("ReplicaSet"), "replicaset_controller", "replicaset",
				controller.RealPodControl{KubeClient: client, Recorder: &record.FakeRecorder{}}, broadcaster,
				replicaset.DefaultReplicaSetControllerFeatures(), consistencyutil.NewNoopConsistencyStore())
			field[interface{ ShutDown() }](rsc, "queue").ShutDown()
			sync := field[syncFunc](rsc, "syncHandler")
			exp := field[*controller.UIDTrackingControllerExpectations](rsc, "expectations")
			var typed apps.ReplicaSet
			toTyped(rs, &typed)
			_ = rsInf.Informer().GetIndexer().Add(&typed)
			for _, p := range pods {
				var pod v1.Pod
				toTyped(p, &pod)
				_ = podInf.Informer().GetIndexer().Add(&pod)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				exp.DeleteExpectations(logger, "ns/web")
				client.ClearActions()
				if err := sync(ctx, "ns/web"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchDeployment is a Deployment mid-rollout: n old ReplicaSets of one replica each
// (revisions 1..n) and a new template, so the sync creates the new ReplicaSet and scales.
func benchDeployment(n int) (map[string]any, []map[string]any) {
	base := time.Now().Add(-time.Hour)
	d := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "d", "namespace": "ns", "uid": "d-uid", "generation": int64(2), "annotations": map[string]any{"deployment.kubernetes.io/revision": fmt.Sprint(n)}},
		"spec": map[string]any{"replicas": int64(n), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:new", "resources": map[string]any{}}}}},
			"strategy":                map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}},
			"progressDeadlineSeconds": int64(600), "revisionHistoryLimit": int64(10)}}
	var rss []map[string]any
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d-old%d", i)
		rss = append(rss, map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"metadata": map[string]any{"name": name, "namespace": "ns", "uid": "uid-" + name, "generation": int64(1),
				"creationTimestamp": base.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339),
				"labels":            map[string]any{"app": "web", "pod-template-hash": name},
				"annotations": map[string]any{"deployment.kubernetes.io/revision": fmt.Sprint(i + 1),
					"deployment.kubernetes.io/desired-replicas": fmt.Sprint(n), "deployment.kubernetes.io/max-replicas": fmt.Sprint(n + (n+3)/4)},
				"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "d-uid", "controller": true, "blockOwnerDeletion": true}}},
			"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "web", "pod-template-hash": name}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web", "pod-template-hash": name}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:" + name, "resources": map[string]any{}}}}}},
			"status": map[string]any{"replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1), "observedGeneration": int64(1), "terminatingReplicas": int64(0)}})
	}
	return d, rss
}

func BenchmarkDeploymentSync(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		d, rss := benchDeployment(n)
		b.Run(fmt.Sprintf("replicasets=%d/impl=writepath", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := wpd.Sync(wpd.Input{Deployment: d, ReplicaSets: rss}, wpd.Options{Now: time.Now()}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("replicasets=%d/impl=reference", n), func(b *testing.B) {
			ctx := context.Background()
			client := fake.NewClientset()
			client.PrependReactor("*", "*", func(a core.Action) (bool, runtime.Object, error) {
				switch a.GetVerb() {
				case "create":
					return true, a.(core.CreateAction).GetObject(), nil
				case "update":
					return true, a.(core.UpdateAction).GetObject(), nil
				}
				return true, nil, nil
			})
			factory := informers.NewSharedInformerFactory(client, 0)
			dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
			dc, err := deployment.NewDeploymentController(ctx, dInf, rsInf, podInf, client)
			if err != nil {
				b.Fatal(err)
			}
			field[interface{ ShutDown() }](dc, "queue").ShutDown()
			field[interface{ Shutdown() }](dc, "eventBroadcaster").Shutdown()
			sync := field[syncFunc](dc, "syncHandler")
			var typed apps.Deployment
			toTyped(d, &typed)
			_ = dInf.Informer().GetIndexer().Add(&typed)
			for _, rs := range rss {
				var t apps.ReplicaSet
				toTyped(rs, &t)
				_ = rsInf.Informer().GetIndexer().Add(&t)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				client.ClearActions()
				if err := sync(ctx, "ns/d"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
