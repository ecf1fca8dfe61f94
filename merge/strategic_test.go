package merge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// metaFor returns the built-in patch metadata of apiVersion/kind, or nil when
// the kind is not built in (a custom resource).
func metaFor(t *testing.T, apiVersion, kind string) Meta {
	gvk, err := schema.FromAPIVersionAndKind(apiVersion, kind)
	require.NoError(t, err)
	k, err := schema.Builtin(gvk)
	if err != nil {
		return nil
	}
	m, err := KindMeta(k)
	require.NoError(t, err)
	return m
}

func TestApplyStrategicGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "merge", "strategic", "*.in.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".in.yaml"), func(t *testing.T) {
			c := readCase(t, f)
			apiVersion, _ := c["apiVersion"].(string)
			kind, _ := c["kind"].(string)
			obj, _ := c["object"].(map[string]any)
			p, _ := c["patch"].(string)
			fv, _ := c["fieldValidation"].(string)
			before := copyOf(t, obj)
			res, err := ApplyStrategic(obj, []byte(p), metaFor(t, apiVersion, kind), Options{FieldValidation: schema.FieldValidation(fv)})
			assert.Equal(t, before, obj, "input mutated")
			var out any
			if err == nil {
				out = res.Object
			}
			compareGolden(t, strings.TrimSuffix(f, ".in.yaml")+".golden.yaml", outcomeOf(out, res.Warnings, err))
		})
	}
}

func TestApplyStrategicStatus(t *testing.T) {
	pod := metaFor(t, "v1", "Pod")
	obj := map[string]any{"metadata": map[string]any{"name": "x"}}
	withList := func(l ...any) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "x"}, "spec": map[string]any{"containers": append([]any{}, l...)}}
	}
	tests := []struct {
		name  string
		patch string
		meta  Meta
		obj   map[string]any
		code  int
		is    error
	}{
		{"custom resource", `{"spec":{}}`, nil, obj, 415, ErrUnsupportedStrategicMergePatchFormat},
		{"retainKeys mismatch", `{"metadata":{"$retainKeys":["name"],"labels":{"a":"b"}}}`, pod, obj, 400, ErrBadPatchFormatForRetainKeys},
		{"list of lists", `{"spec":{"containers":[[1]]}}`, pod, withList(), 422, ErrNoListOfLists},
		{"bad primitive list key", `{"metadata":{"$deleteFromPrimitiveListX":[]}}`, pod, obj, 400, ErrBadPatchFormatForPrimitiveList},
		{"setElementOrder mismatch", `{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b"}]}}`, pod,
			withList(map[string]any{"name": "a"}, map[string]any{"name": "b"}), 500, nil},
		{"invalid JSON", `{`, pod, obj, 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyStrategic(tt.obj, []byte(tt.patch), tt.meta, Options{})
			var st *status.Error
			require.True(t, errors.As(err, &st), "patch %s: %v", tt.patch, err)
			assert.Equal(t, tt.code, st.StatusCode(), "patch %s: %v", tt.patch, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

func TestCreateStrategicRoundTrip(t *testing.T) {
	pod := metaFor(t, "v1", "Pod")
	original := map[string]any{
		"metadata": map[string]any{"name": "web", "finalizers": []any{"a", "b"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1"},
			map[string]any{"name": "side", "image": "envoy"},
		}},
	}
	modified := map[string]any{
		"metadata": map[string]any{"name": "web", "finalizers": []any{"b", "c"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "side", "image": "envoy:2"},
		}},
	}
	p, err := CreateStrategic(original, modified, pod)
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"$setElementOrder/finalizers":["b","c"],"finalizers":["c"]},`+
		`"spec":{"$setElementOrder/containers":[{"name":"side"}],"containers":[{"image":"envoy:2","name":"side"},{"$patch":"delete","name":"app"}]}}`, string(p))
	res, err := ApplyStrategic(original, p, pod, Options{})
	require.NoError(t, err)
	assert.Equal(t, modified, res.Object)
}

func TestCreateThreeWayStrategicConflict(t *testing.T) {
	deploy := metaFor(t, "apps/v1", "Deployment")
	original := map[string]any{"spec": map[string]any{"replicas": int64(3)}}
	modified := map[string]any{"spec": map[string]any{"replicas": int64(5)}}
	current := map[string]any{"spec": map[string]any{"replicas": int64(12)}}
	_, err := CreateThreeWayStrategic(original, modified, current, deploy, false)
	var ce *ConflictError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "patch:\nspec:\n  replicas: 5\n\nconflicts with changes made from original to current:\nspec:\n  replicas: 12\n\n", ce.Error())
	p, err := CreateThreeWayStrategic(original, modified, current, deploy, true)
	require.NoError(t, err)
	assert.Equal(t, `{"spec":{"replicas":5}}`, string(p))
}

func TestRealClusterFixtures(t *testing.T) {
	pod := metaFor(t, "v1", "Pod")
	obj := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "env": []any{
		map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "A", "value": "2"}, map[string]any{"name": "B", "value": "3"},
	}}}}}
	for patchJSON, fixture := range map[string]string{
		`{"spec":{"containers":[{"name":"app","env":[{"name":"A","value":"9"}]}]}}`:       "env-duplicate-names.env.json",
		`{"spec":{"containers":[{"name":"app","env":[{"name":"A","$patch":"delete"}]}]}}`: "env-duplicate-names-delete.env.json",
	} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "merge", "realcluster", fixture))
		require.NoError(t, err)
		want, err := decodeJSON(data)
		require.NoError(t, err)
		res, err := ApplyStrategic(obj, []byte(patchJSON), pod, Options{})
		require.NoError(t, err)
		got := res.Object["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["env"]
		assert.Equal(t, want, got, fixture)
	}
}

func TestDeepDocuments(t *testing.T) {
	var v any = "leaf"
	for i := 0; i < 10000; i++ {
		v = map[string]any{"a": v}
	}
	obj := map[string]any{"metadata": map[string]any{"name": "x"}, "data": v}
	res, err := ApplyMergePatch(obj, []byte(`{"data":{"a":{"a":{"b":1}}}}`), Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.Object["data"].(map[string]any)["a"].(map[string]any)["a"].(map[string]any)["b"])
	// Strategic merge patch walks patch metadata: ConfigMap data is a map of
	// strings, so nesting below it is refused, not a crash.
	_, err = ApplyStrategic(obj, []byte(`{"data":{"a":{"a":{"b":1}}}}`), metaFor(t, "v1", "ConfigMap"), Options{})
	require.Error(t, err)
	_, err = CreateThreeWayStrategic(obj, obj, obj, metaFor(t, "v1", "ConfigMap"), false)
	require.NoError(t, err)
}
