package field

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ErrorType is the machine-readable kind of a field error. Its values are the
// strings apimachinery uses, which are also the metav1.CauseType values of the
// causes of a 422 Invalid status.
type ErrorType string

// The error types of apimachinery's field package, with the same values.
const (
	// ErrorTypeNotFound reports a value that was looked up and not found.
	ErrorTypeNotFound ErrorType = "FieldValueNotFound"
	// ErrorTypeRequired reports a missing value (empty string, null, empty list).
	ErrorTypeRequired ErrorType = "FieldValueRequired"
	// ErrorTypeDuplicate reports a value that must be unique and is not.
	ErrorTypeDuplicate ErrorType = "FieldValueDuplicate"
	// ErrorTypeInvalid reports a malformed value.
	ErrorTypeInvalid ErrorType = "FieldValueInvalid"
	// ErrorTypeNotSupported reports a value outside an enumeration.
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	// ErrorTypeForbidden reports a well-formed value not permitted here.
	ErrorTypeForbidden ErrorType = "FieldValueForbidden"
	// ErrorTypeTooLong reports a value that is too long; the value is not printed.
	ErrorTypeTooLong ErrorType = "FieldValueTooLong"
	// ErrorTypeTooMany reports a list with too many items.
	ErrorTypeTooMany ErrorType = "FieldValueTooMany"
	// ErrorTypeTooFew reports a list with too few items.
	ErrorTypeTooFew ErrorType = "FieldValueTooFew"
	// ErrorTypeInternal reports a failure unrelated to the input.
	ErrorTypeInternal ErrorType = "InternalError"
	// ErrorTypeTypeInvalid reports a value of the wrong schema type.
	ErrorTypeTypeInvalid ErrorType = "FieldValueTypeInvalid"
	// ErrorTypeTooShort reports a value that is too short.
	ErrorTypeTooShort ErrorType = "FieldValueTooShort"
)

// String returns the human-readable phrase apimachinery prints for t
// ("Invalid value", "Required value", ...).
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid, ErrorTypeTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeTooFew:
		return "Too few"
	case ErrorTypeInternal:
		return "Internal error"
	case ErrorTypeTooShort:
		return "Too short"
	default:
		return fmt.Sprintf("<unknown error %q>", string(t))
	}
}

// OmitValueType is the type of the BadValue that tells ErrorBody to print the
// error type without a value, as apimachinery's TooMany does for a negative
// actual quantity. Compare with OmitValueType{}.
type OmitValueType struct{}

// Error is a validation error about the value at one field path. It prints
// exactly like apimachinery's *field.Error.
type Error struct {
	// Type is the kind of error.
	Type ErrorType
	// Field is the rendered path of the offending field (Path.String).
	Field string
	// BadValue is the offending value. It is printed for the types that show a
	// value: int64, int32, float64, float32 and bool with %v, strings quoted,
	// anything else as JSON. OmitValueType{} prints no value.
	BadValue any
	// Detail is a human-readable explanation, appended after ": " when not empty.
	Detail string
}

