package resourcequota_test

import (
	"fmt"
	"time"

	"github.com/writepath/writepath/controllers/resourcequota"
)

func ExampleAdmit() {
	quota := map[string]any{"kind": "ResourceQuota", "metadata": map[string]any{"name": "q", "namespace": "demo"},
		"spec":   map[string]any{"hard": map[string]any{"pods": "2"}},
		"status": map[string]any{"hard": map[string]any{"pods": "2"}, "used": map[string]any{"pods": "1"}}}
	pod := map[string]any{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c"}}}}
	attrs := resourcequota.Attributes{Resource: "pods", Namespace: "demo", Operation: resourcequota.Create, Object: pod}
	charged, _ := resourcequota.Admit([]map[string]any{quota}, attrs, time.Time{})
	fmt.Println(charged[0]["status"].(map[string]any)["used"])
	_, err := resourcequota.Admit(charged, attrs, time.Time{})
	fmt.Println(err)
	// Output:
	// map[pods:2]
	// exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2
}
