package fielderrors

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	referrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	reffield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// FuzzPathVsReference builds the same path from arbitrary appends with both
// implementations and compares the rendering.
func FuzzPathVsReference(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "spec/containers/image")
	f.Add([]byte{1, 2}, "/")
	f.Fuzz(func(t *testing.T, ops []byte, names string) {
		parts := strings.Split(names, "/")
		var ours field.Path
		var ref *reffield.Path
		for i, op := range ops {
			name := parts[i%len(parts)]
			switch op % 3 {
			case 0:
				ours, ref = ours.Child(name), ref.Child(name)
			case 1:
				ours, ref = ours.Index(int(int8(op))), ref.Index(int(int8(op)))
			default:
				ours, ref = ours.Key(name), ref.Key(name)
			}
		}
		assert.Equal(t, ref.String(), ours.String())
	})
}

// FuzzInvalidVsReference compares one field error, its aggregate and its 422
// status (message and JSON) for arbitrary strings and numbers.
func FuzzInvalidVsReference(f *testing.F) {
	f.Add("spec", "replicas", "must be >= 0", "x", int64(-1), 0)
	f.Add("", "\xff", "", "<&>", int64(1)<<60, 5)
	f.Fuzz(func(t *testing.T, a, b, detail, s string, n int64, kind int) {
		var v any
		switch kind % 4 {
		case 0:
			v = n
		case 1:
			v = s
		case 2:
			v = map[string]any{s: n, "l": []any{s, float64(n) / 7, nil}}
		default:
			v = float64(n) * 1e-3
		}
		ours := field.ErrorList{field.Invalid(field.NewPath(a).Child(b), v, detail), field.Required(field.NewPath(b).Key(s), detail)}
		ref := reffield.ErrorList{reffield.Invalid(reffield.NewPath(a).Child(b), v, detail), reffield.Required(reffield.NewPath(b).Key(s), detail)}
		assert.Equal(t, ref.ToAggregate().Error(), ours.ToAggregate().Error())

		se := status.Invalid(status.GroupKind{Group: a, Kind: b}, s, ours)
		rse := referrors.NewInvalid(schema.GroupKind{Group: a, Kind: b}, s, ref)
		assert.Equal(t, rse.Error(), se.Error())
		body, err := json.Marshal(se)
		require.NoError(t, err)
		st := rse.ErrStatus
		st.Kind, st.APIVersion = "Status", "v1"
		refBody, err := json.Marshal(&st)
		require.NoError(t, err)
		assert.Equal(t, string(refBody), string(body))
	})
}
