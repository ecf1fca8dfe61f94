package conversion

import (
	"context"
	"fmt"
	"strings"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// Options configure a Converter.
type Options struct {
	// Caller sends ConversionReview requests for the Webhook strategy. Nil means an HTTPS
	// Client built from the CRD's clientConfig (NewClient with default options); a Registry
	// answers in process.
	Caller Caller
	// UID returns the uid of each ConversionReview request. Nil derives it from the request's
	// content (a name-based UUID), so that the same conversion sends the same bytes.
	UID func() string
	// Context is passed to the Caller (nil: context.Background()).
	Context context.Context
}

// Converter converts the objects of one CRD between its versions with the CRD's strategy,
// like the apiserver's CR converter (crConverter over nopConverter or webhookConverter, behind
// safeConverterWrapper: inputs are never modified). A Converter is safe for concurrent use if
// its Caller and UID function are.
type Converter struct {
	crd    *CRD
	caller Caller
	uid    func() string
	ctx    context.Context
}

// New returns the converter of crd. For the Webhook strategy without opts.Caller it builds the
// default HTTPS client, which fails for a service reference (writepath cannot resolve
// services: pass a Caller, or a Client made with ClientOptions.URL).
func New(crd *CRD, opts Options) (*Converter, error) {
	c := &Converter{crd: crd, caller: opts.Caller, uid: opts.UID, ctx: opts.Context}
	if c.ctx == nil {
		c.ctx = context.Background()
	}
	if crd.Strategy == StrategyWebhook && c.caller == nil {
		cl, err := NewClient(crd, ClientOptions{})
		if err != nil {
			return nil, err
		}
		c.caller = cl
	}
	return c, nil
}

// CRD returns the definition c converts for.
func (c *Converter) CRD() *CRD { return c.crd }

// Error is a conversion failure, with the apiserver converter's message. A write that fails
// to convert is answered with a 500 carrying this message and no reason (WriteError); a read
// wraps it in a storage error (ReadError).
type Error struct{ Err error }

func (e *Error) Error() string   { return e.Err.Error() }
func (e *Error) Unwrap() error   { return e.Err }
func (e *Error) StatusCode() int { return 500 }

// Reason is empty: the apiserver's answer to a failed conversion on write has no reason
// (kubectl prints "Error from server: <message>").
func (e *Error) Reason() string { return "" }

// WriteError is the apiserver's answer to a write whose conversion to the storage version
// failed: 500, the converter's message, no reason (recorded from kube-apiserver 1.37).
func WriteError(err error) *status.Error {
	return &status.Error{Code: 500, Message: err.Error()}
}

// ReadError is the apiserver's answer to a get whose stored object fails to convert: a 500
// InternalError whose message is "Internal error occurred: StorageError: corrupt object, Code:
// 7, Key: <key>, ResourceVersion: 0, AdditionalErrorMsg: object not decodable
// revision=<revision>: <err>". key is the storage key without the storage prefix
// ("/<group>/<plural>/<namespace>/<name>"), revision the object's etcd modification revision;
// a list fails with "failed to read one or more <plural>.<group> from the storage" instead.
func ReadError(err error, key string, revision int64) *status.Error {
	return status.InternalError(fmt.Errorf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %w", key, revision, err))
}

func errorf(format string, args ...any) error { return &Error{Err: fmt.Errorf(format, args...)} }

// gvkOf reads apiVersion and kind the way unstructured.Unstructured does: non-strings are "",
// an apiVersion that does not parse gives an empty group and version.
func gvkOf(obj map[string]any) schema.GroupVersionKind {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	gv, err := schema.ParseAPIVersion(av)
	if err != nil {
		return schema.GroupVersionKind{Kind: k}
	}
	return gv.WithKind(k)
}

// Convert converts one object to version, as the apiserver's CR converter's ConvertToVersion
// does: the object's and the target's group version must be versions of the CRD (served or
// not), then the strategy runs (None: apiVersion rewritten; Webhook: a ConversionReview). No
// pruning happens here (see ToStorage and Read for the steps the apiserver adds). obj is not
// modified; the result shares nothing with it.
func (c *Converter) Convert(obj map[string]any, version string) (map[string]any, error) {
	return c.convert(obj, version, false)
}

// ConvertList converts a list (an object with "items") to version: the list's own apiVersion
// and every item's must be versions of the CRD; the None strategy rewrites each item's
// apiVersion, the Webhook strategy sends the items not yet at version in one ConversionReview.
// list is not modified.
func (c *Converter) ConvertList(list map[string]any, version string) (map[string]any, error) {
	return c.convert(list, version, true)
}

func (c *Converter) validGV(gv schema.GroupVersion) bool {
	return gv.Group == c.crd.Schema.Group && c.crd.Schema.Version(gv.Version) != nil
}

// check is crConverter's validation of a conversion request: the object's and the target's
// group versions, and every list item's, must be versions of the CRD.
func (c *Converter) check(in map[string]any, version string, isList bool) (schema.GroupVersion, error) {
	target := c.crd.GroupVersion(version)
	from := gvkOf(in)
	if from.Group != target.Group {
		return target, errorf("%v is unstructured and is not suitable for converting to %q", from.String(), target.String())
	}
	if !c.validGV(target) {
		return target, errorf("request to convert CR to an invalid group/version: %s", target.String())
	}
	if !c.validGV(from.GroupVersion()) {
		return target, errorf("request to convert CR from an invalid group/version: %s", from.GroupVersion().String())
	}
	if isList {
		items, _ := in["items"].([]any)
		for i, it := range items {
			m, _ := it.(map[string]any)
			if gv := gvkOf(m).GroupVersion(); !c.validGV(gv) {
				return target, errorf("request to convert CR list failed, list index %d has invalid group/version: %s", i, gv.String())
			}
		}
	}
	return target, nil
}

func (c *Converter) convert(in map[string]any, version string, isList bool) (map[string]any, error) {
	if in == nil {
		in = map[string]any{}
	}
	target, err := c.check(in, version, isList)
	if err != nil {
		return nil, err
	}
	cp, err := value.DeepCopyMap(in)
	if err != nil {
		return nil, err
	}
	var items []any
	if isList {
		items, _ = cp["items"].([]any)
	}
	switch c.crd.Strategy {
	case StrategyNone:
		return nopConvert(cp, items, target), nil
	case StrategyWebhook:
		return c.webhookConvert(cp, items, isList, target)
	}
	return nil, fmt.Errorf("unknown conversion strategy %q for CRD %s", c.crd.Strategy, c.crd.Schema.Name)
}

// nopConvert sets apiVersion (and kind, as SetGroupVersionKind does, even when it was absent)
// of the list items and of the object itself.
func nopConvert(obj map[string]any, items []any, gv schema.GroupVersion) map[string]any {
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			setGVK(m, gv)
		}
	}
	setGVK(obj, gv)
	return obj
}

