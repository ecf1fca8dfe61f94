package codec_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/writepath/writepath/internal/codec"
)

func ExampleDecodeObject() {
	obj, err := codec.DecodeObject([]byte(`{"spec":{"replicas":3,"ratio":0.5,"big":12345678901234567890}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := obj["spec"].(map[string]any)
	fmt.Printf("%T %T %T\n", spec["replicas"], spec["ratio"], spec["big"])
	// Output: int64 float64 float64
}

func ExampleDecodeValue() {
	v, err := codec.DecodeValue([]byte(`[{"op":"replace","path":"/spec/replicas","value":2}]`))
	fmt.Println(v, err)
	// Output: [map[op:replace path:/spec/replicas value:2]] <nil>
}

func ExampleDecodeDocuments() {
	docs, err := codec.DecodeDocuments([]byte("kind: ConfigMap\n---\n# empty\n---\nkind: Secret\n"))
	fmt.Println(len(docs), docs[0]["kind"], docs[1]["kind"], err)
	// Output: 2 ConfigMap Secret <nil>
}

func ExampleReadDocuments() {
	docs, err := codec.ReadDocuments("-", strings.NewReader(`{"kind":"A"} {"kind":"B"}`))
	fmt.Println(len(docs), err)
	_, err = codec.ReadDocuments("-", strings.NewReader("kind: A\nkind: B\n"))
	fmt.Println(err)
	// Output:
	// 2 <nil>
	// error parsing STDIN: document 1: yaml: unmarshal errors:
	//   line 2: key "kind" already set in map
}

func ExampleOptions_Decode() {
	// Duplicates tolerated as under fieldValidation=Warn: last value wins, one warning each.
	doc, err := codec.Options{AllowDuplicates: true}.Decode([]byte(`{"a":1,"b":{"c":1,"c":2},"a":3}`))
	fmt.Println(doc.Value, doc.Warnings, err)
	// Output: map[a:3 b:map[c:2]] [duplicate field "b.c" duplicate field "a"] <nil>
}

func ExampleOptions_DecodeObject() {
	_, err := codec.Options{MaxBytes: 16}.DecodeObject([]byte(`{"data":{"k":"0123456789"}}`))
	var ce *codec.Error
	if errors.As(err, &ce) {
		fmt.Println(ce.StatusCode(), ce.Reason(), ce)
	}
	// Output: 413 RequestEntityTooLarge request entity too large: limit is 16
}

func ExampleOptions_DecodeStream() {
	docs, err := codec.Options{}.DecodeStream([]byte("a: 1\n---\nb: 2\n"))
	for _, d := range docs {
		fmt.Println(d.Line, d.Value)
	}
	fmt.Println(err)
	// Output:
	// 1 map[a:1]
	// 3 map[b:2]
	// <nil>
}

func ExampleOptions_DecodeDocuments() {
	_, err := codec.Options{}.DecodeDocuments([]byte("a: 1\n---\nb: [2\n"))
	var ce *codec.Error
	errors.As(err, &ce)
	fmt.Println(ce.Document, ce.Line, ce.StatusCode())
	fmt.Println(err)
	// Output:
	// 2 3 400
	// document 2: yaml: line 1: did not find expected ',' or ']'
}

func ExampleOptions_DecodeValue() {
	_, err := codec.Options{Format: codec.FormatJSON}.DecodeValue([]byte("{\"a\": 1,\n \"b\" 2}"))
	fmt.Println(err)
	// Output: json: line 2: invalid character '2' after object key
}

func ExampleOptions_ReadDocuments() {
	docs, err := codec.Options{MaxBytes: -1}.ReadDocuments("-", strings.NewReader("a: 1\n"))
	fmt.Println(docs, err)
	// Output: [map[a:1]] <nil>
}

func ExampleFlattenLists() {
	docs, _ := codec.DecodeDocuments([]byte(`
apiVersion: v1
kind: PodList
items:
- metadata: {name: p1}
- metadata: {name: p2}
`))
	flat, err := codec.FlattenLists(docs)
	for _, d := range flat {
		fmt.Println(d["apiVersion"], d["kind"], d["metadata"])
	}
	fmt.Println(err)
	// Output:
	// v1 Pod map[name:p1]
	// v1 Pod map[name:p2]
	// <nil>
}

func ExampleEncodeJSON() {
	b, err := codec.EncodeJSON(map[string]any{"z": int64(1), "a": "<b>", "f": 1e21})
	fmt.Println(string(b), err)
	// Output: {"a":"\u003cb\u003e","f":1e+21,"z":1} <nil>
}

func ExampleEncodeJSONIndent() {
	b, _ := codec.EncodeJSONIndent(map[string]any{"kind": "ConfigMap", "data": map[string]any{}})
	os.Stdout.Write(b)
	// Output:
	// {
	//     "data": {},
	//     "kind": "ConfigMap"
	// }
}

func ExampleEncodeYAML() {
	b, _ := codec.EncodeYAML(map[string]any{"kind": "ConfigMap", "data": map[string]any{"on": "yes"}, "list": []any{int64(1), "2"}})
	os.Stdout.Write(b)
	// Output:
	// data:
	//   "on": "yes"
	// kind: ConfigMap
	// list:
	// - 1
	// - "2"
}

func ExampleError() {
	_, err := codec.DecodeObject([]byte("metadata:\n  name: a\n  name: b\n"))
	var ce *codec.Error
	errors.As(err, &ce)
	fmt.Println(ce.Kind, ce.Line, ce.StatusCode(), ce.Reason())
	fmt.Println(ce.Violations)
	// Output:
	// Duplicate 3 400 BadRequest
	// [line 3: key "name" already set in map]
}

// The README tour: YAML read as the apiserver reads it, written as it writes it.
func ExampleDecodeObject_tour() {
	obj, _ := codec.DecodeObject([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3, paused: no}\n"))
	spec := obj["spec"].(map[string]any)
	fmt.Printf("%T %v\n", spec["replicas"], spec["paused"]) // YAML 1.1: no is false
	out, _ := codec.EncodeJSON(obj)
	fmt.Println(string(out))
	_, err := codec.DecodeObject([]byte("metadata:\n  name: a\n  name: b\n"))
	fmt.Println(err.(*codec.Error).Path, err.(*codec.Error).StatusCode())
	// Output:
	// int64 false
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"paused":false,"replicas":3}}
	// metadata.name 400
}
