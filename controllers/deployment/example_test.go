package deployment_test

import (
	"fmt"
	"time"

	"github.com/writepath/writepath/controllers/deployment"
)

func ExampleSync() {
	d := map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "d1", "generation": int64(1)},
		"spec": map[string]any{"replicas": int64(4), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template":                map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}},
			"strategy":                map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}},
			"progressDeadlineSeconds": int64(600)},
	}
	res, _ := deployment.Sync(deployment.Input{Deployment: d}, deployment.Options{Now: time.Unix(0, 0)})
	for _, a := range res.Actions {
		fmt.Println(a.Type, a.Why)
	}
	// Output:
	// CreateReplicaSet no ReplicaSet has the template: revision 1, 4 replicas to start
	// UpdateStatus revision and Progressing condition
	// UpdateStatus rollout status
}

func ExampleResolveFenceposts() {
	surge, unavailable, _ := deployment.ResolveFenceposts("25%", "25%", 10)
	fmt.Println(surge, unavailable)
	surge, unavailable, _ = deployment.ResolveFenceposts(int64(0), "0%", 10)
	fmt.Println(surge, unavailable)
	// Output:
	// 3 2
	// 0 1
}
