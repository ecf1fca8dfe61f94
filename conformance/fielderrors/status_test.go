package fielderrors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	referrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

// statusPair builds the same status error with writepath and with apimachinery
// (or the apiserver's negotiation errors for 406/415).
func (g *gen) statusPair() (*status.Error, error, string) {
	grp := g.pick("", "apps", "example.com", g.str())
	res := g.pick("configmaps", "deployments", "", g.str())
	gr, rgr := status.GroupResource{Group: grp, Resource: res}, schema.GroupResource{Group: grp, Resource: res}
	if g.intn(8) == 0 {
		gr, rgr = status.GroupResource{}, schema.GroupResource{}
	}
	gk, rgk := status.GroupKind{Group: grp, Kind: res}, schema.GroupKind{Group: grp, Kind: res}
	name := g.pick("cm1", "", g.str())
	msg := g.str()
	retry := g.intn(5) - 1
	cause := errors.New(g.str())
	switch c := g.intn(24); c {
	case 0:
		return status.NotFound(gr, name), referrors.NewNotFound(rgr, name), "NotFound"
	case 1:
		return status.AlreadyExists(gr, name), referrors.NewAlreadyExists(rgr, name), "AlreadyExists"
	case 2:
		return status.GenerateNameConflict(gr, name, retry), referrors.NewGenerateNameConflict(rgr, name, retry), "GenerateNameConflict"
	case 3:
		return status.Unauthorized(msg), referrors.NewUnauthorized(msg), "Unauthorized"
	case 4:
		return status.Forbidden(gr, name, cause), referrors.NewForbidden(rgr, name, cause), "Forbidden"
	case 5:
		return status.Conflict(gr, name, cause), referrors.NewConflict(rgr, name, cause), "Conflict"
	case 6:
		n := g.intn(3)
		causes, rcauses := make([]status.Cause, n), make([]metav1.StatusCause, n)
		for i := range n {
			ty, m, f := g.pick("FieldManagerConflict", "", g.str()), g.str(), g.str()
			causes[i] = status.Cause{Type: status.CauseType(ty), Message: m, Field: f}
			rcauses[i] = metav1.StatusCause{Type: metav1.CauseType(ty), Message: m, Field: f}
		}
		return status.ApplyConflict(causes, msg), referrors.NewApplyConflict(rcauses, msg), "ApplyConflict"
	case 7:
		return status.Gone(msg), referrors.NewGone(msg), "Gone"
	case 8:
		return status.ResourceExpired(msg), referrors.NewResourceExpired(msg), "ResourceExpired"
	case 9, 10, 11:
		errs, rerrs := g.listPair()
		return status.Invalid(gk, name, errs), referrors.NewInvalid(rgk, name, rerrs), "Invalid"
	case 12:
		return status.BadRequest(msg), referrors.NewBadRequest(msg), "BadRequest"
	case 13:
		return status.TooManyRequests(msg, retry), referrors.NewTooManyRequests(msg, retry), "TooManyRequests"
	case 14:
		return status.ServiceUnavailable(msg), referrors.NewServiceUnavailable(msg), "ServiceUnavailable"
	case 15:
		return status.MethodNotSupported(gr, name), referrors.NewMethodNotSupported(rgr, name), "MethodNotSupported"
	case 16:
		return status.ServerTimeout(gr, name, retry), referrors.NewServerTimeout(rgr, name, retry), "ServerTimeout"
	case 17:
		return status.InternalError(cause), referrors.NewInternalError(cause), "InternalError"
	case 18:
		return status.Timeout(msg, retry), referrors.NewTimeoutError(msg, retry), "Timeout"
	case 19:
		return status.TooManyRequestsError(msg), referrors.NewTooManyRequestsError(msg), "TooManyRequestsError"
	case 20:
		return status.RequestEntityTooLarge(msg), referrors.NewRequestEntityTooLargeError(msg), "RequestEntityTooLarge"
	case 21:
		accepted := []string{"application/json-patch+json", "application/merge-patch+json", g.str()}[:g.intn(4)]
		if g.intn(2) == 0 {
			return status.UnknownBodyFormat(accepted), negotiation.NewUnsupportedMediaTypeError(accepted), "UnknownBodyFormat"
		}
		return status.NotAcceptable(accepted), negotiation.NewNotAcceptableError(accepted), "NotAcceptable"
	case 22:
		code := []int{0, 200, 400, 401, 403, 404, 405, 406, 409, 410, 415, 422, 429, 500, 502, 503, 504, 599}[g.intn(18)]
		verb := g.pick("POST", "PUT", "get", "PATCH", g.str())
		unexpected := g.intn(2) == 0
		return status.GenericServerResponse(code, verb, gr, name, msg, retry, unexpected),
			referrors.NewGenericServerResponse(code, verb, rgr, name, msg, retry, unexpected), "GenericServerResponse"
	default:
		// a literal with any code (0 included), reason, message and details.
		code := []int32{0, 200, 404, 409, 422, 500, int32(g.intn(1000))}[g.intn(7)]
		reason := g.pick("", "Conflict", "Invalid", g.str())
		ours := &status.Error{Code: code, Reason: status.Reason(reason), Message: msg}
		ref := &referrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code,
			Reason: metav1.StatusReason(reason), Message: msg}}
		if g.intn(3) > 0 {
			d := status.Details{Name: name, Group: grp, Kind: res, UID: g.pick("", "6e0b1d5e-0000-4000-8000-000000000001", g.str()),
				RetryAfterSeconds: int32(retry)}
			for range g.intn(3) {
				d.Causes = append(d.Causes, status.Cause{Type: status.CauseType(g.str()), Message: g.str(), Field: g.str()})
			}
			ours.Details = &d
			rd := &metav1.StatusDetails{Name: d.Name, Group: d.Group, Kind: d.Kind, UID: types.UID(d.UID),
				RetryAfterSeconds: d.RetryAfterSeconds}
			for _, c := range d.Causes {
				rd.Causes = append(rd.Causes, metav1.StatusCause{Type: metav1.CauseType(c.Type), Message: c.Message, Field: c.Field})
			}
			ref.ErrStatus.Details = rd
		}
		return ours, ref, "literal"
	}
}

