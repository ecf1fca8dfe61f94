package managedfields_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/managedfields"
)

// TestWriteWideTable: the SHARED WITH column names the other managers owning one of the entry's
// fields; WriteTable's columns are unchanged.
func TestWriteWideTable(t *testing.T) {
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[
	 {"manager":"a","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{}}}},
	 {"manager":"b","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{},"f:y":{}}}},
	 {"manager":"c","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:z":{}}}}]}}`), &obj))
	var wide, narrow bytes.Buffer
	require.NoError(t, managedfields.WriteWideTable(&wide, obj, ""))
	require.NoError(t, managedfields.WriteTable(&narrow, obj, ""))
	assert.Equal(t, `MANAGER  OPERATION  APIVERSION  TIME    SUBRESOURCE  FIELDS           SHARED WITH
a        Apply      v1          <none>  <none>       .data.x          b
b        Apply      v1          <none>  <none>       .data.x,.data.y  a
c        Update     v1          <none>  <none>       .data.z          <none>
`, wide.String())
	assert.Equal(t, `MANAGER  OPERATION  APIVERSION  TIME    SUBRESOURCE  FIELDS
a        Apply      v1          <none>  <none>       .data.x
b        Apply      v1          <none>  <none>       .data.x,.data.y
c        Update     v1          <none>  <none>       .data.z
`, narrow.String())
	wide.Reset()
	require.NoError(t, managedfields.WriteWideTable(&wide, obj, ".data.y"))
	assert.Equal(t, `MANAGER  OPERATION  APIVERSION  TIME    SUBRESOURCE  FIELDS   SHARED WITH
b        Apply      v1          <none>  <none>       .data.y  <none>
`, wide.String(), "only the fields under --field count")
}
