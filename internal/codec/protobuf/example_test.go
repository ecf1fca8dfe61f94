package protobuf_test

import (
	"fmt"

	"github.com/writepath/writepath/internal/codec/protobuf"
)

func ExampleEncode() {
	cm := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "demo", "namespace": "default"},
		"data":     map[string]any{"k": "v"},
	}
	data, err := protobuf.Encode(cm)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", data[:4])
	back, err := protobuf.Decode(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(back["kind"], back["metadata"].(map[string]any)["name"], back["data"])
	// Output:
	// "k8s\x00"
	// ConfigMap demo map[k:v]
}

func ExampleKnown() {
	fmt.Println(protobuf.Known("apps/v1", "Deployment"), protobuf.Known("example.com/v1", "Widget"))
	// Output: true false
}
