package managedfields

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/writepath/writepath/internal/codec"
)

// TestEncodeJSONWritesFieldsV1InSetOrder: a managedFields entry's fieldsV1 encoded by
// codec.EncodeJSON has the bytes structured-merge-diff's Set.ToJSON writes (the apiserver's),
// for seeded random sets of field names, keys with numbers, strings and booleans, values and
// indexes.
func TestEncodeJSONWritesFieldsV1InSetOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	scalar := func() any {
		switch r.IntN(4) {
		case 0:
			return int64(r.IntN(2000))
		case 1:
			return fmt.Sprintf("s%d", r.IntN(30))
		case 2:
			return r.IntN(2) == 0
		}
		return float64(r.IntN(100)) + 0.5
	}
	element := func() fieldpath.PathElement {
		switch r.IntN(4) {
		case 0:
			n := fmt.Sprintf("f%d", r.IntN(20))
			return fieldpath.PathElement{FieldName: &n}
		case 1:
			fl := value.FieldList{{Name: "port", Value: value.NewValueInterface(scalar())}}
			if r.IntN(2) == 0 {
				fl = append(fl, value.Field{Name: "protocol", Value: value.NewValueInterface(scalar())})
			}
			fl.Sort()
			return fieldpath.PathElement{Key: &fl}
		case 2:
			v := value.NewValueInterface(scalar())
			return fieldpath.PathElement{Value: &v}
		}
		i := r.IntN(120)
		return fieldpath.PathElement{Index: &i}
	}
	for i := 0; i < 300; i++ {
		set := fieldpath.NewSet()
		for j := 0; j < 1+r.IntN(12); j++ {
			p := fieldpath.Path{}
			for d := 0; d < 1+r.IntN(3); d++ {
				p = append(p, element())
			}
			set.Insert(p)
		}
		want, err := set.ToJSON()
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(want, &fields))
		got, err := codec.EncodeJSON(map[string]any{"managedFields": []any{map[string]any{"fieldsV1": fields}}})
		require.NoError(t, err)
		prefix, suffix := []byte(`{"managedFields":[{"fieldsV1":`), []byte(`}]}`)
		require.True(t, bytes.HasPrefix(got, prefix) && bytes.HasSuffix(got, suffix))
		require.Equal(t, string(want), string(got[len(prefix):len(got)-len(suffix)]), "set %d", i)
	}
}
