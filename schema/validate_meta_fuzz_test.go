package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// FuzzValidateObjectMeta: any metadata decodes or is refused, never a panic; the inputs are not
// modified; the same input gives the same errors.
func FuzzValidateObjectMeta(f *testing.F) {
	f.Add([]byte(`{"name":"a","namespace":"ns","labels":{"a/b/c":"x"}}`), []byte(`{"name":"a","resourceVersion":"1"}`), true)
	f.Add([]byte(`{"name":"a","ownerReferences":[{"apiVersion":"v1","kind":"Event","controller":true},{"controller":true}]}`), []byte(`{}`), false)
	f.Add([]byte(`{"generateName":"x-","finalizers":["orphan","foregroundDeletion","Bad!"],"managedFields":[{"operation":"x"}]}`), []byte(`{"deletionTimestamp":"2026-01-01T00:00:00Z"}`), true)
	f.Add([]byte(`{"labels":{"a":1},"creationTimestamp":"not a time"}`), []byte(`{"generation":5}`), false)
	f.Fuzz(func(t *testing.T, newJSON, oldJSON []byte, namespaced bool) {
		md, err := codec.DecodeObject(newJSON)
		if err != nil {
			return
		}
		old, err := codec.DecodeObject(oldJSON)
		if err != nil {
			return
		}
		mdCopy, _ := value.DeepCopyMap(md)
		oldCopy, _ := value.DeepCopyMap(old)
		opts := schema.ObjectMetaOptions{Namespaced: namespaced}
		errs1, err1 := schema.ValidateObjectMeta(md, opts, field.NewPath("metadata"))
		errs2, err2 := schema.ValidateObjectMeta(md, opts, field.NewPath("metadata"))
		assert.Equal(t, err1 == nil, err2 == nil)
		assert.Equal(t, render(errs1), render(errs2))
		_, _ = schema.ValidateObjectMetaUpdate(md, old, opts, field.NewPath("metadata"))
		assert.True(t, value.Equal(mdCopy, md), "metadata modified")
		assert.True(t, value.Equal(oldCopy, old), "old metadata modified")
	})
}

func render(errs field.ErrorList) string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	b, _ := json.Marshal(out)
	return string(b)
}
