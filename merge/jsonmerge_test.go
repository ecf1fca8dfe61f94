package merge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// golden is what testdata/merge/<suite>/<case>.golden.yaml holds.
type golden struct {
	Result   any          `json:"result,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Error    *goldenError `json:"error,omitempty"`
}

type goldenError struct {
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Cause   string `json:"cause,omitempty"`
}

func outcomeOf(res any, warnings []string, err error) golden {
	if err == nil {
		return golden{Result: res, Warnings: warnings}
	}
	var me *Error
	if !errors.As(err, &me) {
		return golden{Error: &goldenError{Message: err.Error()}}
	}
	ge := &goldenError{Code: me.StatusCode(), Reason: me.Reason(), Message: me.Error()}
	if me.Cause != nil {
		ge.Cause = me.Cause.Error()
	}
	return golden{Error: ge}
}

func compareGolden(t *testing.T, file string, got golden) {
	t.Helper()
	b, err := jsonMarshal(got)
	require.NoError(t, err)
	v, err := codec.DecodeValue(b)
	require.NoError(t, err)
	data, err := codec.EncodeYAML(v)
	require.NoError(t, err)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(file, data, 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "missing golden file; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), string(data), file)
}

// readCase decodes a case file (YAML) with integers preserved.
func readCase(t *testing.T, file string) map[string]any {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc, err := codec.DecodeObject(data)
	require.NoError(t, err)
	return doc
}

func copyOf(t *testing.T, v map[string]any) map[string]any {
	out, err := copyObject(v)
	require.NoError(t, err)
	return out
}

func TestApplyMergePatchGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "merge", "mergepatch", "*.in.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".in.yaml"), func(t *testing.T) {
			c := readCase(t, f)
			obj, _ := c["object"].(map[string]any)
			p, _ := c["patch"].(string)
			fv, _ := c["fieldValidation"].(string)
			before := copyOf(t, obj)
			res, err := ApplyMergePatch(obj, []byte(p), Options{FieldValidation: schema.FieldValidation(fv)})
			assert.Equal(t, before, obj, "input mutated")
			var out any
			if err == nil {
				out = res.Object
			}
			compareGolden(t, strings.TrimSuffix(f, ".in.yaml")+".golden.yaml", outcomeOf(out, res.Warnings, err))
		})
	}
}

func TestApplyMergePatchStatus(t *testing.T) {
	obj := map[string]any{"a": "b"}
	tests := []struct {
		patch  string
		code   int
		reason status.Reason
	}{
		{`[1]`, 400, status.ReasonBadRequest},
		{`null`, 400, status.ReasonBadRequest},
		{`{`, 400, status.ReasonBadRequest},
		{`{"a":"` + strings.Repeat("x", 3<<20) + `"}`, 413, status.ReasonRequestEntityTooLarge},
		{strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001), 400, status.ReasonBadRequest},
	}
	for _, tt := range tests {
		_, err := ApplyMergePatch(obj, []byte(tt.patch), Options{})
		var st *status.Error
		require.True(t, errors.As(err, &st), "patch %.40s", tt.patch)
		assert.Equal(t, tt.code, st.StatusCode(), "patch %.40s", tt.patch)
		assert.Equal(t, tt.reason, st.Reason, "patch %.40s", tt.patch)
	}
}

func TestCreateMergePatch(t *testing.T) {
	original := map[string]any{"a": int64(1), "b": map[string]any{"c": "x", "d": []any{int64(1)}}, "gone": true}
	modified := map[string]any{"a": int64(2), "b": map[string]any{"c": "x", "d": []any{int64(1), int64(2)}}, "new": nil}
	p, err := CreateMergePatch(original, modified)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":2,"b":{"d":[1,2]},"gone":null,"new":null}`, string(p))
	res, err := ApplyMergePatch(original, p, Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": int64(2), "b": map[string]any{"c": "x", "d": []any{int64(1), int64(2)}}}, res.Object,
		"a null in modified cannot survive a merge patch")
}

func TestHasConflicts(t *testing.T) {
	assert.True(t, hasConflicts(map[string]any{"a": "x"}, map[string]any{"a": nil}))
	assert.False(t, hasConflicts(map[string]any{"a": map[string]any{"b": int64(1)}}, map[string]any{"a": map[string]any{"c": nil}}))
	assert.True(t, hasConflicts([]any{int64(1)}, []any{}))
	assert.True(t, hasConflicts(map[string]any{}, "x"))
}

func TestApplyMergePatchNilObject(t *testing.T) {
	res, err := ApplyMergePatch(nil, []byte(`{"a":{"b":null,"c":1}}`), Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": map[string]any{"c": int64(1)}}, res.Object)
}
