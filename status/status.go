package status

import (
	"encoding/json"
	"errors"
	"net/http"

	kjson "sigs.k8s.io/json"
)

// Reason is the machine-readable reason of a failure (metav1.StatusReason). It
// clarifies the HTTP code but does not override it.
type Reason string

// The reasons of metav1, with the same values.
const (
	ReasonUnknown               Reason = ""
	ReasonUnauthorized          Reason = "Unauthorized"
	ReasonForbidden             Reason = "Forbidden"
	ReasonNotFound              Reason = "NotFound"
	ReasonAlreadyExists         Reason = "AlreadyExists"
	ReasonConflict              Reason = "Conflict"
	ReasonGone                  Reason = "Gone"
	ReasonInvalid               Reason = "Invalid"
	ReasonServerTimeout         Reason = "ServerTimeout"
	ReasonStoreReadError        Reason = "StorageReadError"
	ReasonTimeout               Reason = "Timeout"
	ReasonTooManyRequests       Reason = "TooManyRequests"
	ReasonBadRequest            Reason = "BadRequest"
	ReasonMethodNotAllowed      Reason = "MethodNotAllowed"
	ReasonNotAcceptable         Reason = "NotAcceptable"
	ReasonRequestEntityTooLarge Reason = "RequestEntityTooLarge"
	ReasonUnsupportedMediaType  Reason = "UnsupportedMediaType"
	ReasonInternalError         Reason = "InternalError"
	ReasonExpired               Reason = "Expired"
	ReasonServiceUnavailable    Reason = "ServiceUnavailable"
)

// CauseType is the machine-readable kind of one cause (metav1.CauseType). The
// causes of a 422 Invalid carry the field.ErrorType of each field error.
type CauseType string

// The cause types of metav1, with the same values.
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeForbidden                CauseType = "FieldValueForbidden"
	CauseTypeTooLong                  CauseType = "FieldValueTooLong"
	CauseTypeTooMany                  CauseType = "FieldValueTooMany"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeTypeInvalid              CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)

// Cause is one reason for a failure (metav1.StatusCause).
type Cause struct {
	// Type is the kind of cause; JSON "reason".
	Type CauseType
	// Message is a human-readable description.
	Message string
	// Field is the rendered field path the cause is about, if any.
	Field string
}

// Details is the extended data of a failure (metav1.StatusDetails).
type Details struct {
	Name              string
	Group             string
	Kind              string
	UID               string
	Causes            []Cause
	RetryAfterSeconds int32
}

