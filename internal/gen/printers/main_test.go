package main

import (
	"errors"
	"testing"
)

// TestGeneratedCurrent: cluster/printercolumns.json is what the generator derives from the
// reference printers (skipped when k8s.io/kubernetes v1.37.2 is not in the module cache and
// cannot be downloaded).
func TestGeneratedCurrent(t *testing.T) {
	err := run("../../../cluster", true)
	if errors.Is(err, errNoSource) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}
