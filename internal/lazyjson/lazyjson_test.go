package lazyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The document's untouched metadata keeps its text (Go field order); the top level and data,
// which the patch goes into, are written with sorted keys; the inserted number keeps its
// spelling. conformance/mergepatch and conformance/jsonpatch compare these texts with
// json-patch.v4's on random inputs.
func ExampleMergePatch() {
	doc := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","uid":"u"},"data":{"b":"1","a":"2"}}`)
	out, _ := MergePatch(doc, []byte(`{"data":{"c":"<"},"spec":{"replicas":2.0,"z":{"y":1,"x":null}}}`))
	fmt.Println(string(out))
	// Output: {"apiVersion":"v1","data":{"a":"2","b":"1","c":"\u003c"},"kind":"ConfigMap","metadata":{"name":"cm","uid":"u"},"spec":{"replicas":2.0,"z":{"y":1}}}
}

func ExampleApplyPatch() {
	doc := []byte(`{"kind":"Pod","metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"name":"a","image":"x"}]}}`)
	out, _ := ApplyPatch(doc, []byte(`[{"op":"replace","path":"/spec/containers/0/image","value":{"z":1,"a":2}}]`))
	fmt.Println(string(out))
	// Output: {"kind":"Pod","metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"image":{"z":1,"a":2},"name":"a"}]}}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ doc, patch string }{
		{`[1]`, `{}`}, {`{}`, `[1]`}, {`{`, `{}`}, {`{}`, `null`},
	} {
		_, err := MergePatch([]byte(c.doc), []byte(c.patch))
		assert.Error(t, err, "merge %s %s", c.doc, c.patch)
	}
	for _, ops := range []string{
		`{}`, `[{"op":"remove","path":"/x"}]`, `[{"op":"add","path":"/a/b","value":1}]`,
		`[{"op":"test","path":"/a","value":2}]`, `[{"op":"nope","path":"/a"}]`, `[{"op":"add"}]`,
		`[{"op":"add","path":"/l/3","value":1}]`, `[{"op":"move","from":"/q","path":"/r"}]`,
		`[{"op":"copy","from":"/n","path":"/c"},{"op":"add","path":"/c/x","value":1}]`,
	} {
		_, err := ApplyPatch([]byte(`{"a":1,"l":[1],"n":null}`), []byte(ops))
		assert.Error(t, err, "ops %s", ops)
	}
	_, err := ApplyPatch([]byte(`null`), []byte(`[{"op":"add","path":"/a","value":1}]`))
	assert.Error(t, err, "a null document")
}

func FuzzPatchedText(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[1,2]}`), []byte(`{"a":{"d":null,"e":[{"x":null}]}}`), []byte(`[{"op":"copy","from":"/a","path":"/a/z"},{"op":"test","path":"/c","value":[1,2]}]`))
	f.Fuzz(func(t *testing.T, doc, merge, ops []byte) {
		d, m, o := bytes.Clone(doc), bytes.Clone(merge), bytes.Clone(ops)
		if out, err := MergePatch(doc, merge); err == nil {
			require.True(t, json.Valid(out), "merge result %q", out)
		}
		if out, err := ApplyPatch(doc, ops); err == nil {
			require.True(t, json.Valid(out), "JSON patch result %q", out)
		}
		require.Equal(t, d, doc)
		require.Equal(t, m, merge)
		require.Equal(t, o, ops)
	})
}
