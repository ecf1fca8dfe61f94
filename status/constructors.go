package status

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/writepath/writepath/field"
)

// GroupResource names a resource in an API group ("deployments.apps"; the core
// group is "").
type GroupResource struct {
	Group    string
	Resource string
}

// String returns "resource.group", or "resource" for the core group.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// IsEmpty reports whether both group and resource are empty.
func (gr GroupResource) IsEmpty() bool { return gr.Group == "" && gr.Resource == "" }

// GroupKind names a kind in an API group ("Deployment.apps").
type GroupKind struct {
	Group string
	Kind  string
}

// String returns "Kind.group", or "Kind" for the core group.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// errText prints err as fmt's %v does (apimachinery formats causes with %v), so
// a nil error reads "<nil>".
func errText(err error) string {
	return fmt.Sprint(err)
}

// NotFound returns the 404 NotFound error for the named object:
// `configmaps "cm1" not found`.
func NotFound(gr GroupResource, name string) *Error {
	return &Error{Code: http.StatusNotFound, Reason: ReasonNotFound,
		Message: fmt.Sprintf("%s %q not found", gr, name),
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name}}
}

// AlreadyExists returns the 409 AlreadyExists error for a create of an existing
// name: `configmaps "cm1" already exists`.
func AlreadyExists(gr GroupResource, name string) *Error {
	return &Error{Code: http.StatusConflict, Reason: ReasonAlreadyExists,
		Message: fmt.Sprintf("%s %q already exists", gr, name),
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name}}
}

// GenerateNameConflict returns the 409 AlreadyExists error the apiserver returns
// when a name generated from metadata.generateName is already taken.
func GenerateNameConflict(gr GroupResource, name string, retryAfterSeconds int) *Error {
	return &Error{Code: http.StatusConflict, Reason: ReasonAlreadyExists,
		Message: fmt.Sprintf("%s %q already exists, the server was not able to generate a unique name for the object", gr, name),
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name, RetryAfterSeconds: int32(retryAfterSeconds)}}
}

// Unauthorized returns the 401 Unauthorized error; an empty reason reads
// "not authorized".
func Unauthorized(reason string) *Error {
	if reason == "" {
		reason = "not authorized"
	}
	return &Error{Code: http.StatusUnauthorized, Reason: ReasonUnauthorized, Message: reason}
}

// Forbidden returns the 403 Forbidden error: `pods "p" is forbidden: <err>`,
// `pods is forbidden: <err>` without a name, `forbidden: <err>` without a
// resource. It unwraps to err.
func Forbidden(gr GroupResource, name string, err error) *Error {
	var msg string
	switch {
	case gr.IsEmpty():
		msg = "forbidden: " + errText(err)
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", gr, errText(err))
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %s", gr, name, errText(err))
	}
	return &Error{Code: http.StatusForbidden, Reason: ReasonForbidden, Message: msg,
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name}, err: err}
}

// Conflict returns the 409 Conflict error of an update that cannot be applied:
// `Operation cannot be fulfilled on configmaps "cm1": <err>`. It unwraps to err.
func Conflict(gr GroupResource, name string, err error) *Error {
	return &Error{Code: http.StatusConflict, Reason: ReasonConflict,
		Message: fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr, name, errText(err)),
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name}, err: err}
}

// ApplyConflict returns the 409 Conflict error of a server-side apply with
// conflicting field managers; the causes list the conflicts. causes is copied.
func ApplyConflict(causes []Cause, message string) *Error {
	return &Error{Code: http.StatusConflict, Reason: ReasonConflict, Message: message,
		Details: &Details{Causes: append([]Cause(nil), causes...)}}
}

// Gone returns the 410 Gone error (deprecated in apimachinery in favour of
// ResourceExpired, still used by the apiserver).
func Gone(message string) *Error {
	return &Error{Code: http.StatusGone, Reason: ReasonGone, Message: message}
}

// ResourceExpired returns the 410 Expired error (too old resourceVersion).
func ResourceExpired(message string) *Error {
	return &Error{Code: http.StatusGone, Reason: ReasonExpired, Message: message}
}

