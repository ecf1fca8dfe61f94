package protobuf_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/codec/protobuf"
)

// FuzzDecode: any input decodes or fails without panicking and without touching the input;
// what decodes re-encodes, and the re-encoding is a fixpoint (decode(encode(x)) encodes to the
// same bytes).
func FuzzDecode(f *testing.F) {
	for _, obj := range []map[string]any{
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "labels": map[string]any{"a": "b"}}, "data": map[string]any{"k": "v"}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(3), "strategy": map[string]any{"rollingUpdate": map[string]any{"maxSurge": "25%"}}}},
		{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": int64(404)},
		{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": "100m"}}}}}},
	} {
		data, err := protobuf.Encode(obj)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		obj, err := protobuf.Decode(data)
		if !bytes.Equal(before, data) {
			t.Fatal("Decode modified its input")
		}
		if err != nil {
			return
		}
		if _, err := codec.EncodeJSON(obj); err != nil {
			t.Fatalf("decoded object does not encode as JSON: %v", err)
		}
		once, err := protobuf.Encode(obj)
		if err != nil {
			t.Fatalf("decoded object does not re-encode: %v", err)
		}
		again, err := protobuf.Decode(once)
		require.NoError(t, err)
		twice, err := protobuf.Encode(again)
		require.NoError(t, err)
		if !bytes.Equal(once, twice) {
			t.Fatalf("re-encoding is not a fixpoint:\n%q\n%q", once, twice)
		}
	})
}

// FuzzEncode: Encode never panics or modifies its input, on objects decoded from any JSON.
func FuzzEncode(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"Secret","data":{"a":"AAE="},"type":"Opaque"}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":80,"targetPort":"http"}]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","additionalProperties":false,"x-kubernetes-preserve-unknown-fields":true,"default":{"a":1}}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := codec.DecodeObject(data)
		if err != nil {
			return
		}
		before, err := codec.EncodeJSON(obj)
		require.NoError(t, err)
		out, err := protobuf.Encode(obj)
		after, _ := codec.EncodeJSON(obj)
		if !bytes.Equal(before, after) {
			t.Fatal("Encode modified its input")
		}
		if err != nil {
			return
		}
		if _, err := protobuf.Decode(out); err != nil {
			t.Fatalf("Encode's output does not decode: %v", err)
		}
	})
}
