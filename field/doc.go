// Package field names values inside an object and reports what is wrong with
// them, in the vocabulary and with the exact wording of apimachinery's
// k8s.io/apimachinery/pkg/util/validation/field, which kube-apiserver uses for
// every validation message.
//
// A Path is an immutable, comparable value ("spec.containers[0].image",
// "metadata.labels[app]"). An Error names the Path (rendered), a type
// (Invalid, Required, Forbidden, ...), the offending value and a detail, and
// prints like apimachinery: `spec.replicas: Invalid value: -1: must be greater
// than or equal to 0`. An ErrorList collects errors; ToAggregate turns it into
// one error printed like apimachinery's aggregate ("[a, b]").
//
// # Usage
//
//	spec := field.NewPath("spec")
//	var errs field.ErrorList
//	if replicas < 0 {
//		errs = append(errs, field.Invalid(spec.Child("replicas"), replicas, "must be greater than or equal to 0"))
//	}
//	if err := errs.ToAggregate(); err != nil {
//		return err // prints "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
//	}
//
// # Invariants
//
// Paths are values: Child, Index and Key return new paths and never alter or
// share mutable memory with the receiver, so sibling paths built from one parent
// are independent and paths are safe for concurrent use. The zero Path is the
// empty path and renders as "<nil>", as a nil *field.Path does in apimachinery.
// Constructors return fresh *Error values; ErrorList methods never modify the
// list. The package has no global state.
//
// # Errors
//
// *Error implements error; its Unwrap returns the BadValue when that is an error
// (InternalError), so errors.Is/As reach the cause. ToAggregate returns an error
// that unwraps to every kept *Error, so errors.As(err, &fieldErr) finds the first
// one. Use status.Invalid to turn an ErrorList into a 422 Invalid status error.
package field
