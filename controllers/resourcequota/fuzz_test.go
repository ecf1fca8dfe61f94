package resourcequota_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/writepath/writepath/controllers/resourcequota"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// FuzzAdmit: any quota and object, created or updated, never panic and are never modified.
func FuzzAdmit(f *testing.F) {
	f.Add(quotaPods2, `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}`, "pods", true)
	f.Add(`{"kind":"ResourceQuota","spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["a b"]}]}},"status":{"hard":{"pods":"1"},"used":{}}}`,
		`{"spec":{"priorityClassName":"x"}}`, "pods", false)
	f.Add(`{"status":{"hard":{"requests.storage":"1e-2000000000"},"used":{"requests.storage":"1e2000000000"}}}`,
		`{"spec":{"resources":{"requests":{"storage":"1"}}}}`, "persistentvolumeclaims", true)
	f.Fuzz(func(t *testing.T, quotaJSON, objJSON, resource string, create bool) {
		var q, o map[string]any
		if json.Unmarshal([]byte(quotaJSON), &q) != nil || json.Unmarshal([]byte(objJSON), &o) != nil || q == nil || o == nil {
			return
		}
		q, o = normalize(q).(map[string]any), normalize(o).(map[string]any)
		qc, _ := value.DeepCopyMap(q)
		oc, _ := value.DeepCopyMap(o)
		op := resourcequota.Update
		if create {
			op = resourcequota.Create
		}
		_, _ = resourcequota.Admit([]map[string]any{q}, resourcequota.Attributes{Resource: resource, Namespace: "demo", Operation: op, Object: o, OldObject: o}, now)
		_, _ = resourcequota.Sync(resourcequota.Input{Quota: q, Objects: func(schema.GroupVersionResource) ([]map[string]any, error) {
			return []map[string]any{o}, nil
		}}, resourcequota.Options{Now: now})
		if !reflect.DeepEqual(q, qc) || !reflect.DeepEqual(o, oc) {
			t.Fatalf("inputs modified")
		}
	})
}
