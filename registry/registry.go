package registry

import (
	"context"
	"net/url"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/schema"
)

// Request is one HTTP request to the apiserver's resource API.
//
// The resource is named either by Path (the URL path as the apiserver serves it, with or without
// a query string) or, when Path is empty, by Resource, Namespace, Name and Subresource.
type Request struct {
	// Method is the HTTP method: GET, POST, PUT, PATCH or DELETE.
	Method string
	// Path is the URL path, e.g. /apis/apps/v1/namespaces/demo/deployments/web/scale. A query
	// string in it is merged into Query.
	Path string
	// Resource, Namespace, Name and Subresource name the target when Path is empty.
	Resource    schema.GroupVersionResource
	Namespace   string
	Name        string
	Subresource string
	// Query holds the query parameters: fieldManager, force, dryRun, fieldValidation,
	// propagationPolicy, gracePeriodSeconds, orphanDependents, resourceVersion, ...
	Query url.Values
	// ContentType is the Content-Type header of the body ("" for application/json).
	ContentType string
	// Accept is the Accept header ("" for application/json).
	Accept string
	// Body is the request body; it is never modified.
	Body []byte
	// User is the authenticated user (admission sees it; fieldManager defaults from UserAgent).
	User User
	// UserAgent is the User-Agent header: the field manager of a write without fieldManager is
	// its prefix up to the first "/".
	UserAgent string
	// Now is the server's clock for this request: creationTimestamp, managedFields times,
	// deletionTimestamp. Never read from the system clock.
	Now time.Time
	// ObjectOnly is for a caller that reads Response.Object alone (a controller inside the
	// server): the body of a successful response is not encoded and Body is empty. Everything
	// else, the writes included, is as without it.
	ObjectOnly bool
}

// User is the requesting user as authentication gives it.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Response is what the client receives.
type Response struct {
	// Code is the HTTP status code.
	Code int
	// Warnings are the Warning header values, in order, as the apiserver writes them:
	// `299 - "unknown field \"spec.x\""`.
	Warnings []string
	// ContentType is the Content-Type of Body.
	ContentType string
	// Body is the response body: the object (in the requested version and media type) or a
	// metav1.Status.
	Body []byte
	// Object is Body decoded (an object or a Status), for callers that do not want to decode it,
	// but for the omitempty []byte fields a built-in object stored in protobuf holds empty
	// (status.certificate, clientConfig.caBundle ""): Object keeps them as "", as the Go value
	// and a protobuf answer do, where the JSON and YAML Body leave them out (emptybytes.go).
	// It may share maps and slices with the World's objects (a get answers with the stored
	// object itself, as Handle never changes what World returns): read it, or copy it
	// before changing it.
	Object map[string]any
	// Reset is true where the apiserver's handler panics and the client gets no response at all
	// (the connection or HTTP/2 stream is reset; kubectl reports "stream error ... INTERNAL_ERROR").
	// Code is then 500 and Body the Status of an internal error, for callers that need one.
	Reset bool
	// Selection is, for a list, the label and field selection the request made, so that a
	// caller serving a watch filters its events the same way.
	Selection Selection
	// Audit is what admission added to the request's audit event: not sent to the client.
	Audit Audit
}

// Audit is what admission recorded for a request, as the apiserver's audit event holds it: the
// mutators that changed the object (in the order they ran, mutating phase of every attempt) and
// the audit annotations webhooks and policies added (a later value of a key wins). It is kept on
// error responses too: a request denied by a validating policy still carries the annotations of
// the policies before it.
type Audit struct {
	Patches     []admission.Mutation
	Annotations map[string]string
}

// Write is one change to storage the request makes. Writes are returned in the order the
// apiserver performs them; none on dryRun=All or on an error response.
type Write struct {
	// Delete is true when the object is removed; Object is then the last stored state.
	Delete bool
	// Resource, Namespace and Name are the object's storage key.
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
	// Object is the object to store, with its new resourceVersion (or, for a deletion, the
	// object as it was removed).
	Object map[string]any
}

// World is what the request sees of the server: storage, the served custom resources, the
// admission configuration and the sources of identifiers. The caller implements it; see the
// package documentation for each method's duty. Handle never modifies what World returns.
type World interface {
	// Get returns the stored object of resource r named name in namespace ("" for cluster-scoped
	// resources), or nil when there is none.
	Get(ctx context.Context, r schema.GroupVersionResource, namespace, name string) (map[string]any, error)
	// List returns the stored objects of resource r in namespace ("" for all namespaces or a
	// cluster-scoped resource), in any order.
	List(ctx context.Context, r schema.GroupVersionResource, namespace string) ([]map[string]any, error)
	// CRD returns the served CustomResourceDefinition of group and plural resource, or nil.
	CRD(ctx context.Context, group, resource string) (*schema.CRD, error)
	// Admission returns the admission configuration: the stored policies, bindings and webhook
	// configurations, the objects their paramRefs select from, and how to reach webhooks.
	Admission(ctx context.Context) (AdmissionConfig, error)
	// NewUID returns a fresh uid for an object being created.
	NewUID() string
	// GenerateName returns a name for an object with metadata.generateName base.
	GenerateName(base string) string
	// NextResourceVersion returns the resourceVersion the next write stores, or a placeholder
	// for it that the caller replaces with Stored once the write has landed. It is called once
	// per write Handle returns, and not for dry runs or failures.
	NextResourceVersion() string
}

// CELCache is what a World that keeps compiled CEL rules across requests implements: the
// validators of the CRD a request writes a custom resource of. A World without it gets the
// rules compiled on every write (cel.ValidateCustomResource). The cache is the World's: it lives
// as long as the World keeps the CRD.
type CELCache interface {
	CELValidators(crd *schema.CRD) *cel.Validators
}

// AdmissionConfig is the admission configuration a World serves.
type AdmissionConfig struct {
	// Objects are the admissionregistration.k8s.io/v1 objects: ValidatingAdmissionPolicy,
	// MutatingAdmissionPolicy and their bindings, Mutating- and ValidatingWebhookConfiguration.
	Objects []map[string]any
	// Params are the objects paramRefs select from.
	Params []map[string]any
	// Client calls webhooks; nil refuses to call any (a webhook call then fails as its
	// failurePolicy says), so that Handle never touches the network unless the caller lets it.
	Client admission.WebhookClient
	// Authorizer answers the policies' authorizer variable; nil leaves it undefined.
	Authorizer cel.Authorizer
	// Converters convert the custom resources of CRDs whose strategy is Webhook for admission's
	// matchPolicy Equivalent (a policy or webhook registered for another version sees the object
	// the CRD's conversion webhook returns); a CRD without one converts as strategy None.
	Converters []*conversion.Converter
}
