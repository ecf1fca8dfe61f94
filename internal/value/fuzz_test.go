package value

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"
)

// scribble overwrites every map entry and list item inside v, to prove a copy is not aliased.
func scribble(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			scribble(e)
			t[k] = "scribbled"
		}
		t["scribbled"] = true
	case []any:
		for i, e := range t {
			scribble(e)
			t[i] = "scribbled"
		}
	}
}

func FuzzValue(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,2.5,"x",null,true,{"c":{}}]},"d":[]}`), uint16(3), int64(7))
	f.Add([]byte(`[[],[[1]],{"":""}]`), uint16(0), int64(-1))
	f.Add([]byte(`"scalar"`), uint16(1), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, pick uint16, x int64) {
		var v any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil {
			return
		}
		require.NoError(t, Validate(v))
		before, err := json.Marshal(v)
		require.NoError(t, err)

		c, err := DeepCopy(v)
		require.NoError(t, err)
		assert.True(t, Equal(v, c), "DeepCopy not equal")
		assert.True(t, Equal(c, v), "Equal not symmetric")
		scribble(c)
		after, err := json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "DeepCopy aliases its input")

		cl := Clone(v)
		assert.Equal(t, v, cl, "Clone differs from its input")
		scribble(cl)
		after, err = json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "Clone aliases its input")

		rt, err := RoundTripJSON(v)
		require.NoError(t, err)
		var decoded any
		require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(before, &decoded))
		assert.Equal(t, decoded, rt, "RoundTripJSON differs from encoding and decoding %s", before)

		// Pick a path inside v.
		var paths []Path
		require.NoError(t, Walk(v, func(p Path, _ any) error {
			paths = append(paths, p.clone())
			return nil
		}))
		p := paths[int(pick)%len(paths)]

		got, found, err := Get(v, p)
		require.NoError(t, err)
		require.True(t, found)

		set, err := Set(v, p, x)
		require.NoError(t, err)
		back, found, err := Get(set, p)
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, x, back)
		if len(p) > 0 {
			restored, err := Set(set, p, got)
			require.NoError(t, err)
			assert.True(t, Equal(v, restored), "Set then Set back differs at %s", p)

			removed, ok, err := Remove(v, p)
			require.NoError(t, err)
			assert.True(t, ok)
			if !p[len(p)-1].isIndex {
				_, found, err = Get(removed, p)
				require.NoError(t, err)
				assert.False(t, found, "still found after Remove at %s", p)
			}
		}
		after, err = json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "Get/Set/Remove modified the input")
	})
}
