package conversion_test

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

// TestHPAConversionGolden replays testdata/conversion/hpa-conversion: each
// case of cases.yaml converted by Builtin (into its base when it has
// one) must give the object, the error, or (where kube-apiserver panics) an
// error, as expected.json records k8s.io/kubernetes v1.37.2's answers
// (written by conformance/defaults/hpaconversion's TestHPAConversionGolden).
func TestHPAConversionGolden(t *testing.T) {
	dir := "../testdata/conversion/hpa-conversion"
	b, err := os.ReadFile(filepath.Join(dir, "cases.yaml"))
	require.NoError(t, err)
	cases, err := codec.DecodeValue(b)
	require.NoError(t, err)
	b, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	expected, err := codec.DecodeObject(b)
	require.NoError(t, err)
	gvk := map[any]schema.GroupVersionKind{
		"v1": {Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"},
		"v2": {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}}
	conv := conversion.Builtin{}
	require.Len(t, cases, len(expected))
	for _, c := range cases.([]any) {
		m := c.(map[string]any)
		name := m["name"].(string)
		t.Run(name, func(t *testing.T) {
			from, to := gvk[m["from"]], gvk[m["to"]]
			obj := m["object"].(map[string]any)
			obj["apiVersion"], obj["kind"] = "autoscaling/"+from.Version, "HorizontalPodAutoscaler"
			base, _ := m["base"].(map[string]any)
			if base != nil {
				base["apiVersion"], base["kind"] = "autoscaling/v2", "HorizontalPodAutoscaler"
			}
			got, err := conv.ConvertOnto(obj, base, from, to)
			want := expected[name].(map[string]any)
			switch {
			case want["panics"] == true:
				assert.ErrorContains(t, err, "panics")
			case want["error"] != nil:
				assert.EqualError(t, err, want["error"].(string))
			default:
				require.NoError(t, err)
				assert.Equal(t, want["object"], got)
			}
		})
	}
}
