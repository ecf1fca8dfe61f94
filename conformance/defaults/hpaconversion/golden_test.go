package hpaconversion

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

const goldenDir = "../../../testdata/conversion/hpa-conversion"

// goldenCase is one entry of testdata/conversion/hpa-conversion/cases.yaml.
type goldenCase struct {
	name     string
	from, to schema.GroupVersionKind
	obj      map[string]any
	base     map[string]any
}

func readGoldenCases(t *testing.T) []goldenCase {
	b, err := os.ReadFile(filepath.Join(goldenDir, "cases.yaml"))
	require.NoError(t, err)
	v, err := codec.DecodeValue(b)
	require.NoError(t, err)
	gvk := map[any]schema.GroupVersionKind{"v1": gvk1, "v2": gvk2}
	var out []goldenCase
	for _, c := range v.([]any) {
		m := c.(map[string]any)
		gc := goldenCase{name: m["name"].(string), from: gvk[m["from"]], to: gvk[m["to"]]}
		gc.obj = m["object"].(map[string]any)
		gc.obj["apiVersion"], gc.obj["kind"] = "autoscaling/"+gc.from.Version, "HorizontalPodAutoscaler"
		if b, ok := m["base"].(map[string]any); ok {
			b["apiVersion"], b["kind"] = "autoscaling/v2", "HorizontalPodAutoscaler"
			gc.base = b
		}
		out = append(out, gc)
	}
	return out
}

// TestHPAConversionGolden writes (UPDATE_GOLDEN=1) or checks expected.json:
// the reference's result, error or panic for each case of cases.yaml, which
// conversion's TestHPAConversionGolden replays; writepath must agree.
func TestHPAConversionGolden(t *testing.T) {
	conv := conversion.Builtin{}
	expected := map[string]any{}
	for _, c := range readGoldenCases(t) {
		var baseJSON []byte
		if c.base != nil {
			baseJSON = mustJSON(c.base)
		}
		want, err, panicked := reference(mustJSON(c.obj), baseJSON, c.from, c.to)
		e := map[string]any{}
		switch {
		case panicked:
			e["panics"] = true
		case err != nil:
			e["error"] = err.Error()
		default:
			e["object"] = want
		}
		expected[c.name] = e
		got, gotErr := conv.ConvertOnto(c.obj, c.base, c.from, c.to)
		switch {
		case panicked:
			assert.Error(t, gotErr, c.name)
		case err != nil:
			assert.EqualError(t, gotErr, err.Error(), c.name)
		default:
			require.NoError(t, gotErr, c.name)
			assert.Equal(t, want, got, c.name)
		}
	}
	b, err := codec.EncodeJSONIndent(expected)
	require.NoError(t, err)
	path := filepath.Join(goldenDir, "expected.json")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(old), "expected.json is the reference's answer (UPDATE_GOLDEN=1 rewrites it)")
}
