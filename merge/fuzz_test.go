package merge

import (
	"testing"

	"github.com/writepath/writepath/internal/codec"
)

func FuzzApplyMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[1]}`), []byte(`{"a":{"b":null,"d":{"e":null}},"c":[{"x":null}]}`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"a":null}]`))
	f.Add([]byte(`{"a":1}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		doc, err := codec.DecodeObject(docJSON)
		if err != nil || doc == nil {
			return
		}
		before, err := codec.EncodeJSON(doc)
		if err != nil {
			return
		}
		res, err := ApplyMergePatch(doc, patchJSON, Options{FieldValidation: FieldValidationWarn})
		after, _ := codec.EncodeJSON(doc)
		if string(before) != string(after) {
			t.Fatal("object mutated")
		}
		if err != nil {
			return
		}
		// Not idempotent in general, as in the apiserver: a list replacing an
		// object keeps its nulls the first time and loses them the second.
		if _, err := codec.EncodeJSON(res.Object); err != nil {
			t.Fatalf("result outside the object model: %v", err)
		}
	})
}

func FuzzCreateThreeWayMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":{"c":2}}`), []byte(`{"a":2,"b":{}}`), []byte(`{"a":1,"b":{"c":3,"d":4}}`))
	f.Fuzz(func(t *testing.T, o, m, c []byte) {
		original, e1 := codec.DecodeObject(o)
		modified, e2 := codec.DecodeObject(m)
		current, e3 := codec.DecodeObject(c)
		if e1 != nil || e2 != nil || e3 != nil {
			return
		}
		p, err := CreateThreeWayMergePatch(original, modified, current)
		if err != nil {
			return
		}
		if _, err := ApplyMergePatch(current, p, Options{}); err != nil && current != nil {
			t.Fatalf("created patch %s does not apply: %v", p, err)
		}
	})
}
