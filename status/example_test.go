package status_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/status"
)

var configmaps = status.GroupResource{Resource: "configmaps"}

func ExampleConflict() {
	err := status.Conflict(configmaps, "cm1",
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	fmt.Println(err)
	fmt.Println(err.StatusCode(), err.Reason)
	body, _ := json.Marshal(err)
	fmt.Println(string(body))
	// Output:
	// Operation cannot be fulfilled on configmaps "cm1": the object has been modified; please apply your changes to the latest version and try again
	// 409 Conflict
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"cm1\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"cm1","kind":"configmaps"},"code":409}
}

func ExampleInvalid() {
	spec := field.NewPath("spec")
	err := status.Invalid(status.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
		field.Invalid(spec.Child("replicas"), int64(-1), "must be greater than or equal to 0"),
		field.Required(spec.Child("selector"), ""),
	})
	fmt.Println(err)
	for _, c := range err.Details.Causes {
		fmt.Printf("%s %s: %s\n", c.Type, c.Field, c.Message)
	}
	var fe *field.Error
	fmt.Println(errors.As(err, &fe), fe.Field)
	// Output:
	// Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]
	// FieldValueInvalid spec.replicas: Invalid value: -1: must be greater than or equal to 0
	// FieldValueRequired spec.selector: Required value
	// true spec.replicas
}

func ExampleNotFound() {
	err := status.NotFound(status.GroupResource{Group: "apps", Resource: "deployments"}, "web")
	fmt.Println(err, err.StatusCode())
	// Output: deployments.apps "web" not found 404
}

func ExampleAlreadyExists() {
	fmt.Println(status.AlreadyExists(configmaps, "cm1"))
	// Output: configmaps "cm1" already exists
}

func ExampleGenerateNameConflict() {
	err := status.GenerateNameConflict(configmaps, "cm-x7k2p", 1)
	fmt.Println(err, err.Details.RetryAfterSeconds)
	// Output: configmaps "cm-x7k2p" already exists, the server was not able to generate a unique name for the object 1
}

func ExampleUnauthorized() {
	fmt.Println(status.Unauthorized(""), status.Unauthorized("").StatusCode())
	// Output: not authorized 401
}

func ExampleForbidden() {
	deny := errors.New(`User "bob" cannot delete resource "pods" in API group "" in the namespace "default"`)
	fmt.Println(status.Forbidden(status.GroupResource{Resource: "pods"}, "p1", deny))
	fmt.Println(status.Forbidden(status.GroupResource{}, "", errors.New("not allowed")))
	// Output:
	// pods "p1" is forbidden: User "bob" cannot delete resource "pods" in API group "" in the namespace "default"
	// forbidden: not allowed
}

func ExampleApplyConflict() {
	err := status.ApplyConflict([]status.Cause{{
		Type:    status.CauseTypeFieldManagerConflict,
		Message: `conflict with "kubectl": .spec.replicas`,
		Field:   ".spec.replicas",
	}}, `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`)
	fmt.Println(err.StatusCode(), err.Reason, err.Details.Causes[0].Field)
	// Output: 409 Conflict .spec.replicas
}

func ExampleGone() {
	fmt.Println(status.Gone("gone").StatusCode())
	// Output: 410
}

func ExampleResourceExpired() {
	err := status.ResourceExpired("too old resource version: 1 (5)")
	fmt.Println(err, err.StatusCode(), err.Reason)
	// Output: too old resource version: 1 (5) 410 Expired
}

func ExampleBadRequest() {
	err := status.BadRequest("the server rejected our request")
	fmt.Println(err, err.StatusCode(), err.Reason)
	// Output: the server rejected our request 400 BadRequest
}

func ExampleTooManyRequests() {
	err := status.TooManyRequests("slow down", 3)
	fmt.Println(err, err.StatusCode(), err.Details.RetryAfterSeconds)
	// Output: slow down 429 3
}

func ExampleTooManyRequestsError() {
	fmt.Println(status.TooManyRequestsError("storage is busy"))
	// Output: Too many requests: storage is busy
}

