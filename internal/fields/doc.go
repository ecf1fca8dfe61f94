// Package fields is field selection as apimachinery's pkg/fields does it for the fieldSelector of
// list and watch requests: a conjunction of terms `field=value`, `field==value` and
// `field!=value` separated by commas, values escaped with backslashes (`\,`, `\=`, `\\`), matched
// against the set of selectable fields an object has (its kind's, see schema.SelectableFields).
// Reference: k8s.io/apimachinery v0.37.2 pkg/fields/selector.go.
//
// # Usage
//
//	sel, err := fields.Parse("metadata.name=web,status.phase!=Running")
//	sel, err = sel.Transform(convert) // the kind's label conversion: unsupported labels are errors
//	ok := sel.Matches(map[string]string{"metadata.name": "web", "status.phase": "Pending"})
//
// # Invariants
//
// Selectors are immutable values, safe for concurrent use. Terms are kept sorted as the reference
// sorts them before parsing, so errors name the first bad term in that order, as it does. The zero
// Selector selects everything.
//
// # Errors
//
// Parse returns apimachinery's messages word for word ("invalid selector: 'S'; can't understand
// 'T'", "invalid field selector: invalid escape sequence: \\x", "invalid field selector: unescaped
// character in value: 61"); Transform returns the conversion's error.
package fields