// Invalid returns the 422 Invalid error for an object that failed validation:
// `Deployment.apps "d" is invalid: [spec.replicas: Invalid value: -1: ...]`.
// Each non-nil field error becomes a cause (type, message without the path,
// field), duplicates included, as apimachinery builds them; the message lists
// the errors as field.ErrorList.ToAggregate prints them. The error unwraps to
// that aggregate, so errors.As reaches each *field.Error. errs is not modified.
func Invalid(gk GroupKind, name string, errs field.ErrorList) *Error {
	causes := make([]Cause, 0, len(errs))
	for _, fe := range errs {
		if fe == nil {
			continue
		}
		causes = append(causes, Cause{Type: CauseType(fe.Type), Message: fe.ErrorBody(), Field: fe.Field})
	}
	e := &Error{Code: http.StatusUnprocessableEntity, Reason: ReasonInvalid,
		Details: &Details{Group: gk.Group, Kind: gk.Kind, Name: name, Causes: causes}}
	if agg := errs.ToAggregate(); agg != nil {
		e.Message = fmt.Sprintf("%s %q is invalid: %s", gk, name, agg.Error())
		e.err = agg
	} else {
		e.Message = fmt.Sprintf("%s %q is invalid", gk, name)
	}
	return e
}

// BadRequest returns the 400 BadRequest error with reason as the message.
func BadRequest(reason string) *Error {
	return &Error{Code: http.StatusBadRequest, Reason: ReasonBadRequest, Message: reason}
}

// TooManyRequests returns the 429 TooManyRequests error with a retry delay.
func TooManyRequests(message string, retryAfterSeconds int) *Error {
	return &Error{Code: http.StatusTooManyRequests, Reason: ReasonTooManyRequests, Message: message,
		Details: &Details{RetryAfterSeconds: int32(retryAfterSeconds)}}
}

// TooManyRequestsError returns the 429 TooManyRequests error without details:
// "Too many requests: <message>".
func TooManyRequestsError(message string) *Error {
	return &Error{Code: http.StatusTooManyRequests, Reason: ReasonTooManyRequests,
		Message: "Too many requests: " + message}
}

// ServiceUnavailable returns the 503 ServiceUnavailable error.
func ServiceUnavailable(reason string) *Error {
	return &Error{Code: http.StatusServiceUnavailable, Reason: ReasonServiceUnavailable, Message: reason}
}

// MethodNotSupported returns the 405 MethodNotAllowed error:
// `create is not supported on resources of kind "bindings"`.
func MethodNotSupported(gr GroupResource, action string) *Error {
	return &Error{Code: http.StatusMethodNotAllowed, Reason: ReasonMethodNotAllowed,
		Message: fmt.Sprintf("%s is not supported on resources of kind %q", action, gr),
		Details: &Details{Group: gr.Group, Kind: gr.Resource}}
}

// ServerTimeout returns the 500 ServerTimeout error of an operation that could
// not complete in time and should be retried.
func ServerTimeout(gr GroupResource, operation string, retryAfterSeconds int) *Error {
	return &Error{Code: http.StatusInternalServerError, Reason: ReasonServerTimeout,
		Message: fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, gr),
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: operation, RetryAfterSeconds: int32(retryAfterSeconds)}}
}

// InternalError returns the 500 InternalError error:
// "Internal error occurred: <err>", with err's text as the only cause. It
// unwraps to err.
func InternalError(err error) *Error {
	causeText := "<nil>" // apimachinery would panic on a nil error
	if err != nil {
		causeText = err.Error()
	}
	return &Error{Code: http.StatusInternalServerError, Reason: ReasonInternalError,
		Message: "Internal error occurred: " + errText(err),
		Details: &Details{Causes: []Cause{{Message: causeText}}}, err: err}
}

// Timeout returns the 504 Timeout error: "Timeout: <message>" (apimachinery's
// NewTimeoutError).
func Timeout(message string, retryAfterSeconds int) *Error {
	return &Error{Code: http.StatusGatewayTimeout, Reason: ReasonTimeout, Message: "Timeout: " + message,
		Details: &Details{RetryAfterSeconds: int32(retryAfterSeconds)}}
}

// RequestEntityTooLarge returns the 413 RequestEntityTooLarge error:
// "Request entity too large: <message>".
func RequestEntityTooLarge(message string) *Error {
	return &Error{Code: http.StatusRequestEntityTooLarge, Reason: ReasonRequestEntityTooLarge,
		Message: "Request entity too large: " + message}
}

// UnsupportedMediaType returns the 415 UnsupportedMediaType error with message
// as is. For the apiserver's wording on a body of an unknown content type (for
// example an unsupported patch type) use UnknownBodyFormat.
func UnsupportedMediaType(message string) *Error {
	return &Error{Code: http.StatusUnsupportedMediaType, Reason: ReasonUnsupportedMediaType, Message: message}
}

