package codec_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/internal/codec"
)

// TestTime: metav1.Time's decoding, inside a struct as the apiserver's types hold it.
func TestTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want codec.Time
		err  string
	}{
		{in: `{"t":null}`},
		{in: `{}`},
		{in: `{"t":"2026-12-04T01:02:03Z"}`, want: codec.Time{Time: time.Date(2026, 12, 4, 1, 2, 3, 0, time.UTC), Set: true}},
		{in: `{"t":5}`, err: "json: cannot unmarshal number into Go struct field .t of type string"},
		{in: `{"t":"yesterday"}`, err: `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
	} {
		var v struct {
			T codec.Time `json:"t"`
		}
		err := json.Unmarshal([]byte(tt.in), &v)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, tt.in)
			continue
		}
		assert.NoError(t, err, tt.in)
		assert.True(t, tt.want.Time.Equal(v.T.Time), tt.in)
		assert.Equal(t, tt.want.Set, v.T.Set, tt.in)
	}
}

// TestTimeMarshal: metav1.Time's encoding, the zero time as null, any other in UTC to the second.
func TestTimeMarshal(t *testing.T) {
	for _, tt := range []struct {
		in   codec.Time
		want string
	}{
		{codec.Time{}, `null`},
		{codec.Time{Time: time.Date(2026, 12, 4, 2, 3, 4, 500, time.FixedZone("", 3600)), Set: true}, `"2026-12-04T01:03:04Z"`},
	} {
		b, err := json.Marshal(tt.in)
		assert.NoError(t, err, tt.want)
		assert.Equal(t, tt.want, string(b))
	}
}
