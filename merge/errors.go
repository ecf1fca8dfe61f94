package merge

import (
	"errors"

	"github.com/writepath/writepath/status"
)

// Error is a failed patch: Status is what kube-apiserver answers (code,
// reason, message) and Cause, when there is one, is the underlying error.
type Error = status.PatchError

func fail(st *status.Error, cause error) error { return &Error{Status: st, Cause: cause} }

// Errors of merge patch creation and of strategic merge patch application,
// with apimachinery's texts (k8s.io/apimachinery/pkg/util/mergepatch).
var (
	ErrBadJSONDoc                           = errors.New("invalid JSON document")
	ErrNoListOfLists                        = errors.New("lists of lists are not supported")
	ErrBadPatchFormatForPrimitiveList       = errors.New("invalid patch format of primitive list")
	ErrBadPatchFormatForRetainKeys          = errors.New("invalid patch format of retainKeys")
	ErrBadPatchFormatForSetElementOrderList = errors.New("invalid patch format of setElementOrder list")
	ErrPatchContentNotMatchRetainKeys       = errors.New("patch content doesn't match retainKeys list")
	ErrUnsupportedStrategicMergePatchFormat = errors.New("strategic merge patch format is not supported")
)

// ConflictError is the three-way conflict kubectl reports: the changes from
// current to modified touch what the changes from original to modified delete.
type ConflictError struct{ message string }

func (e *ConflictError) Error() string { return e.message }

// PreconditionError is a failed precondition of a three-way patch ("precondition
// failed for: map[...]").
type PreconditionError struct{ message string }

func (e *PreconditionError) Error() string { return e.message }
