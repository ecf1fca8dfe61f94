package conversion_test

import (
	"fmt"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
)

// Builtin converts custom resources as the None strategy does, and
// built-in kinds as kube-apiserver does: a HorizontalPodAutoscaler's v2
// metrics other than the CPU target travel through autoscaling/v1 in an
// annotation, and come back first.
func ExampleBuiltin() {
	conv := conversion.Builtin{CRDs: []*schema.CRD{widgets().Schema}}
	out, err := conv.Convert(map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": int64(1)}},
		schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Widget"})
	fmt.Println(out, err)

	v1 := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	v2 := schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	hpa := map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "h"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web"}, "maxReplicas": int64(5),
			"metrics": []any{
				map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
					"target": map[string]any{"type": "Utilization", "averageUtilization": int64(60)}}},
				map[string]any{"type": "Resource", "resource": map[string]any{"name": "memory",
					"target": map[string]any{"type": "AverageValue", "averageValue": "0.5Gi"}}}}}}
	asV1, err := conv.Convert(hpa, v2, v1)
	if err != nil {
		panic(err)
	}
	fmt.Println(asV1["spec"])
	fmt.Println(asV1["metadata"].(map[string]any)["annotations"])
	back, err := conv.Convert(asV1, v1, v2)
	if err != nil {
		panic(err)
	}
	for _, m := range back["spec"].(map[string]any)["metrics"].([]any) {
		fmt.Println(m)
	}
	// Output:
	// map[apiVersion:example.com/v1beta1 kind:Widget spec:map[size:1]] <nil>
	// map[maxReplicas:5 scaleTargetRef:map[kind:Deployment name:web] targetCPUUtilizationPercentage:60]
	// map[autoscaling.alpha.kubernetes.io/metrics:[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"512Mi"}}]]
	// map[resource:map[name:memory target:map[averageValue:512Mi type:AverageValue]] type:Resource]
	// map[resource:map[name:cpu target:map[averageUtilization:60 type:Utilization]] type:Resource]
}

// The admission dispatchers convert a webhook's autoscaling/v1 result back
// into the object they hold: metrics that v1's annotation does not list (here
// the v2 object's only metric, kept in the annotation and also held) come
// back after the annotation's, as kube-apiserver 1.37 stores them.
func ExampleBuiltin_ConvertOnto() {
	v1 := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	v2 := schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	held := map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "h"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web"}, "maxReplicas": int64(5),
			"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "memory",
				"target": map[string]any{"type": "AverageValue", "averageValue": "512Mi"}}}}}}
	conv := conversion.Builtin{}
	sent, err := conv.Convert(held, v2, v1) // what a webhook registered for v1 receives
	if err != nil {
		panic(err)
	}
	sent["metadata"].(map[string]any)["labels"] = map[string]any{"seen": "v1"} // its patch
	fresh, err := conv.Convert(sent, v1, v2)
	if err != nil {
		panic(err)
	}
	onto, err := conv.ConvertOnto(sent, held, v1, v2)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(fresh["spec"].(map[string]any)["metrics"].([]any)), "metric into a fresh object")
	fmt.Println(len(onto["spec"].(map[string]any)["metrics"].([]any)), "metrics into the object held")
	// Output:
	// 1 metric into a fresh object
	// 2 metrics into the object held
}
