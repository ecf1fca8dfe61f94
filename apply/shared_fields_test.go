package apply

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/schema"
)

// The structured update leaves out the top-level fields both objects hold identically
// (withoutSharedFields): over status updates, spec changes, values of another type, invalid
// fields on either side, duplicate list keys and managers of another apiVersion, the managed
// fields and the errors are those of converting and comparing the whole objects.
func TestSharedFieldsLeftOutChangeNothing(t *testing.T) {
	pod := func(image string, extra map[string]any, status map[string]any) map[string]any {
		spec := map[string]any{"containers": []any{map[string]any{"name": "web", "image": image}}, "restartPolicy": "Always"}
		for k, v := range extra {
			spec[k] = v
		}
		o := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "ns", "labels": map[string]any{"app": "web"}},
			"spec": spec}
		if status != nil {
			o["status"] = status
		}
		return o
	}
	pending := map[string]any{"phase": "Pending"}
	running := map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	dup := map[string]any{"containers": []any{map[string]any{"name": "web", "image": "a"}, map[string]any{"name": "web", "image": "b"}}}
	cases := []struct {
		name      string
		live, new map[string]any
		version   string // of the live manager, "" for v1
	}{
		{"status update", pod("a", nil, pending), pod("a", nil, running), ""},
		{"spec and status", pod("a", nil, pending), pod("b", nil, running), ""},
		{"no change", pod("a", nil, running), pod("a", nil, running), ""},
		{"int and float", pod("a", map[string]any{"terminationGracePeriodSeconds": int64(30)}, pending),
			pod("a", map[string]any{"terminationGracePeriodSeconds": float64(30)}, running), ""},
		{"invalid in both", pod("a", map[string]any{"hostNetwork": "yes"}, pending), pod("a", map[string]any{"hostNetwork": "yes"}, running), ""},
		{"invalid live status", pod("a", nil, map[string]any{"phase": int64(3)}), pod("a", nil, running), ""},
		{"invalid new status", pod("a", nil, pending), pod("a", nil, map[string]any{"phase": int64(3)}), ""},
		{"duplicate keys kept", pod("a", nil, pending), pod("a", nil, running), ""},
		{"other manager version", pod("a", nil, pending), pod("a", nil, running), "v2"},
	}
	cases[7].live["spec"], cases[7].new["spec"] = dup, dup
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(whole bool) string {
				e := newEngine(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "status", time.Unix(0, 0), Builtin, nil, nil, 0)
				e.wholeObjects = whole
				version := tc.version
				if version == "" {
					version = "v1"
				}
				set, err := managedfields.SetFromFieldsV1([]byte(`{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}}`))
				require.NoError(t, err)
				managed := managedfields.Managed{Fields: fieldpath.ManagedFields{"kcm": fieldpath.NewVersionedSet(set, fieldpath.APIVersion(version), false)},
					Times: map[string]*time.Time{}}
				_, out, err := e.structuredUpdate(tc.live, tc.new, managed, "kubelet")
				if err != nil {
					return "error: " + err.Error()
				}
				s := ""
				for _, id := range []string{"kcm", "kubelet"} {
					if vs, ok := out.Fields[id]; ok {
						js, err := vs.Set().ToJSON()
						require.NoError(t, err)
						s += fmt.Sprintf("%s %s %s\n", id, vs.APIVersion(), js)
					}
				}
				return s
			}
			assert.Equal(t, run(true), run(false))
		})
	}
}
