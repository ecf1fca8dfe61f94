package merge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"
)

// sameDecoded reports whether a and b are the same decoded document,
// including the Go type of every number and the capacity of every list (the
// strategic merge reproduces the reference's appends, which depend on it).
func sameDecoded(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameDecoded(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) || cap(x) != cap(y) {
			return false
		}
		for i := range x {
			if !sameDecoded(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// checkFastDecode checks the fast decoder against the reference decoder on
// data: when it succeeds, the reference decodes the same document, with no
// strict-decoding errors. It reports whether the fast decoder succeeded.
func checkFastDecode(t *testing.T, data []byte) bool {
	t.Helper()
	in := string(data)
	got, ok := decodeObjectFast(data)
	require.Equal(t, in, string(data), "input modified")
	if !ok {
		return false
	}
	want := map[string]any{}
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(data, &want), "fast decoder accepted %q", data)
	assert.True(t, sameDecoded(want, got), "%q: reference %#v, fast %#v", data, want, got)
	strictMap := map[string]any{}
	strict, err := kjson.UnmarshalStrict(data, &strictMap)
	require.NoError(t, err)
	assert.Empty(t, strict, "%q: strict errors the fast path would drop", data)
	return true
}

func TestDecodeObjectFast(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`{}`, true},
		{" \t\r\n{ } \n", true},
		{`{"a":1,"b":-0,"c":1.0,"d":1e3,"e":-12.5E-3,"f":9223372036854775807,"g":-9223372036854775808}`, true},
		{`{"big":9223372036854775808,"neg":-9223372036854775809,"huge":123456789012345678901234567890}`, true},
		{`{"s":"plain","u":"üñï©ødé ✓ 𝄞","e":"tab\there \"q\" \\ \/ \u00e9 \ud834\udd1e \ud800 x"}`, true},
		{"{\"bad\":\"\xff\xfe\",\"k\xc3\":1}", true},
		{`{"l":[],"m":{},"n":[1,[2,[3]],{"x":null}],"t":true,"f":false,"z":null}`, true},
		{`{"list":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}`, true},
		{`{"$patch":"delete","$setElementOrder/containers":[{"name":"a"}]}`, true},
		// Left to the reference decoder.
		{`{"a":1,"a":2}`, false},
		{`{"a":{"b":1,"b":1}}`, false},
		{`[]`, false},
		{`null`, false},
		{`"x"`, false},
		{``, false},
		{`{`, false},
		{`{"a":1,}`, false},
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":.5}`, false},
		{`{"a":+1}`, false},
		{`{"a":-}`, false},
		{`{"a":1e}`, false},
		{`{"a":1e400}`, false},
		{`{"a":tru}`, false},
		{`{"a":truex}`, false},
		{`{"a":nul}`, false},
		{`{"a":"x\q"}`, false},
		{`{"a":"x\u12"}`, false},
		{"{\"a\":\"x\ny\"}", false},
		{`{"a":1} {}`, false},
		{`{"a":1}x`, false},
		{`{a:1}`, false},
		{`{"a" 1}`, false},
		{`{"a":[1 2]}`, false},
		{`{"a":"unterminated}`, false},
		{`{"a":"x\`, false},
		{strings.Repeat(`{"a":`, maxFastDepth+1) + `1` + strings.Repeat(`}`, maxFastDepth+1), false},
	} {
		assert.Equal(t, c.fast, checkFastDecode(t, []byte(c.in)), "%q", c.in)
	}
	// Above sharedTextMax strings are copied one by one.
	big := `{"a":"` + strings.Repeat("x", sharedTextMax) + `","b":["y","\u00e9"],"c":{"d":"e"}}`
	assert.True(t, checkFastDecode(t, []byte(big)))
	deep := strings.Repeat(`{"a":[`, maxFastDepth/2-1) + `1` + strings.Repeat(`]}`, maxFastDepth/2-1)
	assert.True(t, checkFastDecode(t, []byte(deep)))
}

func FuzzDecodeObjectFast(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[1,2.5,"x",null,true,false,{"c":{}}]}`, `{"a":"\u00e9\n\ud800"}`,
		`{"a":1,"a":2}`, `{"n":-0.0e+1,"m":12345678901234567890}`, "{\"\xff\":\"\xc3\"}",
		`{"metadata":{"labels":{"version":"2.3.2"},"$deleteFromPrimitiveList/finalizers":["x"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastDecode(t, data)
	})
}
