package admission

import (
	"context"
	"time"

	"github.com/writepath/writepath/schema"
)

// Operation is the admission operation of a request.
type Operation string

// The operations admission sees.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// UserInfo is the requesting user (authentication.k8s.io/v1 UserInfo).
type UserInfo struct {
	Username string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// Request is one write as admission sees it. Object is the new object (nil for
// DELETE), OldObject the stored one (nil for CREATE). Neither is modified.
type Request struct {
	Operation   Operation
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	Name        string
	Namespace   string
	Object      map[string]any
	OldObject   map[string]any
	// Options is the operation's options object (CreateOptions, UpdateOptions,
	// DeleteOptions), as sent to webhooks; nil gives the apiserver's default
	// for the operation.
	Options map[string]any
	// DryRun is dryRun=All.
	DryRun   bool
	UserInfo UserInfo
}

// Result is what admission let through: the object to store, the patch each
// mutator applied, and the warnings and audit annotations it produced.
type Result struct {
	// Object is the admitted object (a fresh value; nil for DELETE).
	Object map[string]any
	// Patches lists the mutators that changed the object, in the order they ran.
	Patches []Mutation
	// Warnings are the texts of the Warning headers the apiserver's response
	// carries, in order: RawWarnings deduplicated and truncated as its warning
	// recorder does (ResponseWarnings).
	Warnings []string
	// RawWarnings are the warnings the steps added, in the order they were
	// added, duplicates and all.
	RawWarnings []string
	// AuditAnnotations are the audit annotations added by webhooks and policies.
	AuditAnnotations map[string]string
}

// Mutation is one change a mutator made: Patch is a JSON Patch from the object
// it received to the object it returned.
type Mutation struct {
	// Mutator names the plugin, webhook ("webhook/<name>") or policy
	// ("policy/<name>/<binding>").
	Mutator string
	// Round is 0 for the first pass and 1 for a reinvocation.
	Round int
	Patch []byte
}

// Attributes is what a Go plugin receives: the request with the object as the
// chain has it at that point. Plugins must not modify Object or OldObject.
type Attributes struct {
	Request
}

// Mutator is an in-process mutating admission plugin (the shape of a
// controller-runtime Defaulter): it returns the object to continue with, or an
// error to reject the request (a *status.Error keeps its code; any other error
// is wrapped as the apiserver wraps a plugin error, 403 Forbidden).
type Mutator interface {
	Name() string
	Admit(ctx context.Context, a Attributes) (map[string]any, error)
}

// Validator is an in-process validating admission plugin (the shape of a
// controller-runtime Validator): it returns warnings, or an error to reject.
type Validator interface {
	Name() string
	Validate(ctx context.Context, a Attributes) (warnings []string, err error)
}

// ValidateFunc is the step between mutating and validating admission: schema
// validation of the mutated object (for example with package schema). A
// non-nil error rejects the request as it is (a *status.Error keeps its code).
type ValidateFunc func(ctx context.Context, req Request, obj map[string]any) (warnings []string, err error)

// Builtins configures the apiserver's built-in steps. The zero value turns
// them all off; Defaults gives kube-apiserver's.
type Builtins struct {
	// NamespaceLifecycle refuses new objects in missing or terminating
	// namespaces and the deletion of default, kube-system and kube-public.
	NamespaceLifecycle bool
}

// Defaults is kube-apiserver's set of built-in steps.
var Defaults = Builtins{NamespaceLifecycle: true}

// Env carries the effects the chain needs as inputs: the request's time and
// the uids of AdmissionReviews. (The uid, creationTimestamp and generated name
// of a created object are the registry's: registry.Admit.)
type Env struct {
	// Now is the time of the request (the clock defaulting after mutation reads).
	Now time.Time
	// ReviewUID returns the uid of an AdmissionReview sent to a webhook.
	ReviewUID func() string
}
