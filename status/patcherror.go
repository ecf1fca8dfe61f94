package status

// PatchError is a failed patch: Status is what kube-apiserver answers (its code, reason and
// message) and Cause, when there is one, the error behind it (the patch library's text, which
// the apiserver does not send for a 422). Package patch's and package merge's Error are this
// type.
type PatchError struct {
	Status *Error
	Cause  error
}

// Error returns the apiserver's message.
func (e *PatchError) Error() string { return e.Status.Error() }

// StatusCode returns the HTTP status code.
func (e *PatchError) StatusCode() int { return e.Status.StatusCode() }

// Reason returns the status reason ("Invalid", "BadRequest", ...).
func (e *PatchError) Reason() string { return string(e.Status.Reason) }

// Unwrap returns the status error and the cause.
func (e *PatchError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Status}
	}
	return []error{e.Status, e.Cause}
}
