package conversion_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// FuzzBuiltin: converting any object between any versions never
// panics nor modifies its input, and a successful conversion is a fresh
// object at the target apiVersion.
func FuzzBuiltin(f *testing.F) {
	conv := conversion.Builtin{CRDs: []*schema.CRD{widgets().Schema}}
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"a":[1,2]}}`), "example.com", "v1", "v1beta1", "Widget")
	f.Add([]byte(`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"}`), "autoscaling", "v2", "v1", "HorizontalPodAutoscaler")
	f.Add([]byte(`{}`), "", "v1", "v1", "Pod")
	f.Fuzz(func(t *testing.T, data []byte, group, from, to, kind string) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := codec.DecodeObject(data)
		require.NoError(t, err)
		out, err := conv.Convert(obj, schema.GroupVersionKind{Group: group, Version: from, Kind: kind},
			schema.GroupVersionKind{Group: group, Version: to, Kind: kind})
		assert.True(t, value.Equal(before, obj), "input modified")
		if err != nil || from == to {
			return
		}
		want := to
		if group != "" {
			want = group + "/" + to
		}
		assert.Equal(t, want, out["apiVersion"])
		out["x-fresh"] = true
		assert.True(t, value.Equal(before, obj), "output shares the input")
	})
}
