// Package importgraph holds the test that enforces the import rules of shared/DESIGN.md: the
// floors of its "Layers" (floors: a package imports only lower floors, never a sibling on its
// own), the leaves every package may import, and where the heavier third-party modules and no
// k8s.io module may be imported. It has no code of its own: TestImportGraph reads `go list -json`
// of the module, TestFloors says DESIGN.md's arrows one by one.
//
// # Usage
//
//	go test ./internal/importgraph
//
// A package DESIGN.md does not place fails the test until it is added to floors.
//
// # Invariants
//
// The test only reads the module's package list (it runs the go command); it changes nothing.
//
// # Errors
//
// Each forbidden import is one test error naming the importing package, the import and the
// floors of both.
package importgraph
