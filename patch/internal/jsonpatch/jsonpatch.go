package jsonpatch

import "encoding/json"

// Operation is one operation: its members as raw JSON, a JSON null member
// decoded as a nil pointer.
type Operation map[string]*json.RawMessage

// Patch is the decoded document; a null element is a nil Operation.
type Patch []Operation

// Decode decodes buf with encoding/json.
func Decode(buf []byte) (Patch, error) {
	var p Patch
	if err := json.Unmarshal(buf, &p); err != nil {
		return nil, err
	}
	return p, nil
}
