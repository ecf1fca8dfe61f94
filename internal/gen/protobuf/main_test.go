package main

import "testing"

// TestGeneratedCurrent: internal/codec/protobuf's table is what the generator writes from the
// catalogue and the reference Go types.
func TestGeneratedCurrent(t *testing.T) {
	if err := run("../../codec/protobuf", "../../../schema/data/kinds.json", true); err != nil {
		t.Fatal(err)
	}
}
