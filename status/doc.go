// Package status is the failure vocabulary of the Kubernetes API: an Error is a
// metav1.Status with status "Failure" (HTTP code, reason, message, details with
// name, group, kind, UID, causes and retry delay), built by constructors that
// mirror k8s.io/apimachinery/pkg/api/errors (NotFound, Conflict, Invalid, ...)
// with identical codes, reasons and messages, and marshalled to the exact JSON
// kube-apiserver sends, so an API server can return it as is. A PatchError is
// such an Error with the library error behind it, for a failed patch (package
// patch's and package merge's Error).
//
// # Usage
//
//	err := status.Conflict(status.GroupResource{Resource: "configmaps"}, "cm1",
//		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
//	fmt.Println(err)                 // Operation cannot be fulfilled on configmaps "cm1": the object has been ...
//	fmt.Println(status.CodeOf(err))  // 409, also through fmt.Errorf("...: %w", err)
//	body, _ := json.Marshal(err)     // {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...,"code":409}
//
// # Invariants
//
// Constructors are pure: they return a fresh *Error and never keep or modify
// their slice arguments. Error() is the message, as apimachinery's
// StatusError.Error(). MarshalJSON writes the fields in metav1.Status order with
// its omitempty rules and a code of 0 as 500, as the apiserver's
// ErrorToAPIStatus does; UnmarshalJSON reads any Status object
// (case-sensitively, like the apiserver's JSON decoder). The package has no
// global state and imports only field.
//
// # Errors
//
// *Error unwraps to the error it was built from (Conflict, Forbidden,
// InternalError) or, for Invalid, to the aggregate of the field errors, so
// errors.As finds the *field.Error values. CodeOf and ReasonOf read the code and
// reason of any error in a chain that has a StatusCode() int method (and a
// StatusReason() Reason or Reason() string method), so other packages' errors
// work with them without importing this package's type.
package status
