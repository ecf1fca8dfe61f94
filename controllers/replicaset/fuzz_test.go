package replicaset

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzSync: any ReplicaSet and Pods decoded from JSON sync without panic, leave their
// inputs unmodified, and give the same result twice.
func FuzzSync(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"web","namespace":"ns","uid":"u"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}}}}}`),
		[]byte(`[{"metadata":{"name":"p","namespace":"ns","uid":"p","labels":{"app":"web"}},"status":{"phase":"Running"}}]`), int64(3))
	f.Add([]byte(`{"metadata":{"name":"web","namespace":"ns","uid":"u"},"spec":{"replicas":0,"selector":{}}}`), []byte(`[{}, null, 1]`), int64(0))
	f.Fuzz(func(t *testing.T, rsJSON, podsJSON []byte, at int64) {
		var rs map[string]any
		if json.Unmarshal(rsJSON, &rs) != nil {
			return
		}
		var raw []any
		_ = json.Unmarshal(podsJSON, &raw)
		var pods []Object
		for _, p := range raw {
			if m, ok := p.(map[string]any); ok {
				pods = append(pods, m)
			}
		}
		before, _ := json.Marshal([]any{rs, pods})
		now := time.Unix(at%(1<<33), 0)
		r1, err1 := Sync(Input{ReplicaSet: rs, Pods: pods}, Options{Now: now, BurstReplicas: 50})
		r2, err2 := Sync(Input{ReplicaSet: rs, Pods: pods}, Options{Now: now, BurstReplicas: 50})
		after, _ := json.Marshal([]any{rs, pods})
		if string(before) != string(after) {
			t.Fatalf("inputs modified")
		}
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(r1.Actions, r2.Actions) {
			t.Fatalf("not deterministic")
		}
	})
}
