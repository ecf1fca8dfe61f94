package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/field"
)

func TestConstructorCodesAndReasons(t *testing.T) {
	gr := GroupResource{Group: "apps", Resource: "deployments"}
	gk := GroupKind{Group: "apps", Kind: "Deployment"}
	boom := errors.New("boom")
	cases := []struct {
		name   string
		err    *Error
		code   int
		reason Reason
		msg    string
	}{
		{"NotFound", NotFound(gr, "d"), 404, ReasonNotFound, `deployments.apps "d" not found`},
		{"AlreadyExists", AlreadyExists(gr, "d"), 409, ReasonAlreadyExists, `deployments.apps "d" already exists`},
		{"GenerateNameConflict", GenerateNameConflict(gr, "d-x", 1), 409, ReasonAlreadyExists,
			`deployments.apps "d-x" already exists, the server was not able to generate a unique name for the object`},
		{"Unauthorized", Unauthorized("who are you"), 401, ReasonUnauthorized, "who are you"},
		{"Forbidden", Forbidden(gr, "d", boom), 403, ReasonForbidden, `deployments.apps "d" is forbidden: boom`},
		{"Forbidden no name", Forbidden(gr, "", boom), 403, ReasonForbidden, `deployments.apps is forbidden: boom`},
		{"Forbidden no resource", Forbidden(GroupResource{}, "d", boom), 403, ReasonForbidden, `forbidden: boom`},
		{"Conflict", Conflict(gr, "d", boom), 409, ReasonConflict, `Operation cannot be fulfilled on deployments.apps "d": boom`},
		{"Conflict nil", Conflict(gr, "d", nil), 409, ReasonConflict, `Operation cannot be fulfilled on deployments.apps "d": <nil>`},
		{"ApplyConflict", ApplyConflict(nil, "Apply failed"), 409, ReasonConflict, "Apply failed"},
		{"Gone", Gone("gone"), 410, ReasonGone, "gone"},
		{"ResourceExpired", ResourceExpired("expired"), 410, ReasonExpired, "expired"},
		{"Invalid empty", Invalid(gk, "d", nil), 422, ReasonInvalid, `Deployment.apps "d" is invalid`},
		{"Invalid", Invalid(gk, "d", field.ErrorList{field.Required(field.NewPath("spec"), "")}), 422, ReasonInvalid,
			`Deployment.apps "d" is invalid: spec: Required value`},
		{"BadRequest", BadRequest("bad"), 400, ReasonBadRequest, "bad"},
		{"TooManyRequests", TooManyRequests("later", 2), 429, ReasonTooManyRequests, "later"},
		{"TooManyRequestsError", TooManyRequestsError("later"), 429, ReasonTooManyRequests, "Too many requests: later"},
		{"ServiceUnavailable", ServiceUnavailable("down"), 503, ReasonServiceUnavailable, "down"},
		{"MethodNotSupported", MethodNotSupported(gr, "watch"), 405, ReasonMethodNotAllowed,
			`watch is not supported on resources of kind "deployments.apps"`},
		{"ServerTimeout", ServerTimeout(gr, "get", 1), 500, ReasonServerTimeout,
			"The get operation against deployments.apps could not be completed at this time, please try again."},
		{"InternalError", InternalError(boom), 500, ReasonInternalError, "Internal error occurred: boom"},
		{"InternalError nil", InternalError(nil), 500, ReasonInternalError, "Internal error occurred: <nil>"},
		{"Timeout", Timeout("slow", 0), 504, ReasonTimeout, "Timeout: slow"},
		{"RequestEntityTooLarge", RequestEntityTooLarge("limit is 3145728"), 413, ReasonRequestEntityTooLarge,
			"Request entity too large: limit is 3145728"},
		{"UnsupportedMediaType", UnsupportedMediaType("nope"), 415, ReasonUnsupportedMediaType, "nope"},
		{"UnknownBodyFormat", UnknownBodyFormat([]string{"a", "b"}), 415, ReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: a, b"},
		{"NotAcceptable", NotAcceptable([]string{"a"}), 406, ReasonNotAcceptable, "only the following media types are accepted: a"},
		{"RouteError", RouteError(405, "405: Method Not Allowed"), 405, ReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource"},
		{"GenericServerResponse 5xx", GenericServerResponse(502, "GET", gr, "d", "bad gateway", 0, true), 502, ReasonInternalError,
			`an error on the server ("bad gateway") has prevented the request from succeeding (get deployments.apps d)`},
		{"GenericServerResponse unknown", GenericServerResponse(418, "GET", GroupResource{}, "", "", 0, false), 418, ReasonUnknown,
			"the server responded with the status code 418 but did not return more information"},
		{"literal code 0", &Error{Message: "m"}, 500, ReasonUnknown, "m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.code, tc.err.StatusCode())
			assert.Equal(t, tc.reason, tc.err.Reason)
			assert.Equal(t, tc.reason, tc.err.StatusReason())
			assert.Equal(t, tc.msg, tc.err.Error())
			wrapped := fmt.Errorf("outer: %w", tc.err)
			assert.Equal(t, tc.code, CodeOf(wrapped))
			assert.Equal(t, tc.reason, ReasonOf(wrapped))
		})
	}
}

func TestUnwrap(t *testing.T) {
	cause := errors.New("cause")
	for _, e := range []*Error{Conflict(GroupResource{}, "x", cause), Forbidden(GroupResource{}, "x", cause), InternalError(cause)} {
		assert.ErrorIs(t, e, cause, e.Message)
	}
	assert.Nil(t, NotFound(GroupResource{}, "x").Unwrap())

	fe := field.Invalid(field.NewPath("spec", "replicas"), int64(-1), "must be greater than or equal to 0")
	inv := Invalid(GroupKind{Kind: "Pod"}, "p", field.ErrorList{field.Required(field.NewPath("a"), ""), fe})
	assert.ErrorIs(t, inv, fe)
	var got *field.Error
	require.ErrorAs(t, fmt.Errorf("wrapped: %w", inv), &got)
	assert.Equal(t, "a", got.Field)
}

// foreign is another package's error carrying HTTP semantics, as DESIGN.md asks.
type foreign struct{}

func (foreign) Error() string   { return "foreign" }
func (foreign) StatusCode() int { return http.StatusConflict }
func (foreign) Reason() string  { return "Conflict" }

func TestCodeOfReasonOf(t *testing.T) {
	assert.Equal(t, 0, CodeOf(nil))
	assert.Equal(t, ReasonUnknown, ReasonOf(nil))
	assert.Equal(t, 500, CodeOf(errors.New("plain")))
	assert.Equal(t, ReasonUnknown, ReasonOf(errors.New("plain")))
	assert.Equal(t, 409, CodeOf(fmt.Errorf("a: %w", fmt.Errorf("b: %w", foreign{}))))
	assert.Equal(t, ReasonConflict, ReasonOf(fmt.Errorf("a: %w", foreign{})))
	// the first error in the chain with a code wins.
	outer := Conflict(GroupResource{Resource: "x"}, "n", NotFound(GroupResource{}, "y"))
	assert.Equal(t, 409, CodeOf(outer))
	assert.Equal(t, 404, CodeOf(outer.Unwrap()))
	// errors.Join: the first joined error with a code.
	assert.Equal(t, 404, CodeOf(errors.Join(errors.New("x"), NotFound(GroupResource{}, "y"))))
}

func TestConstructorsDoNotKeepInputs(t *testing.T) {
	causes := []Cause{{Type: CauseTypeFieldManagerConflict, Message: "m", Field: ".spec"}}
	e := ApplyConflict(causes, "msg")
	causes[0].Field = "changed"
	assert.Equal(t, ".spec", e.Details.Causes[0].Field, "ApplyConflict copies its causes")

	errs := field.ErrorList{field.Required(field.NewPath("a"), ""), nil, field.Required(field.NewPath("a"), "")}
	before := slices.Clone(errs)
	inv := Invalid(GroupKind{Kind: "Pod"}, "p", errs)
	assert.Equal(t, before, errs, "Invalid does not modify the list")
	assert.Len(t, inv.Details.Causes, 2, "nil errors skipped, duplicates kept as causes")
	assert.Equal(t, `Pod "p" is invalid: a: Required value`, inv.Message, "duplicates printed once")
}

func TestJSON(t *testing.T) {
	cases := []struct {
		name string
		err  *Error
		want string
	}{
		{"no details", BadRequest("x"),
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"x","reason":"BadRequest","code":400}`},
		{"empty details", &Error{Code: 405, Details: &Details{}},
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","details":{},"code":405}`},
		{"all details", &Error{Code: 409, Reason: "R", Message: "<m>", Details: &Details{Name: "n", Group: "g", Kind: "k", UID: "u",
			Causes: []Cause{{Type: "T", Message: "&", Field: "f"}, {}}, RetryAfterSeconds: 3}},
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"\u003cm\u003e","reason":"R","details":{"name":"n","group":"g","kind":"k","uid":"u","causes":[{"reason":"T","message":"\u0026","field":"f"},{}],"retryAfterSeconds":3},"code":409}`},
		{"code 0 sent as 500", &Error{}, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.err)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			byValue, err := json.Marshal(*tc.err)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(byValue), "value and pointer marshal alike")

			var back Error
			require.NoError(t, json.Unmarshal(got, &back))
			again, err := json.Marshal(&back)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(again))
		})
	}
}

func TestUnmarshalJSON(t *testing.T) {
	var e Error
	require.NoError(t, json.Unmarshal([]byte(`{"message":"m","code":404,"reason":"NotFound","details":{"causes":[{"reason":"x","field":"f"}]}}`), &e))
	assert.Equal(t, Error{Code: 404, Reason: ReasonNotFound, Message: "m", Details: &Details{Causes: []Cause{{Type: "x", Field: "f"}}}}, e)

	// field names are case-sensitive, as in the apiserver's decoder.
	var ci Error
	require.NoError(t, json.Unmarshal([]byte(`{"Message":"m","CODE":404}`), &ci))
	assert.Equal(t, Error{}, ci)

	// a decode replaces the whole value.
	e2 := Error{Code: 1, Message: "old", Details: &Details{Name: "old"}}
	require.NoError(t, json.Unmarshal([]byte(`{"message":"new"}`), &e2))
	assert.Equal(t, Error{Message: "new"}, e2)

	for _, bad := range []string{`[]`, `{"code":"409"}`, `{"code":99999999999}`, `{`, `{"details":{"causes":{}}}`} {
		var x Error
		assert.Error(t, json.Unmarshal([]byte(bad), &x), bad)
	}
}

// reasonOnly has a reason but no code.
type reasonOnly struct{ inner error }

func (r reasonOnly) Error() string  { return "reason only" }
func (r reasonOnly) Reason() string { return "Outer" }
func (r reasonOnly) Unwrap() error  { return r.inner }

func TestReasonOfOrder(t *testing.T) {
	err := fmt.Errorf("x: %w", reasonOnly{inner: NotFound(GroupResource{}, "n")})
	assert.Equal(t, Reason("Outer"), ReasonOf(err), "the outermost reason wins, whatever its method")
	joined := errors.Join(errors.New("a"), fmt.Errorf("b: %w", Gone("g")), NotFound(GroupResource{}, "n"))
	assert.Equal(t, ReasonGone, ReasonOf(joined), "depth first through joined errors, as errors.As")
	assert.Equal(t, 410, CodeOf(joined))
}