func ExampleServiceUnavailable() {
	fmt.Println(status.ServiceUnavailable("down").StatusCode())
	// Output: 503
}

func ExampleMethodNotSupported() {
	fmt.Println(status.MethodNotSupported(status.GroupResource{Resource: "bindings"}, "list"))
	// Output: list is not supported on resources of kind "bindings"
}

func ExampleServerTimeout() {
	fmt.Println(status.ServerTimeout(configmaps, "update", 2))
	// Output: The update operation against configmaps could not be completed at this time, please try again.
}

func ExampleInternalError() {
	err := status.InternalError(errors.New("boom"))
	fmt.Println(err, err.StatusCode(), err.Details.Causes[0].Message)
	// Output: Internal error occurred: boom 500 boom
}

func ExampleTimeout() {
	fmt.Println(status.Timeout("request did not complete within 60s", 0))
	// Output: Timeout: request did not complete within 60s
}

func ExampleRequestEntityTooLarge() {
	err := status.RequestEntityTooLarge("limit is 3145728")
	fmt.Println(err, err.StatusCode())
	// Output: Request entity too large: limit is 3145728 413
}

func ExampleUnsupportedMediaType() {
	err := status.UnsupportedMediaType("unsupported content type")
	fmt.Println(err.StatusCode(), err.Reason)
	// Output: 415 UnsupportedMediaType
}

func ExampleUnknownBodyFormat() {
	fmt.Println(status.UnknownBodyFormat([]string{
		"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml",
	}))
	// Output: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml
}

func ExampleNotAcceptable() {
	err := status.NotAcceptable([]string{"application/json", "application/yaml"})
	fmt.Println(err, err.StatusCode())
	// Output: only the following media types are accepted: application/json, application/yaml 406
}

func ExampleGenericServerResponse() {
	err := status.GenericServerResponse(409, "POST", configmaps, "cm1", "", 0, false)
	fmt.Println(err, err.Reason)
	// Output: the server reported a conflict (post configmaps cm1) AlreadyExists
}

func ExampleCodeOf() {
	err := fmt.Errorf("updating: %w", status.NotFound(configmaps, "cm1"))
	fmt.Println(status.CodeOf(err), status.ReasonOf(err))
	fmt.Println(status.CodeOf(errors.New("plain")), status.CodeOf(nil))
	// Output:
	// 404 NotFound
	// 500 0
}

func ExampleReasonOf() {
	fmt.Printf("%q %q\n", status.ReasonOf(status.Gone("x")), status.ReasonOf(errors.New("plain")))
	// Output: "Gone" ""
}

func ExampleError_UnmarshalJSON() {
	var e status.Error
	err := json.Unmarshal([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"cm1\" not found","reason":"NotFound","details":{"name":"cm1","kind":"configmaps"},"code":404}`), &e)
	fmt.Println(err, e.Code, e.Reason, e.Details.Name, e.Error())
	// Output: <nil> 404 NotFound cm1 configmaps "cm1" not found
}

func ExampleGroupResource_String() {
	fmt.Println(status.GroupResource{Group: "apps", Resource: "deployments"}, configmaps)
	// Output: deployments.apps configmaps
}

func ExampleGroupKind_String() {
	fmt.Println(status.GroupKind{Group: "apps", Kind: "Deployment"}, status.GroupKind{Kind: "Pod"})
	// Output: Deployment.apps Pod
}

func ExampleRouteError() {
	err := status.RouteError(415, "415: Unsupported Media Type")
	body, _ := json.Marshal(err)
	fmt.Println(string(body))
	// Output: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415}
}

func ExampleError_MarshalJSON() {
	body, _ := json.Marshal(status.NotFound(status.GroupResource{Group: "apps", Resource: "deployments"}, "web"))
	fmt.Println(string(body))
	body, _ = json.Marshal(&status.Error{Message: "no code"}) // sent as 500, as the apiserver does
	fmt.Println(string(body))
	// Output:
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no code","code":500}
}

func ExampleError_StatusCode() {
	err := status.Gone("watch expired")
	fmt.Println(err.StatusCode(), err.StatusReason())
	// Output: 410 Gone
}
