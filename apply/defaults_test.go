package apply_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// TestUpdateOwnsDefaults replays the managedFields of the dry-run creates in testdata/defaults
// (kubectl create: an Update by kubectl-create). The apiserver decodes and defaults the body
// before the field manager sees it, so the creator owns every defaulted field; apply.Update
// records exactly that when given the body through defaults.Builtin, as its contract asks
// (the Object is the new object as the write produced it).
func TestUpdateOwnsDefaults(t *testing.T) {
	files, err := filepath.Glob("../testdata/defaults/in/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			body, want := recordedCreate(t, file, name)
			gvk := gvkOfObject(t, body)
			// A create that sets nothing but metadata the field manager never tracks (the
			// ConfigMap) records no entry.
			now, err := time.Parse(time.RFC3339, want["metadata"].(map[string]any)["creationTimestamp"].(string))
			require.NoError(t, err)

			defaulted, err := defaults.Builtin(gvk, body, defaults.Options{Now: now})
			require.NoError(t, err)
			// The apiserver's create compares with the kind's zero object (scope.Creater.New), not
			// with nothing: fields the zero object has (spec, status) get no "." entry.
			k, err := schema.Builtin(gvk)
			require.NoError(t, err)
			zero, err := defaults.Zero(k)
			require.NoError(t, err)
			res, err := apply.Update(apply.UpdateRequest{Live: zero, Object: defaulted, Kind: gvk, Manager: "kubectl-create",
				OptionsKind: "CreateOptions", Now: now, ResetFields: apply.ResetFields(gvk, "")})
			require.NoError(t, err)
			require.Nil(t, res.Fallback)
			assert.Equal(t, js(want["metadata"].(map[string]any)["managedFields"]), js(res.Object["metadata"].(map[string]any)["managedFields"]))
			// A create without a live object starts from that zero object (CreateFrom nil).
			fromNil, err := apply.Update(apply.UpdateRequest{Object: defaulted, Kind: gvk, Manager: "kubectl-create",
				OptionsKind: "CreateOptions", Now: now, ResetFields: apply.ResetFields(gvk, "")})
			require.NoError(t, err)
			assert.Equal(t, js(res.Object), js(fromNil.Object))
		})
	}
}

// TestApplyDefaultsNotOwned: Apply defaults a built-in object after the merge, and the defaulted
// fields belong to nobody; the managedFields are those of the same apply without defaulting.
func TestApplyDefaultsNotOwned(t *testing.T) {
	files, err := filepath.Glob("../testdata/defaults/in/*.yaml")
	require.NoError(t, err)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			config, _ := recordedCreate(t, file, name)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			req := apply.Request{Config: config, Manager: "alice", Now: now}
			defaulted, err := apply.Apply(req)
			require.NoError(t, err)
			req.Default = apply.NoDefault
			plain, err := apply.Apply(req)
			require.NoError(t, err)
			mf := func(o map[string]any) any { return o["metadata"].(map[string]any)["managedFields"] }
			assert.Equal(t, js(mf(plain.Object)), js(mf(defaulted.Object)))
			// Every field the recorded create has from defaulting is in the applied object.
			gvk := gvkOfObject(t, config)
			direct, err := defaults.Builtin(gvk, config, defaults.Options{Now: now})
			require.NoError(t, err)
			got := defaulted.Object
			delete(got["metadata"].(map[string]any), "managedFields")
			assert.Equal(t, js(direct), js(got))
		})
	}
}

func recordedCreate(t *testing.T, file, name string) (map[string]any, map[string]any) {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	body, err := codec.DecodeObject(data)
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join("../testdata/defaults/out", name+".json"))
	require.NoError(t, err)
	var want map[string]any
	require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &want))
	return body, want
}

func gvkOfObject(t *testing.T, obj map[string]any) schema.GroupVersionKind {
	gvk, err := schema.FromAPIVersionAndKind(obj["apiVersion"].(string), obj["kind"].(string))
	require.NoError(t, err)
	return gvk
}

// ExampleNoDefault shows the built-in defaulting Apply does after the merge, and how to leave
// it out.
func ExampleNoDefault() {
	config := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"ports": []any{map[string]any{"port": int64(80)}}}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res, _ := apply.Apply(apply.Request{Config: config, Manager: "alice", Now: now})
	spec, _ := json.Marshal(res.Object["spec"])
	fmt.Println(string(spec))
	res, _ = apply.Apply(apply.Request{Config: config, Manager: "alice", Now: now, Default: apply.NoDefault})
	spec, _ = json.Marshal(res.Object["spec"])
	fmt.Println(string(spec))
	// Output:
	// {"internalTrafficPolicy":"Cluster","ports":[{"port":80,"protocol":"TCP","targetPort":80}],"sessionAffinity":"None","type":"ClusterIP"}
	// {"ports":[{"port":80}]}
}
