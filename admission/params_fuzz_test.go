package admission

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// FuzzParamValue feeds JSON param objects of several kinds to the `params`
// presentation of both policy kinds: no panic, the param is not modified,
// and walking the value (sizes, iteration, lookups, equality) never panics.
func FuzzParamValue(f *testing.F) {
	f.Add("apps/v1", "Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","managedFields":[{}]},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"0.5"}}}]}}}}`)
	f.Add("v1", "Pod", `{"spec":{"containers":[],"tolerations":[{"tolerationSeconds":3}]},"status":{"startTime":"2024-01-02T03:04:05Z"}}`)
	f.Add("v1", "Service", `{"spec":{"ports":[{"port":"x"}]}}`)
	f.Add("rbac.authorization.k8s.io/v1", "ClusterRole", `{"rules":[]}`)
	f.Add("example.com/v1", "Widget", `{"spec":{"a":[1,2,{}]}}`)
	f.Add("v1", "ConfigMap", `{"data":{"a":"b"},"binaryData":{"b":"eQ=="},"extra":null}`)
	f.Fuzz(func(t *testing.T, apiVersion, kind, doc string) {
		var param map[string]any
		if json.Unmarshal([]byte(doc), &param) != nil || param == nil {
			return
		}
		before, _ := json.Marshal(param)
		pk := &paramKind{apiVersion: apiVersion, kind: kind}
		for _, mutating := range []bool{false, true} {
			v := paramCELValue(param, pk, mutating)
			if rv, ok := v.(ref.Val); ok {
				walkVal(rv, 0)
			}
		}
		after, _ := json.Marshal(param)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("param modified:\n%s\n%s", before, after)
		}
	})
}

func walkVal(v ref.Val, depth int) {
	if depth > 20 {
		return
	}
	v.Equal(v)
	switch x := v.(type) {
	case traits.Mapper:
		x.Size()
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			walkVal(x.Get(k), depth+1)
		}
	case traits.Lister:
		for it := x.Iterator(); it.HasNext() == types.True; {
			walkVal(it.Next(), depth+1)
		}
	}
}
