package patch

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

// golden is what testdata/patch/jsonpatch/<case>.golden.yaml holds.
type golden struct {
	Result   map[string]any `json:"result,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	Error    *goldenError   `json:"error,omitempty"`
}

type goldenError struct {
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Cause   string `json:"cause,omitempty"`
}

func outcomeOf(res Result, err error) golden {
	if err == nil {
		return golden{Result: res.Object, Warnings: res.Warnings}
	}
	var pe *Error
	if !errors.As(err, &pe) {
		return golden{Error: &goldenError{Message: "not a *patch.Error: " + err.Error()}}
	}
	ge := &goldenError{Code: pe.StatusCode(), Reason: pe.Reason(), Message: pe.Error()}
	if pe.Cause != nil {
		ge.Cause = pe.Cause.Error()
	}
	return golden{Error: ge}
}

// compareGolden checks got against the golden file, rewriting it when
// UPDATE_GOLDEN is set.
func compareGolden(t *testing.T, file string, got golden) {
	t.Helper()
	data, err := codec.EncodeYAML(toValue(t, got))
	require.NoError(t, err)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(file, data, 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "missing golden file; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), string(data), file)
}

func toValue(t *testing.T, v any) any {
	data, err := codec.EncodeJSON(v)
	if err != nil {
		// EncodeJSON only takes object-model values: go through encoding/json.
		data, err = jsonMarshal(v)
		require.NoError(t, err)
	}
	out, err := codec.DecodeValue(data)
	require.NoError(t, err)
	return out
}

type jsonPatchCase struct {
	Object          map[string]any `json:"object"`
	Patch           string         `json:"patch"`
	FieldValidation string         `json:"fieldValidation"`
}

func TestApplyJSONPatchGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "patch", "jsonpatch", "*.in.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".in.yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			doc, err := codec.DecodeObject(data)
			require.NoError(t, err)
			c := jsonPatchCase{}
			c.Object, _ = doc["object"].(map[string]any)
			c.Patch, _ = doc["patch"].(string)
			c.FieldValidation, _ = doc["fieldValidation"].(string)
			before := deepCopy(t, c.Object)
			res, err := ApplyJSONPatch(c.Object, []byte(c.Patch), Options{FieldValidation: schema.FieldValidation(c.FieldValidation)})
			assert.Equal(t, before, c.Object, "input mutated")
			compareGolden(t, strings.TrimSuffix(f, ".in.yaml")+".golden.yaml", outcomeOf(res, err))
		})
	}
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	data, err := codec.EncodeJSON(m)
	require.NoError(t, err)
	out, err := codec.DecodeObject(data)
	require.NoError(t, err)
	return out
}

func TestApplyJSONPatchStatus(t *testing.T) {
	obj := map[string]any{"data": map[string]any{"a": "x"}}
	tests := []struct {
		name   string
		patch  string
		code   int
		reason status.Reason
		is     error
	}{
		{"test failure is 422 Invalid", `[{"op":"test","path":"/data/a","value":"y"}]`, 422, status.ReasonInvalid, ErrTestFailed},
		{"missing path is 422", `[{"op":"remove","path":"/data/b"}]`, 422, status.ReasonInvalid, ErrMissing},
		{"bad index is 422", `[{"op":"add","path":"/data/a/0","value":1}]`, 422, status.ReasonInvalid, ErrMissing},
		{"invalid JSON is 400", `[`, 400, status.ReasonBadRequest, nil},
		{"object body is 400", `{}`, 400, status.ReasonBadRequest, nil},
		{"10001 operations is 413", "[" + strings.Repeat(`{"op":"test","path":"/data/a","value":"x"},`, 10000) + `{"op":"test","path":"/data/a","value":"x"}]`, 413, status.ReasonRequestEntityTooLarge, nil},
		{"body over 3 MiB is 413", `[{"op":"add","path":"/data/b","value":"` + strings.Repeat("x", 3<<20) + `"}]`, 413, status.ReasonRequestEntityTooLarge, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyJSONPatch(obj, []byte(tt.patch), Options{})
			require.Error(t, err)
			var st *status.Error
			require.True(t, errors.As(err, &st), "errors.As *status.Error")
			assert.Equal(t, tt.code, st.StatusCode(), tt.patch)
			assert.Equal(t, tt.reason, st.Reason, tt.patch)
			assert.Equal(t, tt.code, status.CodeOf(err))
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

func TestApplyJSONPatchDeepDocument(t *testing.T) {
	// A 10,000-deep document and a patch reaching into it: no panic, a result.
	var v any = "leaf"
	for i := 0; i < 10000; i++ {
		v = map[string]any{"a": v}
	}
	obj := map[string]any{"deep": v}
	res, err := ApplyJSONPatch(obj, []byte(`[{"op":"add","path":"/deep/a/a/b","value":1}]`), Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.Object["deep"].(map[string]any)["a"].(map[string]any)["a"].(map[string]any)["b"])

	// A 10,000-deep patch value is refused by the decoder, not a crash.
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	_, err = ApplyJSONPatch(obj, []byte(`[{"op":"add","path":"/x","value":`+deep+`}]`), Options{})
	require.Error(t, err)
}

func TestApplyJSONPatchNonUTF8(t *testing.T) {
	obj := map[string]any{"data": map[string]any{}}
	res, err := ApplyJSONPatch(obj, []byte("[{\"op\":\"add\",\"path\":\"/data/a\",\"value\":\"\xff\"}]"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "\ufffd", res.Object["data"].(map[string]any)["a"], "invalid UTF-8 decodes as U+FFFD, as the apiserver's decoder reads it")
}
