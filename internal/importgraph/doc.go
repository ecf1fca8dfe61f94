// Package importgraph holds the tests that enforce the import rules of shared/DESIGN.md. Its
// model is one table, floors: every package tree of DESIGN.md's table (field, internal, status,
// schema and its parts, the mechanisms, the semantics, controllers, registry, cluster,
// cmd/writepath) on its floor of "Layers". A package takes the floor of the longest tree it is
// in (cmd/writepath/cli that of cmd/writepath, cluster/storetest that of cluster); it imports
// only packages of lower floors, never a sibling on its own floor; the leaves may be imported by
// every package; the heavier third-party modules only where they are named, and no k8s.io
// module anywhere. It has no code of its own: TestEveryPackageHasAFloor and TestImportGraph read
// `go list -json` of the module, TestFloors and TestFloorOf say DESIGN.md's arrows and rows one
// by one.
//
// # Usage
//
//	go test ./internal/importgraph
//
// A package under no tree of floors fails TestEveryPackageHasAFloor until its tree is added, as
// DESIGN.md's table places it.
//
// # Invariants
//
// The tests only read the module's package list (they run the go command); they change nothing.
//
// # Errors
//
// Each package without a floor is one test error naming it; each forbidden import one naming the
// importing package, the import and the floors of both.
package importgraph
