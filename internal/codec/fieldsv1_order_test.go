package codec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFieldsV1KeysInFieldManagerOrder: a managedFields entry's fieldsV1 is written in the order
// structured-merge-diff writes it (recorded: testdata/registry/recorded/service-alloc.json,
// create-nodeport: the port 80 key before 443), everything else bytewise.
func TestFieldsV1KeysInFieldManagerOrder(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"managedFields": []any{map[string]any{
		"manager": "m",
		"fieldsV1": map[string]any{"f:spec": map[string]any{"f:ports": map[string]any{
			".":                                 map[string]any{},
			`k:{"port":443,"protocol":"TCP"}`:   map[string]any{".": map[string]any{}, "f:port": map[string]any{}},
			`k:{"port":80,"protocol":"TCP"}`:    map[string]any{".": map[string]any{}, "f:port": map[string]any{}},
			`k:{"port":80,"protocol":"UDP"}`:    map[string]any{},
			`k:{"port":1000,"protocol":"SCTP"}`: map[string]any{},
		}}},
	}}}, "other": map[string]any{"k:b": int64(1), "k:a": int64(2), ".": int64(3)}}
	b, err := EncodeJSON(obj)
	require.NoError(t, err)
	assert.Equal(t, `{"metadata":{"managedFields":[{"fieldsV1":{"f:spec":{"f:ports":{".":{},`+
		`"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}},"k:{\"port\":80,\"protocol\":\"UDP\"}":{},`+
		`"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:port":{}},"k:{\"port\":1000,\"protocol\":\"SCTP\"}":{}}}},"manager":"m"}]},`+
		`"other":{".":3,"k:a":2,"k:b":1}}`, string(b))
	assert.Equal(t, -1, compareFieldsV1Keys("f:a", `k:{"x":1}`), "field names before keys")
	assert.Equal(t, -1, compareFieldsV1Keys(`v:"a"`, "i:0"), "values before indexes")
}
