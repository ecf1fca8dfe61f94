package apply_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/managedfields"
	"github.com/writepath/writepath/status"
)

// TestThousandManagers: a live object with 1,000 Update managers (each owning one key) and one
// more update: the apiserver folds the oldest into ancient-changes until 10 Update managers
// remain (ancient-changes counts as one).
func TestThousandManagers(t *testing.T) {
	data := map[string]any{}
	var entries []any
	for i := 0; i < 1000; i++ {
		k := fmt.Sprintf("k%04d", i)
		data[k] = "v"
		entries = append(entries, map[string]any{"manager": fmt.Sprintf("m%04d", i), "operation": "Update", "apiVersion": "v1",
			"time": time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339), "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:data": map[string]any{"f:" + k: map[string]any{}}}})
	}
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "uid": "u", "managedFields": entries}, "data": data}
	newObj := deepCopy(live)
	newObj["data"].(map[string]any)["extra"] = "x"
	res, err := apply.Update(apply.UpdateRequest{Live: live, Object: newObj, Manager: "last", Now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	require.Nil(t, res.Fallback)
	got, _, err := managedfields.FromObject(res.Object)
	require.NoError(t, err)
	var names []string
	for _, e := range got {
		names = append(names, e.Manager)
	}
	assert.Equal(t, []string{"ancient-changes", "m0992", "m0993", "m0994", "m0995", "m0996", "m0997", "m0998", "m0999", "last"}, names)
	owners, err := managedfields.OwnersOf(res.Object, ".data.k0000")
	require.NoError(t, err)
	assert.Equal(t, "ancient-changes", owners[0].Owners[0].Manager)
}

// TestLargeList: an apply of a 10,000-item keyed list (2,000 under the race detector, which
// makes SMD's merge ten times slower), then a conflicting one.
func TestLargeList(t *testing.T) {
	n := 10000
	if raceEnabled {
		n = 2000
	}
	var containers []any
	for i := 0; i < n; i++ {
		containers = append(containers, map[string]any{"name": fmt.Sprintf("c%05d", i), "image": "x"})
	}
	config := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": map[string]any{"containers": containers}}
	res, err := apply.Apply(apply.Request{Config: config, Manager: "a", Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	other := deepCopy(config)
	other["spec"].(map[string]any)["containers"].([]any)[n-1].(map[string]any)["image"] = "y"
	_, err = apply.Apply(apply.Request{Live: res.Object, Config: other, Manager: "b", Now: time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)})
	assert.EqualError(t, err, fmt.Sprintf(`Apply failed with 1 conflict: conflict with "a": .spec.containers[name="c%05d"].image`, n-1))
	assert.Equal(t, 409, status.CodeOf(err))
}
