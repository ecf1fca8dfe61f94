package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
)

// containers returns every map and list reachable from v (v included), each
// with its path.
func containers(v any, path string, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return
		}
		out[path] = t
		for k, e := range t {
			containers(e, path+"/"+k, out)
		}
	case []any:
		if t == nil {
			return
		}
		out[path] = t
		for i, e := range t {
			containers(e, fmt.Sprintf("%s/%d", path, i), out)
		}
	}
}

// identity is a container's storage: a map's pointer, a list's backing array
// (or nil for a list with no capacity, which cannot be written through).
func identity(c any) uintptr {
	switch t := c.(type) {
	case map[string]any:
		return reflect.ValueOf(t).Pointer()
	case []any:
		if cap(t) == 0 {
			return 0
		}
		return reflect.ValueOf(t[:cap(t)]).Pointer()
	}
	return 0
}

// scribble overwrites every container of v: maps get a new key and every
// entry replaced, lists every element replaced.
func scribble(v any) {
	all := map[string]any{}
	containers(v, "", all)
	for _, c := range all {
		switch t := c.(type) {
		case map[string]any:
			for k := range t {
				t[k] = "scribbled"
			}
			t["scribbled"] = true
		case []any:
			for i := range t {
				t[i] = "scribbled"
			}
		}
	}
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := codec.EncodeJSON(v)
	require.NoError(t, err)
	return string(b)
}

// checkNoAliasing runs apply twice on fresh copies of obj and patch: once to
// check that no container of the result shares storage with the object and
// that writing into every container of the result leaves both arguments
// unchanged, once to check that writing into every container of the object
// and over the patch bytes leaves the result unchanged.
func checkNoAliasing(t *testing.T, obj map[string]any, patch []byte, apply func(map[string]any, []byte) (map[string]any, error)) {
	t.Helper()
	o := copyOf(t, obj)
	p := append([]byte(nil), patch...)
	res, err := apply(o, p)
	if err != nil {
		return
	}
	in := map[string]any{}
	containers(o, "", in)
	ids := map[uintptr]string{}
	for path, c := range in {
		if id := identity(c); id != 0 {
			ids[id] = path
		}
	}
	out := map[string]any{}
	containers(res, "", out)
	for path, c := range out {
		if src, shared := ids[identity(c)]; shared && identity(c) != 0 {
			t.Errorf("result %q shares storage with object %q", path, src)
		}
	}
	before := encode(t, o)
	scribble(res)
	assert.Equal(t, before, encode(t, o), "writing into the result changed the object")
	assert.Equal(t, string(patch), string(p), "writing into the result changed the patch")

	o = copyOf(t, obj)
	p = append([]byte(nil), patch...)
	res, err = apply(o, p)
	require.NoError(t, err)
	want := encode(t, res)
	scribble(o)
	for i := range p {
		p[i] = '#'
	}
	assert.Equal(t, want, encode(t, res), "writing into the object or the patch changed the result")
}

// TestNoAliasing checks "results never keep references into inputs" on the
// golden cases and the benchmark's Pod, for the strategic merge patch (fast
// patch decoding, merge on a copy) and the JSON merge patch.
func TestNoAliasing(t *testing.T) {
	strategic := func(meta Meta) func(map[string]any, []byte) (map[string]any, error) {
		return func(o map[string]any, p []byte) (map[string]any, error) {
			res, err := ApplyStrategic(o, p, meta, Options{})
			return res.Object, err
		}
	}
	jsonMerge := func(o map[string]any, p []byte) (map[string]any, error) {
		res, err := ApplyMergePatch(o, p, Options{})
		return res.Object, err
	}
	ran := 0
	for _, dir := range []string{"strategic", "mergepatch"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "merge", dir, "*.in.yaml"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			t.Run(dir+"/"+strings.TrimSuffix(filepath.Base(f), ".in.yaml"), func(t *testing.T) {
				c := readCase(t, f)
				obj, _ := c["object"].(map[string]any)
				p, _ := c["patch"].(string)
				apply := jsonMerge
				if dir == "strategic" {
					apiVersion, _ := c["apiVersion"].(string)
					kind, _ := c["kind"].(string)
					meta := metaFor(t, apiVersion, kind)
					if meta == nil {
						return
					}
					apply = strategic(meta)
				}
				checkNoAliasing(t, obj, []byte(p), apply)
				ran++
			})
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "patch", "bench", "pod.yaml"))
	require.NoError(t, err)
	pod, err := codec.DecodeObject(data)
	require.NoError(t, err)
	const podPatch = `{"metadata":{"labels":{"version":"2.3.2"},"$deleteFromPrimitiveList/finalizers":["example.com/cleanup"]},` +
		`"spec":{"containers":[{"name":"app","image":"shop/web:2.3.2","env":[{"name":"FEATURE_X","value":"on"},{"name":"DB_PORT","$patch":"delete"}]},` +
		`{"name":"proxy","resources":{"limits":{"memory":"128Mi"}}}],"$setElementOrder/containers":[{"name":"app"},{"name":"proxy"}]}}`
	_, fast := decodeObjectFast([]byte(podPatch))
	require.True(t, fast, "the benchmark's patch takes the fast decoder")
	checkNoAliasing(t, pod, []byte(podPatch), strategic(metaFor(t, "v1", "Pod")))
	big := `{"metadata":{"annotations":{"big":"` + strings.Repeat("x", sharedTextMax) + `"}},"spec":{"containers":[{"name":"app","image":"y"}]}}`
	checkNoAliasing(t, pod, []byte(big), strategic(metaFor(t, "v1", "Pod")))
	checkNoAliasing(t, pod, []byte(`{"spec":{"containers":[{"name":"app","image":"x"}]}}`), jsonMerge)
	assert.Greater(t, ran, 10)
}
