package schema_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

// FuzzFromCRD: any input either decodes into a CRD or fails with an error; never a panic, and
// the decoded input is not modified; FromCRDUpdate agrees with it.
func FuzzFromCRD(f *testing.F) {
	f.Add([]byte(widgetCRD))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"schema":{"openAPIV3Schema":{"items":[{}],"$ref":"#"}}}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"pattern":"(a","default":{"x":1}}}}}}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"m":{"type":"object","additionalProperties":true}}}},"selectableFields":[{"jsonPath":".m.a.b"},{"jsonPath":".m['x\\']"},null,{"jsonPath":"'.a"},{"jsonPath":"."}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := value.DeepCopyMap(obj)
		require.NoError(t, err)
		crd, err := schema.FromCRD(obj)
		assert.True(t, value.Equal(before, obj), "FromCRD modified its input")
		// FromCRDUpdate: the same checks without the create-time metadata rules, so it accepts
		// what FromCRD accepts and refuses a body that does not decode alike.
		ucrd, uerrs, uerr := schema.FromCRDUpdate(obj)
		assert.True(t, value.Equal(before, obj), "FromCRDUpdate modified its input")
		if err == nil {
			assert.NoError(t, uerr)
			assert.Empty(t, uerrs)
			assert.NotNil(t, ucrd)
		}
		if uerr != nil {
			assert.Equal(t, uerr.Error(), err.Error())
		}
		if len(uerrs) > 0 {
			assert.Nil(t, ucrd)
		}
		if err != nil {
			assert.NotEmpty(t, err.Error())
			return
		}
		for _, v := range crd.Versions {
			assert.NotNil(t, v.Structural)
		}
	})
}

// FuzzProcess: a schema and an object through pruning, coercion, defaulting and validation
// (create and update): no panic, inputs unchanged, and pruning/defaulting are idempotent.
func FuzzProcess(f *testing.F) {
	f.Add(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer","default":1},"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}}}}`,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"l":[{"k":"x"},{"k":"x"}],"z":1}}`,
		`{"spec":{"a":2}}`)
	f.Add(`{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},"s":{"type":"string","format":"date-time","pattern":"^(a+)+$","enum":["x",1]}}}`,
		`{"e":{"apiVersion":5,"metadata":{"name":3}},"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}`, `{}`)
	f.Fuzz(func(t *testing.T, schemaJSON, objJSON, oldJSON string) {
		sv, err := codec.DecodeValue([]byte(schemaJSON))
		if err != nil {
			return
		}
		obj, err := codec.DecodeObject([]byte(objJSON))
		if err != nil {
			return
		}
		old, err := codec.DecodeObject([]byte(oldJSON))
		if err != nil {
			old = nil
		}
		crdJSON := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},` +
			`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":null}}]}}`
		crdObj, err := codec.DecodeObject([]byte(crdJSON))
		require.NoError(t, err)
		crdObj["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"] = sv

		// The low-level functions work on any schema that builds, structural or not.
		if p, err := schema.ParseProps(sv, "openAPIV3Schema"); err == nil {
			if s, err := schema.NewStructural(p); err == nil && s != nil {
				_ = schema.ValidateStructural(field.NewPath("openAPIV3Schema"), s)
				before, _ := value.DeepCopyMap(obj)
				pruned, _ := schema.Prune(obj, s, schema.PruneOptions{IsResourceRoot: true, ReturnPruned: true})
				again, paths := schema.Prune(pruned, s, schema.PruneOptions{IsResourceRoot: true, ReturnPruned: true})
				assert.True(t, value.Equal(pruned, again), "prune is idempotent")
				assert.Empty(t, paths)
				_ = schema.NewValidator(p).Validate(field.Path{}, obj)
				_ = schema.ValidateListSetsAndMaps(field.Path{}, s, obj)
				_ = schema.ValidateEmbeddedResources(field.Path{}, obj, s, true)
				assert.True(t, value.Equal(before, obj), "input modified")
			}
		}

		crd, err := schema.FromCRD(crdObj)
		if err != nil {
			return
		}
		v := crd.Version("v1")
		before, _ := value.DeepCopyMap(obj)
		var oldBefore map[string]any
		if old != nil {
			oldBefore, _ = value.DeepCopyMap(old)
		}
		for _, fv := range []schema.FieldValidation{schema.FieldValidationWarn, schema.FieldValidationIgnore} {
			res, err := v.Process(schema.Request{Object: obj, Old: old, FieldValidation: fv})
			if err != nil {
				assert.NotEmpty(t, err.Error())
				continue
			}
			d := schema.Default(res.Object, v.Structural)
			assert.True(t, value.Equal(d, res.Object), "defaulting is idempotent")
			for _, e := range res.Errors {
				assert.False(t, strings.Contains(e.Error(), "%!"), "formatting error in %q", e.Error())
			}
		}
		if old != nil {
			_, _ = v.Process(schema.Request{Object: obj, Old: old, Subresource: "status", FieldValidation: schema.FieldValidationIgnore})
		}
		if r, err := v.Read(obj); err == nil {
			assert.True(t, value.Equal(schema.Default(r, v.Structural), r), "read objects are defaulted")
		}
		assert.True(t, value.Equal(before, obj), "Process modified the object")
		if old != nil {
			assert.True(t, value.Equal(oldBefore, old), "Process modified the old object")
		}
	})
}
