package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/internal/codec"
)

// Codec benchmarks, writepath side by side with encoding/json, sigs.k8s.io/json and the
// apiserver's serializer on the same bytes: a realistic Deployment
// (testdata/codec/bench/deployment.yaml) and a ~1 MB DeploymentList built from it.
// Sub-benchmarks are named impl=...; compare them with `benchstat -col /impl`.

func codecInputs(b *testing.B) (deployJSON, deployYAML, listJSON []byte) {
	deployYAML, err := os.ReadFile(filepath.Join("..", "..", "testdata", "codec", "bench", "deployment.yaml"))
	require.NoError(b, err)
	obj, err := codec.DecodeObject(deployYAML)
	require.NoError(b, err)
	deployJSON, err = codec.EncodeJSON(obj)
	require.NoError(b, err)
	var items []any
	for i := 0; len(items)*len(deployJSON) < 1<<20; i++ {
		item, err := codec.DecodeObject(deployJSON)
		require.NoError(b, err)
		item["metadata"].(map[string]any)["name"] = fmt.Sprintf("web-%d", i)
		items = append(items, item)
	}
	listJSON, err = codec.EncodeJSON(map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList",
		"metadata": map[string]any{"resourceVersion": "1"}, "items": items})
	require.NoError(b, err)
	return deployJSON, deployYAML, listJSON
}

func apiserverSerializer(yamlMode bool) *serjson.Serializer {
	return serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory,
		unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(),
		serjson.SerializerOptions{Yaml: yamlMode, Strict: true})
}

type decodeImpl struct {
	name string
	fn   func([]byte) error
}

func runDecode(b *testing.B, data []byte, impls []decodeImpl) {
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := impl.fn(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// jsonDecoders decode JSON into map[string]any: writepath (strict, as fieldValidation=Strict),
// encoding/json (floats only), sigs.k8s.io/json plain and strict, and the apiserver's strict
// JSON serializer into unstructured.Unstructured.
func jsonDecoders() []decodeImpl {
	ser := apiserverSerializer(false)
	return []decodeImpl{
		{"writepath", func(d []byte) error { _, err := codec.DecodeObject(d); return err }},
		{"encoding-json", func(d []byte) error { var m map[string]any; return json.Unmarshal(d, &m) }},
		{"sigs-json", func(d []byte) error { var m map[string]any; return kjson.UnmarshalCaseSensitivePreserveInts(d, &m) }},
		{"sigs-json-strict", func(d []byte) error {
			var m map[string]any
			_, err := kjson.UnmarshalStrict(d, &m, kjson.DisallowDuplicateFields)
			return err
		}},
		{"apiserver-serializer", func(d []byte) error {
			_, _, err := ser.Decode(d, nil, &unstructured.Unstructured{})
			return err
		}},
	}
}

func BenchmarkCodecDecode(b *testing.B) {
	deployJSON, deployYAML, listJSON := codecInputs(b)
	b.Run("deployment.json", func(b *testing.B) { runDecode(b, deployJSON, jsonDecoders()) })
	b.Run("list-1MB.json", func(b *testing.B) { runDecode(b, listJSON, jsonDecoders()) })
	yamlSer := apiserverSerializer(true)
	b.Run("deployment.yaml", func(b *testing.B) {
		runDecode(b, deployYAML, []decodeImpl{
			{"writepath", func(d []byte) error { _, err := codec.DecodeObject(d); return err }},
			{"sigs-yaml+sigs-json", func(d []byte) error {
				j, err := yaml.YAMLToJSON(d)
				if err != nil {
					return err
				}
				var m map[string]any
				return kjson.UnmarshalCaseSensitivePreserveInts(j, &m)
			}},
			{"apiserver-serializer", func(d []byte) error {
				_, _, err := yamlSer.Decode(d, nil, &unstructured.Unstructured{})
				return err
			}},
		})
	})
}

func BenchmarkCodecEncode(b *testing.B) {
	deployJSON, _, listJSON := codecInputs(b)
	deploy, err := codec.DecodeObject(deployJSON)
	require.NoError(b, err)
	list, err := codec.DecodeObject(listJSON)
	require.NoError(b, err)
	ser := serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, nil, nil, serjson.SerializerOptions{})
	for _, in := range []struct {
		name string
		obj  map[string]any
		size int
	}{{"deployment", deploy, len(deployJSON)}, {"list-1MB", list, len(listJSON)}} {
		b.Run(in.name+".json", func(b *testing.B) {
			impls := []struct {
				name string
				fn   func() error
			}{
				{"writepath", func() error { _, err := codec.EncodeJSON(in.obj); return err }},
				{"encoding-json", func() error { _, err := json.Marshal(in.obj); return err }},
				{"apiserver-serializer", func() error {
					var buf bytes.Buffer
					return ser.Encode(&unstructured.Unstructured{Object: in.obj}, &buf)
				}},
			}
			for _, impl := range impls {
				b.Run("impl="+impl.name, func(b *testing.B) {
					b.SetBytes(int64(in.size))
					b.ReportAllocs()
					for b.Loop() {
						if err := impl.fn(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
	b.Run("deployment.yaml", func(b *testing.B) {
		for _, impl := range []struct {
			name string
			fn   func() error
		}{
			{"writepath", func() error { _, err := codec.EncodeYAML(deploy); return err }},
			{"sigs-yaml", func() error { _, err := yaml.Marshal(deploy); return err }},
		} {
			b.Run("impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(deployJSON)))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.fn(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