func setGVK(m map[string]any, gv schema.GroupVersion) {
	k, _ := m["kind"].(string)
	m["apiVersion"] = gv.String()
	m["kind"] = k
}

// coerce is what the apiserver's schemaCoercingConverter applies after converting: metadata
// through ObjectMeta (for any object), and for objects of the CRD (its group and kind) pruning by
// the version's structural schema, non-nullable nulls dropped, embedded metadata normalised.
// Versions the CRD does not have are left alone (the converter has rejected them already).
func (c *Converter) coerce(obj map[string]any) (map[string]any, error) {
	v := c.crd.Schema.Version(gvkOf(obj).Version)
	if v == nil {
		return value.DeepCopyMap(obj)
	}
	out, _, err := v.Coerce(obj, false)
	return out, err
}

// ToStorage is the write step after admission: the object, in the version of the request,
// converted to the storage version and coerced by the storage version's schema (pruning what
// it does not specify), as the apiserver's storage codec encodes it. obj is not modified.
func (c *Converter) ToStorage(obj map[string]any) (map[string]any, error) {
	out, err := c.Convert(obj, c.crd.StorageVersion())
	if err != nil {
		return nil, err
	}
	return c.coerce(out)
}

// Read is the read step: a stored object (at the version it was written in, normally the
// storage version) as the apiserver's storage codec decodes it for a request through version —
// coerced and defaulted by the stored version's schema, a missing or zero metadata.generation
// repaired to 1, converted to version and coerced by its schema. It is what get, list (item by
// item), watch and the response of a write return. stored is not modified.
func (c *Converter) Read(stored map[string]any, version string) (map[string]any, error) {
	obj := stored
	gvk := gvkOf(stored)
	if gvk.Group == c.crd.Schema.Group && gvk.Kind == c.crd.Schema.Names.Kind {
		if v := c.crd.Schema.Version(gvk.Version); v != nil {
			// the storage codec's decoder: malformed metadata dropped, generation repaired,
			// defaults of the stored version applied; a fresh object.
			var err error
			if obj, err = v.Read(stored); err != nil {
				return nil, err
			}
		}
	}
	return c.hop(obj, version)
}

