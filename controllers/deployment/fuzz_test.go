package deployment

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzSync: any Deployment and ReplicaSets decoded from JSON sync without panic, leave
// their inputs unmodified and give the same result twice.
func FuzzSync(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"d","namespace":"ns","uid":"u","generation":2},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},"progressDeadlineSeconds":5,"revisionHistoryLimit":0}}`),
		[]byte(`[{"metadata":{"name":"r","namespace":"ns","uid":"r","labels":{"a":"b"},"annotations":{"deployment.kubernetes.io/revision":"1","deployment.kubernetes.io/desired-replicas":"2"},"ownerReferences":[{"uid":"u","controller":true}]},"spec":{"replicas":2,"template":{}},"status":{"replicas":2}}]`), int64(0))
	f.Add([]byte(`{"metadata":{"name":"d","namespace":"ns","uid":"u","annotations":{"deprecated.deployment.rollback.to":"0"}},"spec":{"strategy":{"type":"Recreate"},"selector":{"matchLabels":{"a":"b"}}}}`), []byte(`[]`), int64(99))
	f.Fuzz(func(t *testing.T, dJSON, rsJSON []byte, at int64) {
		var d map[string]any
		if json.Unmarshal(dJSON, &d) != nil {
			return
		}
		var raw []any
		_ = json.Unmarshal(rsJSON, &raw)
		var rss []Object
		for _, x := range raw {
			if m, ok := x.(map[string]any); ok {
				rss = append(rss, m)
			}
		}
		before, _ := json.Marshal([]any{d, rss})
		now := time.Unix(at%(1<<33), 0)
		r1, _ := Sync(Input{Deployment: d, ReplicaSets: rss}, Options{Now: now})
		r2, _ := Sync(Input{Deployment: d, ReplicaSets: rss}, Options{Now: now})
		after, _ := json.Marshal([]any{d, rss})
		if string(before) != string(after) {
			t.Fatalf("inputs modified")
		}
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("not deterministic")
		}
	})
}
