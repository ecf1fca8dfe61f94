package protobuf_test

import (
	"testing"

	"github.com/writepath/writepath/internal/codec/protobuf"
)

// benchDeployment is a Deployment as the apiserver returns it (managedFields included).
func benchDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{
			"name": "web", "namespace": "default", "uid": "0b1c2d3e-0000-4000-8000-000000000001",
			"resourceVersion": "12345", "generation": int64(3), "creationTimestamp": "2026-01-02T03:04:05Z",
			"labels":      map[string]any{"app": "web", "tier": "frontend"},
			"annotations": map[string]any{"deployment.kubernetes.io/revision": "3"},
			"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1",
				"time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:spec": map[string]any{"f:replicas": map[string]any{}}}}},
		},
		"spec": map[string]any{
			"replicas": int64(3), "revisionHistoryLimit": int64(10), "progressDeadlineSeconds": int64(600),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{
					"containers": []any{map[string]any{
						"name": "web", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
						"ports":                    []any{map[string]any{"containerPort": int64(80), "protocol": "TCP"}},
						"resources":                map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "128Mi"}},
						"terminationMessagePath":   "/dev/termination-log",
						"terminationMessagePolicy": "File",
					}},
					"restartPolicy": "Always", "terminationGracePeriodSeconds": int64(30), "dnsPolicy": "ClusterFirst",
					"schedulerName": "default-scheduler", "securityContext": map[string]any{},
				},
			},
		},
		"status": map[string]any{"replicas": int64(3), "readyReplicas": int64(3), "observedGeneration": int64(3)},
	}
}

func BenchmarkEncodeDeployment(b *testing.B) {
	obj := benchDeployment()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := protobuf.Encode(obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDeployment(b *testing.B) {
	data, err := protobuf.Encode(benchDeployment())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := protobuf.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
