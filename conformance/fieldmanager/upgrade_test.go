package fieldmanager

import (
	"encoding/json"
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"

	wmf "github.com/writepath/writepath/managedfields"
)

// TestUpgradeDifferential compares managedfields.Upgrade with client-go's
// csaupgrade.UpgradeManagedFields on random managedFields.
func TestUpgradeDifferential(t *testing.T) {
	n := 1000
	if os.Getenv("WRITEPATH_LONG") != "" {
		n = 100000
	}
	names := []string{"kubectl-client-side-apply", "kubectl", "other", "before-first-apply"}
	leaves := []string{`"f:a":{}`, `"f:b":{}`, `"f:c":{".":{},"f:d":{}}`, `"f:e":{}`}
	for i := 0; i < n; i++ {
		r := rand.New(rand.NewSource(int64(i)))
		var entries []wmf.Entry
		for j := r.Intn(5); j > 0; j-- {
			e := wmf.Entry{Manager: pick(r, names...), Operation: pick(r, wmf.OperationApply, wmf.OperationUpdate),
				APIVersion: pick(r, "v1", "v2"), FieldsType: "FieldsV1", Subresource: pick(r, "", "", "status")}
			body := ""
			for _, l := range leaves {
				if r.Intn(2) == 0 {
					if body != "" {
						body += ","
					}
					body += l
				}
			}
			e.FieldsV1 = []byte("{" + body + "}")
			entries = append(entries, e)
		}
		csa, ssa, sub := pick(r, names...), pick(r, "kubectl", "ssa"), pick(r, "", "status")

		var encoded []map[string]any
		for _, e := range entries {
			m, err := e.ToObject()
			require.NoError(t, err)
			encoded = append(encoded, m)
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}
		var list []metav1.ManagedFieldsEntry
		raw, _ := json.Marshal(encoded)
		require.NoError(t, json.Unmarshal(raw, &list))
		if list != nil {
			u.SetManagedFields(list)
		}
		var opts []csaupgrade.Option
		if sub != "" {
			opts = append(opts, csaupgrade.Subresource(sub))
		}
		require.NoError(t, csaupgrade.UpgradeManagedFields(u, sets.New(csa), ssa, opts...))
		want, _ := json.Marshal(u.GetManagedFields())

		got, err := wmf.Upgrade(entries, []string{csa}, ssa, sub)
		require.NoError(t, err)
		gotJSON := wmf.MarshalEntries(got)
		if len(got) == 0 {
			gotJSON = []byte("null")
		}
		require.JSONEq(t, string(want), string(gotJSON), "seed %d csa=%s ssa=%s sub=%q entries=%s", i, csa, ssa, sub, wmf.MarshalEntries(entries))
	}
	t.Logf("%d random managedFields upgraded, 0 disagreements", n)
}
