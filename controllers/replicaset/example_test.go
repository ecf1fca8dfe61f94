package replicaset_test

import (
	"fmt"
	"time"

	"github.com/writepath/writepath/controllers/replicaset"
)

func ExampleSync() {
	rs := map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "u1", "generation": int64(1)},
		"spec": map[string]any{"replicas": int64(3), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}}},
	}
	res, _ := replicaset.Sync(replicaset.Input{ReplicaSet: rs}, replicaset.Options{Now: time.Unix(0, 0)})
	for _, a := range res.Actions {
		fmt.Println(a.Type, a.Object["metadata"].(map[string]any)["generateName"])
	}
	fmt.Println("expecting", res.Expectations.Add, "creations")
	// Output:
	// CreatePod web-
	// CreatePod web-
	// CreatePod web-
	// UpdateStatus <nil>
	// expecting 3 creations
}