// wire returns the body the apiserver writes for ref: ErrorToAPIStatus, then
// the JSON serializer's encoding (encoding/json Encoder, trailing newline).
func wire(t *testing.T, ref error) (*metav1.Status, []byte) {
	st := responsewriters.ErrorToAPIStatus(ref)
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(st))
	return st, buf.Bytes()
}

func TestStatusErrors(t *testing.T) {
	g := newGen(4)
	c := &tally{t: t, name: "status.Error vs StatusError/metav1.Status"}
	byKind := map[string]int{}
	for range sampleSize(5000) {
		ours, ref, kind := g.statusPair()
		byKind[kind]++
		c.cases++
		refStatus, refBody := wire(t, ref)

		c.check(ours.Error() == ref.Error(), "%s Error(): ours %q, reference %q", kind, printable(ours.Error()), printable(ref.Error()))
		c.check(ours.StatusCode() == int(refStatus.Code), "%s code: ours %d, reference %d", kind, ours.StatusCode(), refStatus.Code)
		c.check(string(ours.Reason) == string(refStatus.Reason), "%s reason: ours %q, reference %q", kind, ours.Reason, refStatus.Reason)
		c.check(status.ReasonOf(fmt.Errorf("wrapped: %w", ours)) == ours.Reason, "%s ReasonOf through wrapping", kind)
		if refStatus.Code != 0 {
			c.check(status.CodeOf(fmt.Errorf("wrapped: %w", ours)) == int(refStatus.Code), "%s CodeOf through wrapping", kind)
		}

		body, err := json.Marshal(ours)
		require.NoError(t, err)
		c.check(string(body)+"\n" == string(refBody), "%s JSON:\n ours      %s\n reference %s", kind, printable(string(body)), printable(string(refBody)))

		// our JSON decodes, with the reference's types, to what the apiserver's body decodes to.
		var decoded, refDecoded metav1.Status
		require.NoError(t, json.Unmarshal(body, &decoded))
		require.NoError(t, json.Unmarshal(refBody, &refDecoded))
		c.check(reflect.DeepEqual(decoded, refDecoded), "%s: our JSON decodes to %#v, reference %#v", kind, decoded, refDecoded)

		// the apiserver's body decodes into our Error, which encodes to the same
		// bytes as the reference's decoded Status (decoding replaces invalid UTF-8,
		// so the original bytes are not the benchmark).
		var back status.Error
		require.NoError(t, json.Unmarshal(refBody, &back))
		again, err := json.Marshal(&back)
		require.NoError(t, err)
		refDecoded.Kind, refDecoded.APIVersion = "Status", "v1"
		refAgain, err := json.Marshal(&refDecoded)
		require.NoError(t, err)
		c.check(string(again) == string(refAgain), "%s round trip: %s, reference %s", kind, printable(string(again)), printable(string(refAgain)))
	}
	t.Logf("cases by constructor: %v", byKind)
	c.report()
}

// TestInvalidCauses checks the causes of 422 Invalid one by one (type, message,
// field, order, duplicates kept) and that errors.As reaches the field errors.
func TestInvalidCauses(t *testing.T) {
	g := newGen(5)
	c := &tally{t: t, name: "status.Invalid causes"}
	for range sampleSize(2000) {
		errs, rerrs := g.listPair()
		ours := status.Invalid(status.GroupKind{Kind: "Pod"}, "p", errs)
		ref := referrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "p", rerrs)
		c.cases++
		var got []metav1.StatusCause
		for _, cs := range ours.Details.Causes {
			got = append(got, metav1.StatusCause{Type: metav1.CauseType(cs.Type), Message: cs.Message, Field: cs.Field})
		}
		want := ref.ErrStatus.Details.Causes
		c.check(len(got) == len(want) && (len(got) == 0 || reflect.DeepEqual(got, want)), "causes: ours %v, reference %v", got, want)
		var fe *field.Error
		c.check(errors.As(ours, &fe) == (len(errs) > 0), "errors.As on Invalid with %d errors", len(errs))
	}
	c.report()
}
