package replaydiff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
