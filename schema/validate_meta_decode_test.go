package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"
)

// metaFromMap must decode exactly as the JSON round trip does, errors included.
func FuzzMetaFromMap(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","namespace":"b","labels":{"x":"y"},"annotations":{"k":"v"},"finalizers":["f"],"generation":3}`,
		`{"name":1}`, `{"labels":{"a":null}}`, `{"labels":null,"finalizers":[null]}`, `{"generation":1.5}`,
		`{"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}]}`,
		`{"ownerReferences":[null]}`, `{"creationTimestamp":"2026-01-02T03:04:05Z","deletionGracePeriodSeconds":30}`,
		`{"creationTimestamp":"bad"}`, `{"managedFields":[{"manager":"m","operation":"Apply","fieldsV1":{"f:a":{}}}]}`,
		`{"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:a":{"<":"&"}},"subresource":"status"},null]}`,
		`{"managedFields":[{"time":"2026-01-02"}],"creationTimestamp":5}`, `{"managedFields":[{"manager":7}],"deletionTimestamp":"2026-01-02T03:04:05+02:00"}`,
		`{"name":"\xff"}`, `{"Name":"x","uid":"u"}`, `{"deletionTimestamp":null,"ownerReferences":[{"controller":"yes"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts(data, &m) != nil || m == nil {
			return
		}
		want, _, wantErr := decodeObjectMeta(m, false, "")
		got, gotErr := metaFromMap(m)
		if wantErr != nil {
			require.Error(t, gotErr, "input %s", data)
			assert.Equal(t, wantErr.Error(), gotErr.Error(), "input %s", data)
			return
		}
		require.NoError(t, gotErr, "input %s", data)
		// A fieldsV1 read from the map holds its value; its bytes are the decoder's.
		for i := range got.ManagedFields {
			if r := got.ManagedFields[i].FieldsV1; r != nil && r.value != nil {
				got.ManagedFields[i].FieldsV1 = &rawJSON{raw: r.bytes()}
			}
		}
		assert.Equal(t, want, got, "input %s", data)
	})
}