// ReadList reads stored objects through version, item by item as the apiserver decodes them
// from storage, and returns the list object the apiserver sends (apiVersion, kind
// <Kind>List, items). Metadata of the list (resourceVersion, continue) is not filled in.
func (c *Converter) ReadList(stored []map[string]any, version string) (map[string]any, error) {
	items := make([]any, 0, len(stored))
	for _, s := range stored {
		o, err := c.Read(s, version)
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	return map[string]any{
		"apiVersion": c.crd.GroupVersion(version).String(),
		"kind":       c.crd.Schema.Names.ListKind,
		"metadata":   map[string]any{},
		"items":      items,
	}, nil
}

// Request is a read or write through one version of the CRD.
type Request struct {
	// Verb is "create", "update", "patch", "get", "list" or "watch".
	Verb string
	// Version is the version of the URL (/apis/<group>/<version>/...).
	Version string
}

// Step says what the apiserver does with a request through one version.
type Step struct {
	// From and To are the versions an object is converted from and to.
	From, To string
	// What names the step ("admission and validation", "storage", "response", "read").
	What string
}

// ListFailure is one stored object a list could not read (its conversion failed).
type ListFailure struct {
	// Key is the storage key with the storage prefix ("/registry/<group>/<plural>/<ns>/<name>").
	Key string
	// Revision is the object's etcd modification revision.
	Revision int64
	Err      error
}

// ListReadError is the apiserver's answer to a list through a version some stored objects fail
// to convert to (recorded from kube-apiserver 1.37): 500 StorageReadError, "failed to read one
// or more <plural>.<group> from the storage: <first failure> (and N more)", one cause per
// failure. failures are in storage-key order, as etcd returns them.
func ListReadError(plural, group string, failures []ListFailure) *status.Error {
	var causes []status.Cause
	var first string
	for i, f := range failures {
		msg := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", f.Key, f.Revision, f.Err)
		if i == 0 {
			first = msg
		}
		causes = append(causes, status.Cause{Type: "UnexpectedServerResponse", Field: f.Key, Message: msg})
	}
	gr := status.GroupResource{Group: group, Resource: plural}
	message := fmt.Sprintf("failed to read one or more %s from the storage: %s", gr.String(), first)
	if len(failures) > 1 {
		message = fmt.Sprintf("%s (and %d more)", message, len(failures)-1)
	}
	return &status.Error{Code: 500, Reason: "StorageReadError", Message: message,
		Details: &status.Details{Name: "list", Group: group, Kind: plural, Causes: causes}}
}

// Plan lists, for a request, the conversions the apiserver makes and the warnings it adds, or
// the error it answers for a version that is not served (404 "404 page not found", as the
// route does not exist).
func (c *CRD) Plan(req Request) ([]Step, []string, error) {
	if !c.Served(req.Version) {
		return nil, nil, &NotServedError{Version: req.Version}
	}
	s := c.StorageVersion()
	warn := c.Warnings(req.Version)
	write := []Step{
		{From: req.Version, To: req.Version, What: "decode, default and admission at the request version"},
		{From: req.Version, To: s, What: "storage: converted and pruned by the storage version's schema"},
		{From: s, To: req.Version, What: "response: read back and converted to the request version"},
	}
	switch strings.ToLower(req.Verb) {
	case "create":
		return write, warn, nil
	case "update", "patch", "apply":
		// the stored object is read (and converted) first: the patch applies to it, admission
		// and validation compare with it.
		return append([]Step{{From: s, To: req.Version, What: "read: the stored object converted to the request version"}}, write...), warn, nil
	case "get", "list", "watch":
		return []Step{{From: s, To: req.Version, What: "read: each stored object converted to the request version"}}, warn, nil
	}
	return nil, nil, fmt.Errorf("unknown verb %q", req.Verb)
}

// NotServedError is a request through a version the CRD does not serve (or does not have):
// the apiserver has no route for it and answers 404 with the text body "404 page not found".
type NotServedError struct{ Version string }

func (e *NotServedError) Error() string   { return "404 page not found" }
func (e *NotServedError) StatusCode() int { return 404 }
func (e *NotServedError) Reason() string  { return "NotFound" }
