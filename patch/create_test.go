package patch

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randomValue(rng *rand.Rand, depth int) any {
	if depth > 0 {
		switch rng.Intn(5) {
		case 0:
			m := map[string]any{}
			for i := rng.Intn(4); i > 0; i-- {
				m[[]string{"a", "b", "~", "/", "", "0"}[rng.Intn(6)]] = randomValue(rng, depth-1)
			}
			return m
		case 1:
			s := []any{}
			for i := rng.Intn(5); i > 0; i-- {
				s = append(s, randomValue(rng, depth-1))
			}
			return s
		}
	}
	return []any{nil, true, int64(rng.Intn(3)), 2.5, "x", "a<b"}[rng.Intn(6)]
}

// mutate returns a changed deep copy of v.
func mutate(rng *rand.Rand, v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range t {
			if rng.Intn(5) != 0 {
				m[k] = mutate(rng, e)
			}
		}
		if rng.Intn(3) == 0 {
			m[[]string{"a", "c", "~1", ""}[rng.Intn(4)]] = randomValue(rng, 2)
		}
		return m
	case []any:
		s := []any{}
		for _, e := range t {
			if rng.Intn(5) != 0 {
				s = append(s, mutate(rng, e))
			}
			if rng.Intn(6) == 0 {
				s = append(s, randomValue(rng, 1))
			}
		}
		return s
	}
	if rng.Intn(4) == 0 {
		return randomValue(rng, 1)
	}
	return v
}

// TestCreateJSONPatchProperties: applying the created patch gives the target,
// creation is deterministic, equal objects give "[]", inputs are unchanged.
func TestCreateJSONPatchProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		from, _ := randomValue(rng, 4).(map[string]any)
		if from == nil {
			from = map[string]any{"x": randomValue(rng, 3)}
		}
		to := mutate(rng, from).(map[string]any)
		fromCopy, toCopy := deepCopy(t, from), deepCopy(t, to)
		ops, err := CreateJSONPatch(from, to)
		require.NoError(t, err)
		again, err := CreateJSONPatch(from, to)
		require.NoError(t, err)
		assert.Equal(t, string(ops), string(again), "deterministic")
		res, err := ApplyJSONPatch(from, ops, Options{})
		require.NoError(t, err, "patch %s", ops)
		assert.Equal(t, to, res.Object, "apply(create(from, to)) == to; patch %s", ops)
		assert.Equal(t, fromCopy, from, "from unchanged")
		assert.Equal(t, toCopy, to, "to unchanged")
		same, err := CreateJSONPatch(from, from)
		require.NoError(t, err)
		assert.Equal(t, "[]", string(same))
	}
}

func TestCreateJSONPatchMinimal(t *testing.T) {
	tests := []struct {
		name     string
		from, to map[string]any
		want     string
	}{
		{"scalar change is one replace", map[string]any{"a": int64(1), "b": "x"}, map[string]any{"a": int64(2), "b": "x"},
			`[{"op":"replace","path":"/a","value":2}]`},
		{"insert in the middle of a list is one add",
			map[string]any{"l": []any{"a", "b", "c"}}, map[string]any{"l": []any{"a", "x", "b", "c"}},
			`[{"op":"add","path":"/l/1","value":"x"}]`},
		{"delete in the middle of a list is one remove",
			map[string]any{"l": []any{"a", "b", "c"}}, map[string]any{"l": []any{"a", "c"}},
			`[{"op":"remove","path":"/l/1"}]`},
		{"keys are escaped", map[string]any{}, map[string]any{"a/b~c": true},
			`[{"op":"add","path":"/a~1b~0c","value":true}]`},
		{"type change is a replace", map[string]any{"a": map[string]any{}}, map[string]any{"a": []any{}},
			`[{"op":"replace","path":"/a","value":[]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CreateJSONPatch(tt.from, tt.to)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
