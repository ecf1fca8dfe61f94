package protobuf_test

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec/protobuf"
)

// TestGeneratedTableUpToDate regenerates table.json.gz with internal/gen/protobuf and fails if
// the committed file differs.
func TestGeneratedTableUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not found")
	}
	cmd := exec.Command(goBin, "run", "-C", "../../gen", "./protobuf", "-verify", "-out", "../codec/protobuf")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "table.json.gz is stale or the generator failed:\n%s", out)
}

// TestDecodeZeroValues: a decoded object carries the fields without omitempty with their zero
// values, as the apiserver's JSON of the typed object does.
func TestDecodeZeroValues(t *testing.T) {
	data, err := protobuf.Encode(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}})
	require.NoError(t, err)
	obj, err := protobuf.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p"},
		"spec":     map[string]any{"containers": nil},
		"status":   map[string]any{},
	}, obj)
}

// TestEncodeRejects: values the typed decoder refuses are errors, not guesses.
func TestEncodeRejects(t *testing.T) {
	for name, obj := range map[string]map[string]any{
		"unknown kind":     {"apiVersion": "example.com/v1", "kind": "Widget"},
		"string for int":   {"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": "3"}},
		"int32 overflow":   {"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(1) << 40}},
		"bad quantity":     {"apiVersion": "v1", "kind": "ResourceQuota", "spec": map[string]any{"hard": map[string]any{"cpu": "lots"}}},
		"bad base64":       {"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"k": "!!"}},
		"object for array": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"finalizers": map[string]any{}}},
		"bad time":         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"creationTimestamp": "yesterday"}},
	} {
		_, err := protobuf.Encode(obj)
		assert.Error(t, err, name)
	}
}

// TestDecodeRejects: malformed documents are errors.
func TestDecodeRejects(t *testing.T) {
	good, err := protobuf.Encode(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}})
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"no magic":  []byte(`{"kind":"ConfigMap"}`),
		"truncated": good[:len(good)-6],
		"no kind":   append([]byte("k8s\x00"), 0x0a, 0x00),
		"bad kind":  append([]byte("k8s\x00"), 0x0a, 0x06, 0x0a, 0x01, 'x', 0x12, 0x01, 'y'),
	} {
		_, err := protobuf.Decode(data)
		assert.Error(t, err, name)
	}
}

func TestWatchEventRoundTrip(t *testing.T) {
	obj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "n", "resourceVersion": "7"}}
	a, err := protobuf.EncodeWatchEvent("ADDED", obj)
	require.NoError(t, err)
	b, err := protobuf.EncodeWatchEvent("DELETED", obj)
	require.NoError(t, err)
	typ, got, rest, err := protobuf.ReadWatchEvent(append(a, b...))
	require.NoError(t, err)
	assert.Equal(t, "ADDED", typ)
	assert.Equal(t, "n", got["metadata"].(map[string]any)["name"])
	typ, _, rest, err = protobuf.ReadWatchEvent(rest)
	require.NoError(t, err)
	assert.Equal(t, "DELETED", typ)
	assert.Empty(t, rest)
}

// An omitempty []byte field written with no bytes (gogo's Marshal of []byte{}) decodes as "",
// and "" encodes as the present, empty field (recorded: testdata/cluster/scenarios bytes-csr
// get-pb, whose status is 1a 02 12 00); an absent one stays absent.
func TestEmptyBytesField(t *testing.T) {
	obj := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": "c"}, "spec": map[string]any{"request": "", "signerName": "x/y"},
		"status": map[string]any{"certificate": ""}}
	data, err := protobuf.Encode(obj)
	require.NoError(t, err)
	assert.True(t, bytes.HasSuffix(data, []byte{0x1a, 0x02, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00}), "status holds the empty certificate: %x", data)
	back, err := protobuf.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"certificate": ""}, back["status"])

	obj["status"] = map[string]any{}
	data, err = protobuf.Encode(obj)
	require.NoError(t, err)
	back, err = protobuf.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{}, back["status"])
}
