package codec

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchInputs returns a realistic Deployment (JSON and YAML) and a ~1 MB DeploymentList (JSON).
func benchInputs(b *testing.B) (deployJSON, deployYAML, listJSON []byte) {
	deployYAML, err := os.ReadFile(filepath.Join(goldenRoot, "bench", "deployment.yaml"))
	require.NoError(b, err)
	obj, err := DecodeObject(deployYAML)
	require.NoError(b, err)
	deployJSON, err = EncodeJSON(obj)
	require.NoError(b, err)
	var items []any
	for i := 0; len(items)*len(deployJSON) < 1<<20; i++ {
		item, err := DecodeObject(deployJSON)
		require.NoError(b, err)
		item["metadata"].(map[string]any)["name"] = fmt.Sprintf("web-%d", i)
		items = append(items, item)
	}
	listJSON, err = EncodeJSON(map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList", "metadata": map[string]any{"resourceVersion": "1"}, "items": items})
	require.NoError(b, err)
	return deployJSON, deployYAML, listJSON
}

func BenchmarkDecode(b *testing.B) {
	deployJSON, deployYAML, listJSON := benchInputs(b)
	for _, in := range []struct {
		name string
		data []byte
	}{{"deployment.json", deployJSON}, {"deployment.yaml", deployYAML}, {"list-1MB.json", listJSON}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeObject(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	deployJSON, _, listJSON := benchInputs(b)
	deploy, err := DecodeObject(deployJSON)
	require.NoError(b, err)
	list, err := DecodeObject(listJSON)
	require.NoError(b, err)
	for _, in := range []struct {
		name string
		obj  map[string]any
		size int
	}{{"deployment", deploy, len(deployJSON)}, {"list-1MB", list, len(listJSON)}} {
		for _, enc := range []struct {
			name string
			fn   func(any) ([]byte, error)
		}{{"json", EncodeJSON}, {"json-indent", EncodeJSONIndent}, {"yaml", EncodeYAML}} {
			if in.name == "list-1MB" && enc.name != "json" {
				continue // kept to the JSON encoder so `make bench` stays short
			}
			b.Run(in.name+"/"+enc.name, func(b *testing.B) {
				b.SetBytes(int64(in.size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := enc.fn(in.obj); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