// Error is a failed API request as kube-apiserver reports it: a metav1.Status
// with status "Failure". Error() returns the message, as apimachinery's
// StatusError does; MarshalJSON writes the Status object the apiserver sends.
type Error struct {
	// Code is the HTTP status code; 0 is sent as 500, as the apiserver does.
	Code int32
	// Reason is the machine-readable reason.
	Reason Reason
	// Message is the human-readable message, and the text of Error().
	Message string
	// Details holds the name, group, kind, UID, causes and retry delay, or nil.
	Details *Details
	// Continue is the Status's metadata.continue: the token a 410 for an expired continue
	// token offers for an inconsistent remainder of the list.
	Continue string

	// err is the error this one was built from (Conflict, Forbidden,
	// InternalError, Invalid), returned by Unwrap. It is not serialised.
	err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// StatusCode returns the HTTP status code, 500 when Code is 0 (the apiserver's
// default for a failure without a code).
func (e *Error) StatusCode() int {
	if e.Code == 0 {
		return http.StatusInternalServerError
	}
	return int(e.Code)
}

// StatusReason returns the reason (the field is named Reason, hence the name).
func (e *Error) StatusReason() Reason { return e.Reason }

// Unwrap returns the error this one was built from, or nil. For Invalid it is
// the aggregate of the field errors, so errors.As reaches each *field.Error.
func (e *Error) Unwrap() error { return e.err }

// CodeOf returns the HTTP status code of err: that of the first error in its
// chain with a StatusCode() int method, 500 when there is none (the apiserver
// answers 500 for an error without status), and 0 when err is nil.
func CodeOf(err error) int {
	if err == nil {
		return 0
	}
	var c interface{ StatusCode() int }
	if errors.As(err, &c) {
		return c.StatusCode()
	}
	return http.StatusInternalServerError
}

// ReasonOf returns the reason of err: that of the first error in its chain (in
// the order errors.As visits it) with a StatusReason() Reason or a Reason()
// string method, or ReasonUnknown.
func ReasonOf(err error) Reason {
	r, _ := reasonOf(err)
	return r
}

func reasonOf(err error) (Reason, bool) {
	switch e := err.(type) {
	case nil:
		return ReasonUnknown, false
	case interface{ StatusReason() Reason }:
		return e.StatusReason(), true
	case interface{ Reason() string }:
		return Reason(e.Reason()), true
	case interface{ Unwrap() error }:
		return reasonOf(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if r, ok := reasonOf(inner); ok {
				return r, true
			}
		}
	}
	return ReasonUnknown, false
}

// wireStatus is metav1.Status as encoding/json writes it: same field order, same
// names, same omitempty rules (metadata, a struct, is always written).
type wireStatus struct {
	Kind       string       `json:"kind,omitempty"`
	APIVersion string       `json:"apiVersion,omitempty"`
	Metadata   wireListMeta `json:"metadata"`
	Status     string       `json:"status,omitempty"`
	Message    string       `json:"message,omitempty"`
	Reason     Reason       `json:"reason,omitempty"`
	Details    *wireDetails `json:"details,omitempty"`
	Code       int32        `json:"code,omitempty"`
}

type wireListMeta struct {
	Continue string `json:"continue,omitempty"`
}

type wireDetails struct {
	Name              string      `json:"name,omitempty"`
	Group             string      `json:"group,omitempty"`
	Kind              string      `json:"kind,omitempty"`
	UID               string      `json:"uid,omitempty"`
	Causes            []wireCause `json:"causes,omitempty"`
	RetryAfterSeconds int32       `json:"retryAfterSeconds,omitempty"`
}

type wireCause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// MarshalJSON writes e as the apiserver writes a failure status, byte for byte:
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
// "message":...,"reason":...,"details":{...},"code":...}, empty fields omitted,
// code 0 written as 500. (The apiserver's encoder adds a trailing newline.)
func (e Error) MarshalJSON() ([]byte, error) {
	w := wireStatus{
		Kind:       "Status",
		APIVersion: "v1",
		Status:     "Failure",
		Message:    e.Message,
		Reason:     e.Reason,
		Code:       int32(e.StatusCode()),
		Metadata:   wireListMeta{Continue: e.Continue},
	}
	if d := e.Details; d != nil {
		w.Details = &wireDetails{Name: d.Name, Group: d.Group, Kind: d.Kind, UID: d.UID,
			RetryAfterSeconds: d.RetryAfterSeconds}
		if len(d.Causes) > 0 {
			w.Details.Causes = make([]wireCause, len(d.Causes))
			for i, c := range d.Causes {
				w.Details.Causes[i] = wireCause(c)
			}
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a metav1.Status object (as MarshalJSON writes it, or as
// any apiserver sends it) into e. kind, apiVersion, metadata and status are not
// kept: an Error is always a failure.
func (e *Error) UnmarshalJSON(data []byte) error {
	var w struct {
		Message string       `json:"message"`
		Reason  Reason       `json:"reason"`
		Details *wireDetails `json:"details"`
		Code    int32        `json:"code"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &w); err != nil {
		return err
	}
	*e = Error{Code: w.Code, Reason: w.Reason, Message: w.Message}
	if d := w.Details; d != nil {
		e.Details = &Details{Name: d.Name, Group: d.Group, Kind: d.Kind, UID: d.UID,
			RetryAfterSeconds: d.RetryAfterSeconds}
		if len(d.Causes) > 0 {
			e.Details.Causes = make([]Cause, len(d.Causes))
			for i, c := range d.Causes {
				e.Details.Causes[i] = Cause(c)
			}
		}
	}
	return nil
}