// Error returns "field: body", for example
// `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody returns the message without the field path; it is the message of the
// matching cause in a 422 Invalid status.
func (e *Error) ErrorBody() string {
	var s string
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong, ErrorTypeTooShort, ErrorTypeInternal:
		s = e.Type.String()
	case ErrorTypeInvalid, ErrorTypeTypeInvalid, ErrorTypeNotSupported,
		ErrorTypeNotFound, ErrorTypeDuplicate, ErrorTypeTooMany, ErrorTypeTooFew:
		s = e.Type.String()
		if _, omit := e.BadValue.(OmitValueType); !omit {
			s += ": " + formatValue(e.BadValue)
		}
	default:
		// apimachinery reports an unknown type as an internal error about itself.
		s = ErrorTypeInternal.String() + ": unhandled error code: " + e.Type.String() + ": please report this"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// formatValue renders a bad value as apimachinery's ErrorBody does.
func formatValue(v any) string {
	switch t := v.(type) {
	case int64, int32, float64, float32, bool:
		return fmt.Sprintf("%v", t)
	case string:
		return strconv.Quote(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", v)
}

// Unwrap returns the BadValue when it is an error (as for InternalError), so
// errors.Is and errors.As reach the underlying cause; otherwise nil.
func (e *Error) Unwrap() error {
	if err, ok := e.BadValue.(error); ok {
		return err
	}
	return nil
}

// Invalid reports a malformed value (failed pattern, out of range, ...).
func Invalid(p Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// TypeInvalid reports a value whose type does not match the schema.
func TypeInvalid(p Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// NotFound reports a value that was looked up and not found.
func NotFound(p Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: p.String(), BadValue: value}
}

// Required reports a missing value (empty string, null or empty list).
func Required(p Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: p.String(), BadValue: "", Detail: detail}
}

// Duplicate reports a value that must be unique and is not.
func Duplicate(p Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: p.String(), BadValue: value}
}

// NotSupported reports a value outside an enumeration; the detail lists the
// valid values, each quoted, in the order given.
func NotSupported[T ~string](p Path, value any, valid []T) *Error {
	detail := ""
	if len(valid) > 0 {
		quoted := make([]string, len(valid))
		for i, v := range valid {
			quoted[i] = strconv.Quote(fmt.Sprint(v))
		}
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: p.String(), BadValue: value, Detail: detail}
}

// Forbidden reports a well-formed value that is not permitted here.
func Forbidden(p Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: p.String(), BadValue: "", Detail: detail}
}

// TooLong reports a value longer than maxLength bytes; the value itself is not
// kept. A negative maxLength gives the detail "value is too long".
func TooLong(p Path, _ any, maxLength int) *Error {
	return &Error{Type: ErrorTypeTooLong, Field: p.String(), BadValue: "<value omitted>",
		Detail: limitDetail("may not be more than", maxLength, "byte", "value is too long")}
}

// TooLongCharacters reports a string longer than maxLength characters (runes);
// the value itself is not kept.
func TooLongCharacters[T ~string](p Path, _ T, maxLength int) *Error {
	return &Error{Type: ErrorTypeTooLong, Field: p.String(), BadValue: "<value omitted>",
		Detail: limitDetail("may not be more than", maxLength, "character", "value is too long")}
}

// TooShort reports a string shorter than minLength characters.
func TooShort[T ~string](p Path, value T, minLength int) *Error {
	return &Error{Type: ErrorTypeTooShort, Field: p.String(), BadValue: value,
		Detail: limitDetail("must be at least", minLength, "character", "value is too short")}
}

// TooMany reports a list with more than maxQuantity items. A negative
// actualQuantity leaves the count out of the message.
func TooMany(p Path, actualQuantity, maxQuantity int) *Error {
	var actual any = OmitValueType{}
	if actualQuantity >= 0 {
		actual = actualQuantity
	}
	return &Error{Type: ErrorTypeTooMany, Field: p.String(), BadValue: actual,
		Detail: limitDetail("must have at most", maxQuantity, "item", "has too many items")}
}

// TooFew reports a list with fewer than minQuantity items.
func TooFew(p Path, actualQuantity, minQuantity int) *Error {
	return &Error{Type: ErrorTypeTooFew, Field: p.String(), BadValue: actualQuantity,
		Detail: limitDetail("must have at least", minQuantity, "item", "has too few items")}
}

// InternalError reports a failure unrelated to the input. The error is kept as
// the BadValue (Unwrap returns it) and its text is the detail; a nil err is
// reported as "<nil>".
func InternalError(p Path, err error) *Error {
	detail := "<nil>"
	if err != nil {
		detail = err.Error()
	}
	return &Error{Type: ErrorTypeInternal, Field: p.String(), BadValue: err, Detail: detail}
}

// limitDetail words a limit as apimachinery does: "<phrase> N <unit>s", singular
// for 1, or the fallback for a negative limit.
func limitDetail(phrase string, limit int, unit, fallback string) string {
	if limit < 0 {
		return fallback
	}
	if limit != 1 {
		unit += "s"
	}
	return phrase + " " + strconv.Itoa(limit) + " " + unit
}
