package merge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func clientApplyFixture(t *testing.T, name string) []byte {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "merge", "clientapply", name))
	require.NoError(t, err)
	return data
}

// TestClientSideApplyStories replays the stories recorded from kubectl and the
// real apiserver by testdata/merge/clientapply/record.sh.
func TestClientSideApplyStories(t *testing.T) {
	config := readCase(t, filepath.Join("..", "testdata", "merge", "clientapply", "deployment.yaml"))
	before := copyOf(t, config)
	meta := metaFor(t, "apps/v1", "Deployment")
	opts := ClientApplyOptions{Meta: meta}

	// 1. Creation: the object carries the annotation, byte for byte as kubectl writes it.
	created, err := ClientSideApply(config, nil, opts)
	require.NoError(t, err)
	assert.True(t, created.Created)
	ann := created.Object["metadata"].(map[string]any)["annotations"].(map[string]any)[LastAppliedAnnotation]
	assert.Equal(t, string(clientApplyFixture(t, "last-applied.txt")), ann)

	// 2. An HPA scales to 12; re-applying the manifest (replicas 3) sets 3 again.
	scaled := copyOf(t, created.Object)
	scaled["spec"].(map[string]any)["replicas"] = int64(12)
	reapplied, err := ClientSideApply(config, scaled, opts)
	require.NoError(t, err)
	assert.Equal(t, PatchTypeStrategic, reapplied.PatchType)
	assert.Equal(t, `{"spec":{"replicas":3}}`, string(reapplied.Patch))
	want, err := decodeJSON(clientApplyFixture(t, "hpa-replicas.txt"))
	require.NoError(t, err)
	assert.Equal(t, want, reapplied.Object["spec"].(map[string]any)["replicas"])

	// 3. kubectl set env adds FOO (a two-way patch from the object before and
	// after the edit); it was never applied, so a later apply keeps it. The
	// apply patch only restates the order of what it manages.
	edited := copyOf(t, reapplied.Object)
	c0 := edited["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c0["env"] = append(c0["env"].([]any), map[string]any{"name": "FOO", "value": "bar"})
	setEnv, err := CreateStrategic(reapplied.Object, edited, meta)
	require.NoError(t, err)
	withEnv, err := ApplyStrategic(reapplied.Object, setEnv, meta, Options{})
	require.NoError(t, err)
	again, err := ClientSideApply(config, withEnv.Object, opts)
	require.NoError(t, err)
	assert.Equal(t, string(clientApplyFixture(t, "reapply-after-set-env.patch.json")), string(again.Patch), "the PATCH kubectl sends: order directives only")
	wantEnv, err := decodeJSON(clientApplyFixture(t, "set-env.json"))
	require.NoError(t, err)
	assert.Equal(t, wantEnv, again.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["env"])

	// 4. Removing a field from the manifest removes it from the object; fields
	// set by others stay.
	trimmed := copyOf(t, config)
	delete(trimmed["metadata"].(map[string]any), "labels")
	removed, err := ClientSideApply(trimmed, again.Object, opts)
	require.NoError(t, err)
	assert.NotContains(t, removed.Object["metadata"].(map[string]any), "labels")
	assert.Contains(t, string(removed.Patch), `"labels":null`)

	assert.Equal(t, before, config, "config mutated")
}

func TestClientSideApplyCustomResource(t *testing.T) {
	config := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"size": int64(2), "color": "red"}}
	created, err := ClientSideApply(config, nil, ClientApplyOptions{})
	require.NoError(t, err)
	live := copyOf(t, created.Object)
	live["spec"].(map[string]any)["owner"] = "controller"
	live["status"] = map[string]any{"ready": true}

	next := copyOf(t, config)
	next["spec"] = map[string]any{"size": int64(3)}
	res, err := ClientSideApply(next, live, ClientApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, PatchTypeMerge, res.PatchType)
	assert.Contains(t, string(res.Patch), `"spec":{"color":null,"size":3}`)
	assert.Equal(t, map[string]any{"size": int64(3), "owner": "controller"}, res.Object["spec"])

	renamed := copyOf(t, next)
	renamed["metadata"].(map[string]any)["name"] = "other"
	_, err = ClientSideApply(renamed, live, ClientApplyOptions{})
	var cpe *CreatePatchError
	require.True(t, errors.As(err, &cpe))
	var pe *PreconditionError
	assert.True(t, errors.As(err, &pe))
	assert.Contains(t, err.Error(), "creating patch with:\noriginal:\n")
	assert.Contains(t, err.Error(), "for: precondition failed for: map[")
}

func TestLastAppliedConfiguration(t *testing.T) {
	got, err := LastAppliedConfiguration(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "annotations": map[string]any{LastAppliedAnnotation: "old", "x": "<y>"}},
		"data":     map[string]any{"k": "v&w"}})
	require.NoError(t, err)
	assert.Equal(t, `{"apiVersion":"v1","data":{"k":"v\u0026w"},"kind":"ConfigMap","metadata":{"annotations":{"x":"\u003cy\u003e"},"name":"c"}}`+"\n", got)

	_, err = LastAppliedConfiguration(map[string]any{"metadata": map[string]any{"annotations": map[string]any{"n": int64(1)}}})
	assert.Error(t, err, "non-string annotation values are refused like kubectl's accessor")
}
