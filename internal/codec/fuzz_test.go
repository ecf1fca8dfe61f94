package codec

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addSeeds adds every golden decode input as a seed.
func addSeeds(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join(goldenRoot, "decode", "*"))
	require.NoError(f, err)
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		data, err := os.ReadFile(in)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"a":[1,2.5,"x",null,true,{"b":-0}],"c":1e21,"d":"\u2028<"}`))
	f.Add([]byte("a: [1, {b: 2}]\n---\nc: d\n"))
}

// modelOK reports whether v holds only object-model types.
func modelOK(v any) bool {
	switch t := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, e := range t {
			if !modelOK(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range t {
			if !modelOK(e) {
				return false
			}
		}
		return true
	}
	return false
}

// sameAfterEncoding is equality up to the one change JSON encoding makes: a float64 with an
// integral value prints without a fraction and reads back as the equal int64 (the apiserver's
// storage round trip does the same).
func sameAfterEncoding(a, b any) bool {
	switch x := a.(type) {
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return x == float64(y)
		}
		return false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameAfterEncoding(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameAfterEncoding(xv, yv) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func hasNegativeZero(v any) bool {
	switch t := v.(type) {
	case float64:
		return t == 0 && math.Signbit(t)
	case []any:
		return slices.ContainsFunc(t, hasNegativeZero)
	case map[string]any:
		for _, e := range t {
			if hasNegativeZero(e) {
				return true
			}
		}
	}
	return false
}

// checkRoundTrip asserts the encoding laws for a decoded value v.
func checkRoundTrip(t *testing.T, v any) {
	require.True(t, modelOK(v), "decoded value outside the object model: %#v", v)
	b1, err := EncodeJSON(v)
	require.NoError(t, err)
	// The encoder writes encoding/json's bytes.
	want, err := json.Marshal(v)
	require.NoError(t, err)
	require.Equal(t, string(want), string(b1), "EncodeJSON differs from encoding/json")
	v2, err := Options{Format: FormatJSON, MaxBytes: -1}.DecodeValue(b1)
	require.NoError(t, err, "re-decoding %s", b1)
	assert.True(t, sameAfterEncoding(v, v2), "round trip changed the value: %s", b1)
	b2, err := EncodeJSON(v2)
	require.NoError(t, err)
	if !hasNegativeZero(v) {
		// float64 -0 prints as "-0", which reads back as int64 0 and then prints as "0".
		assert.Equal(t, string(b1), string(b2), "encode(decode(encode(v))) != encode(v)")
	}
	v4, err := Options{Format: FormatJSON, MaxBytes: -1}.DecodeValue(b2)
	require.NoError(t, err)
	b3, err := EncodeJSON(v4)
	require.NoError(t, err)
	assert.Equal(t, string(b2), string(b3), "encoding is not a fixpoint after one round trip")
	ind, err := EncodeJSONIndent(v)
	require.NoError(t, err)
	wantInd, err := json.MarshalIndent(v, "", "    ")
	require.NoError(t, err)
	require.Equal(t, string(wantInd)+"\n", string(ind), "EncodeJSONIndent differs from MarshalIndent")
	v3, err := Options{Format: FormatJSON, MaxBytes: -1}.DecodeValue(ind)
	require.NoError(t, err)
	assert.True(t, sameAfterEncoding(v2, v3), "indented encoding decodes differently: %s", ind)
}

func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		for _, opts := range []Options{{}, {AllowDuplicates: true}, {Format: FormatJSON}, {Format: FormatYAML, MaxDepth: 5}} {
			v, err := opts.DecodeValue(data)
			require.Equal(t, orig, data, "input modified")
			if err != nil {
				var ce *Error
				require.ErrorAs(t, err, &ce)
				require.Contains(t, []int{400, 413}, ce.StatusCode())
				continue
			}
			checkRoundTrip(t, v)
		}
	})
}

func FuzzDecodeStream(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		docs, err := Options{AllowDuplicates: true}.DecodeStream(data)
		require.Equal(t, orig, data, "input modified")
		if err != nil {
			var ce *Error
			require.ErrorAs(t, err, &ce)
			return
		}
		objs := make([]map[string]any, len(docs))
		for i, d := range docs {
			m, ok := d.Value.(map[string]any)
			require.True(t, ok, "document %d is not an object", i+1)
			objs[i] = m
			checkRoundTrip(t, m)
		}
		flat, err := FlattenLists(objs)
		if err == nil {
			for _, m := range flat {
				require.True(t, modelOK(m))
			}
		}
	})
}
