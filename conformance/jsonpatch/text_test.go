package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/writepath/writepath/conformance/internal/jsontext"
	"github.com/writepath/writepath/internal/lazyjson"
)

func v4Apply(doc, ops []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	return p.Apply(doc)
}

// TestPatchedText compares the text writepath renders for a JSON-Patched document
// (internal/lazyjson, what registry quotes in a 422) with the bytes json-patch.v4's Apply
// returns, on documents and operations spelled at random (key order, spacing, numbers, escapes).
func TestPatchedText(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	n := 3000
	if os.Getenv("WRITEPATH_LONG") != "" {
		n = 100000
	}
	agreed, refused, panics := 0, 0, 0
	for i := 0; i < n; i++ {
		doc := randomDoc(rng)
		raw := randomPatch(rng, doc)
		docText, opsText := jsontext.Write(rng, doc), raw
		var ops any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&ops) == nil {
			opsText = jsontext.Write(rng, ops)
		}
		docCopy := bytes.Clone(docText)
		want, werr := v4Apply(docText, opsText)
		got, gerr := lazyjson.ApplyPatch(docText, opsText)
		require.Equal(t, docCopy, docText, "document text modified")
		if werr != nil {
			// The reference's panics (a null on a path) and refusals: writepath's patch engine
			// answers those itself; the rendering only has to not claim a result.
			require.Error(t, gerr, "case %d: doc %s ops %s: the reference refuses (%v)", i, docText, opsText, werr)
			if bytes.HasPrefix([]byte(werr.Error()), []byte("panic")) {
				panics++
			} else {
				refused++
			}
			continue
		}
		require.NoError(t, gerr, "case %d: doc %s ops %s", i, docText, opsText)
		require.Equal(t, string(want), string(got), "case %d: doc %s ops %s", i, docText, opsText)
		agreed++
	}
	t.Logf("JSON patch text: %d cases, %d equal texts, %d refused by both, %d reference panics refused, 0 disagreements", n, agreed, refused, panics)
}
