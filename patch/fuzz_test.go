package patch

import (
	"bytes"
	"testing"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
)

func FuzzApplyJSONPatch(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,2,null]},"":"x"}`), []byte(`[{"op":"add","path":"/a/b/-1","value":1}]`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"op":"replace","path":"","value":[1]}]`))
	f.Add([]byte(`{"a":[null]}`), []byte(`[{"op":"test","path":"/a","value":[null]}]`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"op":"add","path":"/b","value":null},{"op":"copy","from":"/b","path":"/c"},{"op":"add","path":"/c/x","value":1}]`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"op":"move","from":"/a","path":"/a/b"},{"op":"copy","from":"","path":"/z"}]`))
	f.Fuzz(func(t *testing.T, docJSON, patchJSON []byte) {
		doc, err := codec.DecodeObject(docJSON)
		if err != nil || doc == nil {
			return
		}
		before, err := codec.EncodeJSON(doc)
		if err != nil {
			return
		}
		patchCopy := append([]byte(nil), patchJSON...)
		res, err := ApplyJSONPatch(doc, patchJSON, Options{FieldValidation: schema.FieldValidationStrict})
		after, _ := codec.EncodeJSON(doc)
		if string(before) != string(after) {
			t.Fatalf("object mutated")
		}
		if !bytes.Equal(patchCopy, patchJSON) {
			t.Fatalf("patch mutated")
		}
		if err == nil {
			if _, err := codec.EncodeJSON(res.Object); err != nil {
				t.Fatalf("result outside the object model: %v", err)
			}
		}
	})
}

func FuzzCreateJSONPatch(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,3],"b":{"c":"d"}}`), []byte(`{"a":[1,3],"b":{"c":"e","~/":1}}`))
	f.Add([]byte(`{}`), []byte(`{"":[[]]}`))
	f.Fuzz(func(t *testing.T, fromJSON, toJSON []byte) {
		from, err1 := codec.DecodeObject(fromJSON)
		to, err2 := codec.DecodeObject(toJSON)
		if err1 != nil || err2 != nil || from == nil || to == nil {
			return
		}
		ops, err := CreateJSONPatch(from, to)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		res, err := ApplyJSONPatch(from, ops, Options{MaxOperations: -1, MaxRequestBytes: -1})
		if err != nil {
			t.Fatalf("apply of created patch %s: %v", ops, err)
		}
		want, _ := codec.EncodeJSON(normalizeNumbers(to))
		got, _ := codec.EncodeJSON(res.Object)
		if string(want) != string(got) {
			t.Fatalf("apply(create(from,to)) = %s, want %s (patch %s)", got, want, ops)
		}
	})
}

// normalizeNumbers reads a value back as the apiserver's decoder would after
// a JSON round trip (integral floats become int64).
func normalizeNumbers(v map[string]any) map[string]any {
	out, err := value.RoundTripJSON(v)
	if err != nil {
		panic(err)
	}
	return out.(map[string]any)
}

func FuzzApplyRFC6902(f *testing.F) {
	f.Add([]byte(`{"a":[1,2]}`), []byte(`[{"op":"remove","path":"/a/-1"}]`))
	f.Add([]byte(`[1]`), []byte(`[{"op":"add","path":"","value":{}}]`))
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		docCopy := append([]byte(nil), doc...)
		pCopy := append([]byte(nil), p...)
		_, _ = ApplyRFC6902(doc, p, Options{})
		if !bytes.Equal(docCopy, doc) || !bytes.Equal(pCopy, p) {
			t.Fatal("input mutated")
		}
	})
}