// UnknownBodyFormat returns the 415 UnsupportedMediaType error the apiserver
// sends for a request body of a content type it does not accept:
// "the body of the request was in an unknown format - accepted media types
// include: <accepted, comma-separated>". For a PATCH of a built-in resource the
// apiserver accepts application/json-patch+json, application/merge-patch+json,
// application/strategic-merge-patch+json and application/apply-patch+yaml, in
// that order; for a custom resource the same without the strategic merge patch.
// The custom resource handler answers an unsupported patch type with this
// error; built-in resources are routed by go-restful, which rejects the request
// earlier with RouteError(415, "415: Unsupported Media Type").
func UnknownBodyFormat(accepted []string) *Error {
	return UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: " +
		strings.Join(accepted, ", "))
}

// RouteError returns the error kube-apiserver sends when its go-restful router
// rejects a request to a built-in resource before any handler runs, as its
// service error handler builds it: GenericServerResponse(code, "", no resource,
// "", message, 0, false). The router's messages are "405: Method Not Allowed"
// (reported as "the server does not allow this method on the requested
// resource"), "415: Unsupported Media Type" (kept as is: this is the answer to
// a PATCH of a built-in resource with an unsupported Content-Type) and
// "406: Not Acceptable\n\nAvailable representations: ...".
func RouteError(code int, message string) *Error {
	return GenericServerResponse(code, "", GroupResource{}, "", message, 0, false)
}

// NotAcceptable returns the 406 NotAcceptable error the apiserver sends when it
// cannot answer in a media type of the Accept header.
func NotAcceptable(accepted []string) *Error {
	return &Error{Code: http.StatusNotAcceptable, Reason: ReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(accepted, ", ")}
}

// GenericServerResponse returns the error a client builds from a response that
// is not a Status object, as apimachinery's NewGenericServerResponse does: the
// reason and a generic message follow from the code, the verb, resource and name
// are appended, and isUnexpectedResponse adds an UnexpectedServerResponse cause
// holding serverMessage.
func GenericServerResponse(code int, verb string, gr GroupResource, name, serverMessage string, retryAfterSeconds int, isUnexpectedResponse bool) *Error {
	reason := ReasonUnknown
	msg := fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
	switch code {
	case http.StatusConflict:
		reason = ReasonConflict
		if verb == http.MethodPost {
			reason = ReasonAlreadyExists
		}
		msg = "the server reported a conflict"
	case http.StatusNotFound:
		reason, msg = ReasonNotFound, "the server could not find the requested resource"
	case http.StatusBadRequest:
		reason, msg = ReasonBadRequest, "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		reason, msg = ReasonUnauthorized, "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		// the server's message says who may not do what: keep it.
		reason, msg = ReasonForbidden, serverMessage
	case http.StatusNotAcceptable:
		reason, msg = ReasonNotAcceptable, serverMessage
		if serverMessage == "" || serverMessage == "unknown" {
			msg = "the server was unable to respond with a content type that the client supports"
		}
	case http.StatusUnsupportedMediaType:
		reason, msg = ReasonUnsupportedMediaType, serverMessage
	case http.StatusMethodNotAllowed:
		reason, msg = ReasonMethodNotAllowed, "the server does not allow this method on the requested resource"
	case http.StatusUnprocessableEntity:
		reason, msg = ReasonInvalid, "the server rejected our request due to an error in our request"
	case http.StatusServiceUnavailable:
		reason, msg = ReasonServiceUnavailable, "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		reason, msg = ReasonTimeout, "the server was unable to return a response in the time allotted, but may still be processing the request"
	case http.StatusTooManyRequests:
		reason, msg = ReasonTooManyRequests, "the server has received too many requests and has asked us to try again later"
	default:
		if code >= 500 {
			reason = ReasonInternalError
			msg = fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", serverMessage)
		}
	}
	switch {
	case !gr.IsEmpty() && name != "":
		msg = fmt.Sprintf("%s (%s %s %s)", msg, strings.ToLower(verb), gr, name)
	case !gr.IsEmpty():
		msg = fmt.Sprintf("%s (%s %s)", msg, strings.ToLower(verb), gr)
	}
	var causes []Cause
	if isUnexpectedResponse {
		causes = []Cause{{Type: CauseTypeUnexpectedServerResponse, Message: serverMessage}}
	}
	return &Error{Code: int32(code), Reason: reason, Message: msg,
		Details: &Details{Group: gr.Group, Kind: gr.Resource, Name: name, Causes: causes,
			RetryAfterSeconds: int32(retryAfterSeconds)}}
}

// FromError returns the Status the apiserver's ErrorToAPIStatus makes of an error that is not
// a status error (a REST handler returning a plain error, such as BindingREST's aggregated
// validation errors): code 500, no reason, the error's text as the message.
func FromError(err error) *Error {
	return &Error{Code: http.StatusInternalServerError, Message: errText(err), err: err}
}
