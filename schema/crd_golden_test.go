package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
)

// TestProcessGolden runs each testdata/schema/process/<case>.yaml (crd, object, optional old and
// fieldValidation) through FromCRD and Version.Process and compares the outcome with
// <case>.golden. UPDATE_GOLDEN=1 rewrites the golden files.
func TestProcessGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/schema/process/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			c, err := codec.DecodeObject(data)
			require.NoError(t, err)
			got := runCase(t, c)
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "case %s", f)
		})
	}
}

func runCase(t *testing.T, c map[string]any) string {
	var b strings.Builder
	crdObj, _ := c["crd"].(map[string]any)
	crd, err := schema.FromCRD(crdObj)
	if err != nil {
		b.WriteString("crd error: " + err.Error() + "\n")
		return b.String()
	}
	obj, _ := c["object"].(map[string]any)
	old, _ := c["old"].(map[string]any)
	fv, _ := c["fieldValidation"].(string)
	av, _ := obj["apiVersion"].(string)
	v := crd.Version(av[strings.LastIndex(av, "/")+1:])
	require.NotNil(t, v)
	res, err := v.Process(schema.Request{Object: obj, Old: old, FieldValidation: schema.FieldValidation(fv)})
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
		return b.String()
	}
	out, err := codec.EncodeJSONIndent(res.Object)
	require.NoError(t, err)
	b.WriteString("object: " + string(out) + "\n")
	b.WriteString("pruned:\n")
	for _, p := range res.Pruned {
		b.WriteString("- " + p + "\n")
	}
	b.WriteString("warnings:\n")
	for _, w := range res.Warnings {
		b.WriteString("- " + w + "\n")
	}
	b.WriteString("errors:\n")
	for _, e := range res.Errors {
		b.WriteString("- " + e.Error() + "\n")
	}
	if len(res.Errors) > 0 {
		b.WriteString("status: " + v.Invalid(res.Object, res.Errors).Error() + "\n")
	}
	return b.String()
}
