// Package jsonpath is kubectl's JSONPath template language (`kubectl get -o jsonpath=...`), written
// for writepath's object model: text with {actions} that select fields of a value and print them.
//
// The syntax and the printing are kubectl 1.37's (k8s.io/client-go/util/jsonpath): fields
// (.metadata.name, with \. for a dot inside a key), the current object @ or $, wildcards (.* and
// [*]), indexes and slices ([0], [-1], [1:3], [::2]), unions ([0,2], ['a','b']), dictionary keys
// (['name']), filters ([?(@.kind=="Pod")], with ==, !=, <, >, <=, >= and existence [?(@.x)]),
// recursive descent (..name), quoted strings ({"\n"}), and {range EXPR}...{end}. An action's
// results are printed separated by spaces: strings as they are, numbers and booleans as Go prints
// them, maps and lists as compact JSON.
//
// # Usage
//
//	t, err := jsonpath.Parse(`{range .items[*]}{.metadata.name}{"\n"}{end}`)
//	if err != nil { ... }
//	err = t.Execute(os.Stdout, list, jsonpath.Options{AllowMissingKeys: true})
//
// # Invariants
//
// A Template is immutable once parsed and safe for concurrent use; Execute never changes data.
// Maps are walked in sorted key order, so output is deterministic (kubectl walks Go maps in their
// random order: the set of results is the same, their order may differ).
//
// # Errors
//
// Parse and Execute return kubectl's messages ("unclosed action", "array index out of bounds:
// index 3, length 1", "name is not found"); callers add kubectl's "error parsing jsonpath"
// or "error executing jsonpath" prefix.
package jsonpath
