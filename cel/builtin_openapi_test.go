package cel

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/schema"
)

// servedNode reads the parts of an OpenAPI v3 schema the catalogue keeps.
func servedNode(s map[string]any) *OpenAPISchema {
	if ref, ok := s["$ref"].(string); ok {
		return &OpenAPISchema{Ref: strings.TrimPrefix(ref, "#/components/schemas/")}
	}
	// A ref wrapped in allOf (to keep its description) is the ref (resolver.refOf).
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			if am, ok := a.(map[string]any); ok {
				if n := servedNode(am); n.Ref != "" {
					return &OpenAPISchema{Ref: n.Ref}
				}
			}
		}
	}
	n := &OpenAPISchema{}
	n.Type, _ = s["type"].(string)
	n.Format, _ = s["format"].(string)
	n.IntOrString, _ = s["x-kubernetes-int-or-string"].(bool)
	n.Embedded, _ = s["x-kubernetes-embedded-resource"].(bool)
	if props, ok := s["properties"].(map[string]any); ok {
		n.Props = map[string]*OpenAPISchema{}
		for k, p := range props {
			if pm, ok := p.(map[string]any); ok {
				n.Props[k] = servedNode(pm)
			}
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		n.Items = servedNode(it)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		n.Additional = servedNode(ap)
	}
	return n
}

// buildOpenAPICatalogue reads the recorded OpenAPI v3 documents.
func buildOpenAPICatalogue(t *testing.T) []byte {
	files, err := filepath.Glob(filepath.Join("..", "cluster", "data", "openapi", "v3", "*.json.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	cat := OpenAPICatalogue{Kinds: map[string]string{}, Defs: map[string]*OpenAPISchema{}}
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		zr, err := gzip.NewReader(fh)
		require.NoError(t, err)
		var doc struct {
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.NewDecoder(zr).Decode(&doc))
		require.NoError(t, fh.Close())
		for name, s := range doc.Components.Schemas {
			n := servedNode(s)
			if old, ok := cat.Defs[name]; ok {
				a, _ := json.Marshal(old)
				b, _ := json.Marshal(n)
				require.JSONEq(t, string(a), string(b), "definition %s differs between documents", name)
			}
			cat.Defs[name] = n
			gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				gm, _ := g.(map[string]any)
				k := schema.GroupVersionKind{Group: gm["group"].(string), Version: gm["version"].(string), Kind: gm["kind"].(string)}
				cat.Kinds[gvkKey(k)] = name
			}
		}
	}
	b, err := json.Marshal(cat)
	require.NoError(t, err)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestBuiltinOpenAPIData checks the embedded catalogue is the one the
// recorded OpenAPI documents give (UPDATE_GOLDEN=1 rewrites it).
func TestBuiltinOpenAPIData(t *testing.T) {
	data := buildOpenAPICatalogue(t)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile("builtin_openapi.json.gz", data, 0o644))
		return
	}
	unzip := func(b []byte) string {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		out, err := io.ReadAll(zr)
		require.NoError(t, err)
		return string(out)
	}
	assert.JSONEq(t, unzip(data), unzip(builtinOpenAPI), "builtin_openapi.json.gz is stale: UPDATE_GOLDEN=1 go test ./cel -run TestBuiltinOpenAPIData")
}
