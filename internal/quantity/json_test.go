package quantity_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/quantity"
)

// TestUnmarshalJSON is resource.Quantity.UnmarshalJSON: what a document's value decodes to,
// written back by MarshalJSON.
func TestUnmarshalJSON(t *testing.T) {
	for _, c := range []struct {
		in, out string
		err     error
	}{
		{`"1.5Gi"`, `"1536Mi"`, nil},
		{`"+1"`, `"+1"`, nil}, // the cached string
		{`"1000m"`, `"1"`, nil},
		{`1.5`, `"1500m"`, nil}, // a number is read as written
		{`1e3`, `"1e3"`, nil},
		{`" 100m  "`, `"100m"`, nil},               // white space inside the quotes is trimmed
		{`"1\u004b"`, ``, quantity.ErrFormatWrong}, // no unescaping
		{`""`, ``, quantity.ErrFormatWrong},
		{`"`, ``, quantity.ErrFormatWrong}, // one quote is not a quoted string
		{`true`, ``, quantity.ErrFormatWrong},
		{`{}`, ``, quantity.ErrFormatWrong},
		{`"1Ki1"`, ``, quantity.ErrSuffix},
		{`".e-10"`, ``, quantity.ErrNumeric},
		{`null`, `"0"`, nil},
	} {
		t.Run(c.in, func(t *testing.T) {
			var q quantity.Quantity
			err := q.UnmarshalJSON([]byte(c.in))
			if c.err != nil {
				assert.Equal(t, c.err, err)
				return
			}
			require.NoError(t, err)
			out, err := q.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, c.out, string(out))
		})
	}
}

// TestUnmarshalJSONNull: null zeroes the value and keeps the format and the cached string; an
// error leaves the quantity as it was.
func TestUnmarshalJSONNull(t *testing.T) {
	var q quantity.Quantity
	require.NoError(t, json.Unmarshal([]byte(`"+1"`), &q))
	require.NoError(t, q.UnmarshalJSON([]byte("null")))
	assert.True(t, q.IsZero())
	assert.Equal(t, "+1", q.String())
	assert.Equal(t, "0", q.Canonical())

	require.NoError(t, q.UnmarshalJSON([]byte(`"2048Ki"`)))
	require.NoError(t, q.UnmarshalJSON([]byte("null")))
	assert.Equal(t, quantity.BinarySI, q.Format())
	assert.True(t, q.IsInt64Form())
	assert.Equal(t, "0", q.String())

	q = quantity.MustParse("12345678901234567890")
	assert.Equal(t, quantity.ErrFormatWrong, q.UnmarshalJSON([]byte(`"x"`)))
	assert.Equal(t, "12345678901234567890", q.String())
	require.NoError(t, q.UnmarshalJSON([]byte("null")))
	assert.True(t, q.IsInt64Form(), "the big decimal is dropped")
	assert.Equal(t, 0, q.Sign())
}

// TestJSONInStruct: encoding/json uses the methods for fields and pointers.
func TestJSONInStruct(t *testing.T) {
	var v struct {
		A quantity.Quantity  `json:"a"`
		B *quantity.Quantity `json:"b,omitempty"`
		C *quantity.Quantity `json:"c,omitempty"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"a":"0.5Ki","b":2000,"c":null}`), &v))
	assert.Nil(t, v.C)
	out, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, `{"a":"512","b":"2k"}`, string(out))
	err = json.Unmarshal([]byte(`{"a":"1x"}`), &v)
	assert.ErrorIs(t, err, quantity.ErrFormatWrong)
}

func ExampleQuantity_UnmarshalJSON() {
	var q quantity.Quantity
	for _, in := range []string{`"1.5Gi"`, `"+1"`, `null`, `2000`, `"1x"`} {
		err := q.UnmarshalJSON([]byte(in))
		out, _ := q.MarshalJSON()
		fmt.Println(in, string(out), q.IsZero(), err)
	}
	// Output:
	// "1.5Gi" "1536Mi" false <nil>
	// "+1" "+1" false <nil>
	// null "+1" true <nil>
	// 2000 "2k" false <nil>
	// "1x" "2k" false quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}

// FuzzUnmarshalJSON: UnmarshalJSON never panics and leaves its input as it was; what it accepts
// is what Parse accepts of the trimmed, unquoted bytes; MarshalJSON writes String in quotes, and
// that decodes back to the same string.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`"1.5Gi"`, `"+1"`, `null`, `1e3`, `" 1 "`, `"`, `""`, `{}`, `"1e2000000000"`, `-0.1n`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		var q quantity.Quantity
		err := q.UnmarshalJSON(data)
		require.Equal(t, before, data, "input not modified")
		if err != nil {
			return
		}
		out, err := q.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, `"`+q.String()+`"`, string(out))
		require.True(t, json.Valid(out), "%s", out)
		var back quantity.Quantity
		require.NoError(t, back.UnmarshalJSON(out))
		assert.Equal(t, q.String(), back.String())
	})
}
