package replaydiff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstDiff(t *testing.T) {
	want := map[string]any{"a": int64(1), "b": []any{"x", "y"}, "c": map[string]any{"d": true}}
	assert.Equal(t, "", FirstDiff("", want, map[string]any{"a": int64(1), "b": []any{"x", "y"}, "c": map[string]any{"d": true}}, 100))
	assert.Equal(t, `.b[1]: "z", want "y"`, FirstDiff("", want, map[string]any{"a": int64(1), "b": []any{"x", "z"}, "c": map[string]any{"d": true}}, 100))
	assert.Equal(t, `.c.d: missing, want true`, FirstDiff("", want, map[string]any{"a": int64(1), "b": []any{"x", "y"}, "c": map[string]any{}}, 100))
	assert.Equal(t, `.a0: unexpected 2`, FirstDiff("", want, map[string]any{"a": int64(1), "a0": int64(2), "b": []any{"x", "y"}, "c": map[string]any{"d": true}}, 100))
	assert.Equal(t, `.: "s", want {"a":1,...`, FirstDiff("", map[string]any{"a": int64(1), "b": "long"}, "s", 10))
	assert.Equal(t, `.b: ["x"], want ["x","y"]`, FirstDiff("", want, map[string]any{"a": int64(1), "b": []any{"x"}}, 100), "lists of other lengths differ as a whole")
	t.Setenv("WRITEPATH_REPLAY_FULL", "1")
	assert.Equal(t, strings.Repeat("x", 50), strings.Trim(Short(strings.Repeat("x", 50), 10), `"`))
}

func TestManagedFieldsByKey(t *testing.T) {
	entry := func(manager, op, at string, fields string) map[string]any {
		return map[string]any{"manager": manager, "operation": op, "time": at, "fieldsV1": map[string]any{fields: map[string]any{}}}
	}
	obj := func(entries ...map[string]any) map[string]any {
		l := make([]any, len(entries))
		for i, e := range entries {
			l[i] = e
		}
		return map[string]any{"items": []any{map[string]any{"metadata": map[string]any{"managedFields": l}}}}
	}
	// Recorded: the recorder at :46, a controller a second later; replayed: both at :46, so
	// kube-apiserver's comparator puts the controller first.
	want := obj(entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"), entry("kube-apiserver", "Update", "2026-12-03T13:21:47Z", "f:status"))
	got := obj(entry("kube-apiserver", "Update", "2026-12-03T13:21:46Z", "f:status"), entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"))
	before := FirstDiff("", want, got, 200)
	require.NotEqual(t, "", before)
	w, g := ManagedFieldsByKey(want, got)
	assert.Equal(t, "", FirstDiff("", normTimes(w), normTimes(g), 200), "the order that came from the recorded times is not compared")
	assert.Equal(t, before, FirstDiff("", want, got, 200), "the inputs are not modified")

	// Content still differs: the controller's entry owns other fields.
	other := obj(entry("kube-apiserver", "Update", "2026-12-03T13:21:46Z", "f:metadata"), entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"))
	w, g = ManagedFieldsByKey(want, other)
	assert.NotEqual(t, "", FirstDiff("", normTimes(w), normTimes(g), 200), "a difference in content is a difference")
	missing := obj(entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"))
	w, g = ManagedFieldsByKey(want, missing)
	assert.NotEqual(t, "", FirstDiff("", normTimes(w), normTimes(g), 200), "a missing entry is a difference")

	// Recorded in one second: the order is kube-apiserver's by manager, and compared.
	same := obj(entry("kube-apiserver", "Update", "2026-12-03T13:21:46Z", "f:status"), entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"))
	reversed := obj(entry("recorder", "Update", "2026-12-03T13:21:46Z", "f:spec"), entry("kube-apiserver", "Update", "2026-12-03T13:21:46Z", "f:status"))
	w, g = ManagedFieldsByKey(same, reversed)
	assert.NotEqual(t, "", FirstDiff("", normTimes(w), normTimes(g), 200), "an order not drawn from times is compared")

	// An entry without a time (the /scale entry) comes first on both servers, and stays first.
	scale := entry("recorder", "Update", "", "f:spec")
	delete(scale, "time")
	scale["subresource"] = "scale"
	recorded := obj(scale, entry("recorder", "Update", "2026-12-03T13:24:19Z", "f:metadata"), entry("kube-controller-manager", "Update", "2026-12-03T13:24:20Z", "f:status"))
	replayed := obj(scale, entry("kube-controller-manager", "Update", "2026-12-03T13:24:19Z", "f:status"), entry("recorder", "Update", "2026-12-03T13:24:19Z", "f:metadata"))
	w, g = ManagedFieldsByKey(recorded, replayed)
	assert.Equal(t, "", FirstDiff("", normTimes(w), normTimes(g), 200))
	scaleLast := obj(entry("kube-controller-manager", "Update", "2026-12-03T13:24:19Z", "f:status"), entry("recorder", "Update", "2026-12-03T13:24:19Z", "f:metadata"), scale)
	w, g = ManagedFieldsByKey(recorded, scaleLast)
	assert.NotEqual(t, "", FirstDiff("", normTimes(w), normTimes(g), 200), "the untimed entry's place is no time's")
}

// normTimes stands for the replay's time normalisation.
func normTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normTimes(e)
			if k == "time" {
				out[k] = "<time>"
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normTimes(e)
		}
		return out
	}
	return v
}
