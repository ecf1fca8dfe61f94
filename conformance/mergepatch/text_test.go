package mergepatch

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/writepath/writepath/conformance/internal/jsontext"
	"github.com/writepath/writepath/internal/lazyjson"
)

// TestPatchedText compares the text writepath renders for a merge-patched document
// (internal/lazyjson, what registry quotes in a 422) with the bytes json-patch.v4's MergePatch
// returns, on documents and patches whose keys, spacing, numbers and escapes are spelled at
// random: the apiserver's patcher keeps the text of what the patch does not go into.
func TestPatchedText(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	n := samples()
	agreed, refused := 0, 0
	for i := 0; i < n; i++ {
		doc := randomObject(rng)
		var p any
		switch rng.Intn(3) {
		case 0:
			p = mutate(rng, doc)
		case 1:
			p = mutate(rng, randomObject(rng))
		default:
			p = randomObject(rng)
		}
		docText, patchText := jsontext.Write(rng, doc), jsontext.Write(rng, p)
		docCopy, patchCopy := bytes.Clone(docText), bytes.Clone(patchText)
		want, werr := jsonpatch.MergePatch(docText, patchText)
		got, gerr := lazyjson.MergePatch(docText, patchText)
		require.Equal(t, docCopy, docText, "document text modified")
		require.Equal(t, patchCopy, patchText, "patch text modified")
		if werr != nil {
			require.Error(t, gerr, "case %d: doc %s patch %s: the reference refuses (%v)", i, docText, patchText, werr)
			refused++
			continue
		}
		require.NoError(t, gerr, "case %d: doc %s patch %s", i, docText, patchText)
		require.Equal(t, string(want), string(got), "case %d: doc %s patch %s", i, docText, patchText)
		agreed++
	}
	t.Logf("merge patch text: %d cases, %d equal texts, %d refused by both, 0 disagreements", n, agreed, refused)
}

// TestPatchedTextStructOrder is the case registry meets: a built-in object encoded in its Go
// struct's field order, patched at one field.
func TestPatchedTextStructOrder(t *testing.T) {
	doc := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","uid":"u","labels":{"b":"1","a":"2"}},"data":{"z":"<&>","a":"1"}}`)
	for _, p := range []string{
		`{"data":{"x":"1"},"unknownTop":1}`,
		`{"metadata":{"labels":{"c":true}}}`,
		`{"spec":{"replicas":2.0,"template":{"z":1,"a":null}}}`,
		`{"data":null,"metadata":{"annotations":{"k":"v"}}}`,
	} {
		want, err := jsonpatch.MergePatch(doc, []byte(p))
		require.NoError(t, err)
		got, err := lazyjson.MergePatch(doc, []byte(p))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "patch %s", p)
		require.True(t, json.Valid(got))
	}
}
