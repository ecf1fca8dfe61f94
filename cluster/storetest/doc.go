// Package storetest is the conformance suite every cluster.Store passes: the in-memory store
// runs it in its tests, and so does any other storage (an etcd store) before it replaces it.
//
// # Usage
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) cluster.Store { return newMyStore(t) })
//	}
//
// Each subtest gets a fresh, empty store from the constructor.
//
// # Invariants
//
// The suite only calls the Store's methods, through the constructor's fresh store for each
// subtest; it keeps no state between subtests and needs no clock or network of its own.
//
// # Errors
//
// A store that differs from the contract fails the subtest with t.Errorf or t.Fatalf, naming
// the operation and what was expected; nothing is returned.
package storetest
