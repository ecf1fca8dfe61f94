package main

import (
	"errors"
	"testing"
)

// TestGeneratedCurrent: cluster/printercolumns.json is what the generator derives from the
// reference printers (skipped when k8s.io/kubernetes v1.37.2 is not in the module cache: the
// test downloads nothing; `go mod download k8s.io/kubernetes@v1.37.2` makes it run).
func TestGeneratedCurrent(t *testing.T) {
	err := run("../../../cluster", true, false)
	if errors.Is(err, errNoSource) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}
