package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/patch/internal/handlers"
	"github.com/writepath/writepath/patch/internal/jsonpatch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// The apiserver's limits (k8s.io/apiserver v0.37.2: endpoints/handlers/patch.go
// maxJSONPatchOperations; server/config.go JSONPatchMaxCopyBytes and
// MaxRequestBodyBytes defaults).
const (
	DefaultMaxOperations   = 10000
	DefaultMaxCopyBytes    = 3 * 1024 * 1024
	DefaultMaxRequestBytes = 3 * 1024 * 1024
)

// Sentinel causes, for errors.Is on a failed apply. Their texts are the
// library's, which appear in Error.Cause but not in the status message.
var (
	ErrTestFailed   = errors.New("test failed")
	ErrMissing      = errors.New("missing value")
	ErrInvalidIndex = errors.New("invalid index referenced")
)

// Options configure ApplyJSONPatch. The zero value is the apiserver's
// configuration.
type Options struct {
	// MaxOperations caps the number of operations; 0 means 10,000, negative
	// means no limit.
	MaxOperations int
	// MaxCopyBytes caps the bytes all "copy" operations of one patch may
	// duplicate; 0 means 3 MiB, negative means no limit.
	MaxCopyBytes int64
	// MaxRequestBytes caps the size of the patch body; 0 means 3 MiB, negative
	// means no limit.
	MaxRequestBytes int64
	// FieldValidation is the request's fieldValidation: Ignore, Warn (the
	// default when empty) or Strict.
	FieldValidation schema.FieldValidation
}

func (o Options) maxOps() int {
	if o.MaxOperations == 0 {
		return DefaultMaxOperations
	}
	return o.MaxOperations
}

func (o Options) maxCopy() int64 {
	if o.MaxCopyBytes == 0 {
		return DefaultMaxCopyBytes
	}
	return o.MaxCopyBytes
}

func (o Options) maxRequest() int64 {
	if o.MaxRequestBytes == 0 {
		return DefaultMaxRequestBytes
	}
	return o.MaxRequestBytes
}

func (o Options) validation() schema.FieldValidation {
	if o.FieldValidation == "" {
		return schema.FieldValidationWarn
	}
	return o.FieldValidation
}

// Result is a patched object and the warnings the apiserver would send with it.
type Result struct {
	// Object is the patched object, a fresh value.
	Object map[string]any
	// Warnings are the Warning headers' texts (field validation Warn).
	Warnings []string
}

// Error is a failed patch: Status is what kube-apiserver answers (its code,
// reason and message) and Cause, when there is one, is the underlying error
// (the JSON Patch library's text, which the apiserver does not send for a 422).
type Error = status.PatchError

func fail(st *status.Error, cause error) error { return &Error{Status: st, Cause: cause} }

// ApplyJSONPatch applies an RFC 6902 JSON Patch document to obj exactly as
// kube-apiserver 1.37 applies a PATCH with Content-Type
// application/json-patch+json: the body checks, the field validation pre-decode,
// the 10,000-operation and copy-size limits, the library's semantics (including
// its departures from the RFC) and the decoding of the result. obj is not
// modified; the result shares nothing with obj or patchJSON.
func ApplyJSONPatch(obj map[string]any, patchJSON []byte, opts Options) (Result, error) {
	if obj == nil {
		return Result{}, fail(status.BadRequest("the object to patch is null"), nil)
	}
	ops, warnings, err := decode(patchJSON, opts)
	if err != nil {
		return Result{}, err
	}
	root := &node{form: formObj, obj: make(map[string]*node, len(obj))}
	for k, v := range obj {
		root.obj[k] = valueNode(v)
	}
	root, err = run(root, ops, opts.maxCopy())
	if err != nil {
		if errors.Is(err, ErrServerPanics) {
			return Result{}, fail(status.InternalError(err), err)
		}
		return Result{}, fail(status.GenericServerResponse(http.StatusUnprocessableEntity, "", status.GroupResource{}, "", err.Error(), 0, false), err)
	}
	out, err := toObject(root)
	if err != nil {
		return Result{}, err
	}
	if len(warnings) > 0 && opts.validation() == schema.FieldValidationStrict {
		return Result{}, strictInvalid(root, warnings)
	}
	if opts.validation() != schema.FieldValidationWarn {
		warnings = nil
	}
	return Result{Object: out, Warnings: warnings}, nil
}

// decode runs the apiserver's checks on a JSON Patch body and decodes it.
func decode(patchJSON []byte, opts Options) (jsonpatch.Patch, []string, error) {
	if max := opts.maxRequest(); max > 0 && int64(len(patchJSON)) > max {
		return nil, nil, fail(status.RequestEntityTooLarge(fmt.Sprintf("limit is %d", max)), nil)
	}
	if !json.Valid(patchJSON) {
		return nil, nil, fail(status.BadRequest("invalid JSON patch"), nil)
	}
	var warnings []string
	if v := opts.validation(); v == schema.FieldValidationWarn || v == schema.FieldValidationStrict {
		strict, err := handlers.StrictDecode(patchJSON)
		if err != nil {
			return nil, nil, fail(status.BadRequest(fmt.Sprintf("error decoding patch: %v", err)), err)
		}
		for _, e := range strict {
			warnings = append(warnings, "json patch "+e.Error())
		}
	}
	ops, err := jsonpatch.Decode(patchJSON)
	if err != nil {
		return nil, nil, fail(status.BadRequest(err.Error()), err)
	}
	if max := opts.maxOps(); max > 0 && len(ops) > max {
		return nil, nil, fail(status.RequestEntityTooLarge(fmt.Sprintf(
			"The allowed maximum operations in a JSON patch is %d, got %d", max, len(ops))), nil)
	}
	return ops, warnings, nil
}

// strictInvalid is the apiserver's 422 for strict decoding errors of the patch
// itself under fieldValidation=Strict: the patched object's JSON is the value.
func strictInvalid(root *node, strictErrs []string) error {
	var buf bytes.Buffer
	marshal(&buf, root)
	detail := "strict decoding error: " + strings.Join(strictErrs, ", ")
	return fail(status.Invalid(status.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), buf.String(), detail)}), nil)
}

// toObject converts the patched document into a fresh object, as the
// apiserver's decoder sees the library's output. A result that is not an
// object fails the apiserver's version/kind sniffing.
func toObject(root *node) (map[string]any, error) {
	if root.form != formObj || root.obj == nil {
		var buf bytes.Buffer
		marshal(&buf, root)
		kind := "array"
		if root.form == formObj {
			kind = "null"
		}
		detail := "couldn't get version/kind; json parse error: json: cannot unmarshal " + kind +
			" into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"
		return nil, fail(status.Invalid(status.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), buf.String(), detail)}), nil)
	}
	out, err := nodeValue(root)
	if err != nil {
		// A value outside the object model in the caller's object.
		return nil, fail(status.InternalError(err), err)
	}
	m, _ := out.(map[string]any)
	return m, nil
}

// run applies the operations in order to root and returns the new root (a
// "replace" of the whole document swaps it).
func run(root *node, ops jsonpatch.Patch, maxCopy int64) (*node, error) {
	var copied int64
	for _, op := range ops {
		var err error
		switch kind(op) {
		case "add":
			err = opAdd(root, op)
		case "remove":
			err = opRemove(root, op)
		case "replace":
			root, err = opReplace(root, op)
		case "move":
			err = opMove(root, op)
		case "test":
			err = opTest(root, op)
		case "copy":
			err = opCopy(root, op, &copied, maxCopy)
		default:
			err = fmt.Errorf("Unexpected kind: %s", kind(op))
		}
		if err != nil {
			return nil, err
		}
	}
	return root, nil
}

func kind(op jsonpatch.Operation) string {
	raw := op["op"]
	if raw == nil {
		return "unknown"
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		return "unknown"
	}
	return s
}

// member reads the "path" or "from" member: a string, or an error naming the
// missing member with the library's wording.
func member(op jsonpatch.Operation, name, missing string) (string, error) {
	raw := op[name]
	if raw == nil {
		return "unknown", fmt.Errorf("%s: %w", missing, ErrMissing)
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		return "unknown", err
	}
	return s, nil
}

func opPath(op jsonpatch.Operation) (string, error) {
	return member(op, "path", "operation missing path field")
}

func opFrom(op jsonpatch.Operation) (string, error) {
	return member(op, "from", "operation, missing from field")
}

// opValue is the operation's value: nil when the member is absent, a node
// without text when it is JSON null.
func opValue(op jsonpatch.Operation) *node {
	raw, ok := op["value"]
	if !ok {
		return nil
	}
	return rawNode(raw)
}

func opAdd(root *node, op jsonpatch.Operation) error {
	path, err := opPath(op)
	if err != nil {
		return fmt.Errorf("add operation failed to decode path: %w", ErrMissing)
	}
	c, key := find(root, path)
	if c == nil {
		return fmt.Errorf("add operation does not apply: doc is missing path: \"%s\": %w", path, ErrMissing)
	}
	if err := add(c, key, opValue(op)); err != nil {
		if errors.Is(err, ErrServerPanics) {
			return err
		}
		return fmt.Errorf("error in add for path: '%s': %w", path, err)
	}
	return nil
}

func opRemove(root *node, op jsonpatch.Operation) error {
	path, err := opPath(op)
	if err != nil {
		return fmt.Errorf("remove operation failed to decode path: %w", ErrMissing)
	}
	c, key := find(root, path)
	if c == nil {
		return fmt.Errorf("remove operation does not apply: doc is missing path: \"%s\": %w", path, ErrMissing)
	}
	if err := remove(c, key); err != nil {
		return fmt.Errorf("error in remove for path: '%s': %w", path, err)
	}
	return nil
}

func opReplace(root *node, op jsonpatch.Operation) (*node, error) {
	path, err := opPath(op)
	if err != nil {
		return nil, fmt.Errorf("replace operation failed to decode path: %w", err)
	}
	if path == "" {
		v := opValue(op)
		if v == nil {
			// The library dereferences the missing value.
			return nil, ErrServerPanics
		}
		if !v.intoObjTry() && !v.intoArrTry() {
			// The library wraps a nil error here, hence "%!w(<nil>)".
			return nil, fmt.Errorf("replace operation value must be object or array: %w", nil)
		}
		return v, nil
	}
	c, key := find(root, path)
	if c == nil {
		return nil, fmt.Errorf("replace operation does not apply: doc is missing path: %s: %w", path, ErrMissing)
	}
	if _, err := get(c, key); err != nil {
		return nil, fmt.Errorf("replace operation does not apply: doc is missing key: %s: %w", path, ErrMissing)
	}
	if err := set(c, key, opValue(op)); err != nil {
		if errors.Is(err, ErrServerPanics) {
			return nil, err
		}
		return nil, fmt.Errorf("error in remove for path: '%s': %w", path, err)
	}
	return root, nil
}

func opMove(root *node, op jsonpatch.Operation) error {
	from, err := opFrom(op)
	if err != nil {
		return fmt.Errorf("move operation failed to decode from: %w", err)
	}
	c, key := find(root, from)
	if c == nil {
		return fmt.Errorf("move operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
	}
	v, err := get(c, key)
	if err != nil {
		return fmt.Errorf("error in move for path: '%s': %w", key, err)
	}
	if err := remove(c, key); err != nil {
		return fmt.Errorf("error in move for path: '%s': %w", key, err)
	}
	path, err := opPath(op)
	if err != nil {
		return fmt.Errorf("move operation failed to decode path: %w", err)
	}
	c, key = find(root, path)
	if c == nil {
		return fmt.Errorf("move operation does not apply: doc is missing destination path: %s: %w", path, ErrMissing)
	}
	if err := add(c, key, v); err != nil {
		if errors.Is(err, ErrServerPanics) {
			return err
		}
		return fmt.Errorf("error in move for path: '%s': %w", path, err)
	}
	return nil
}

func opTest(root *node, op jsonpatch.Operation) error {
	path, err := opPath(op)
	if err != nil {
		return fmt.Errorf("test operation failed to decode path: %w", err)
	}
	if path == "" {
		// The library compares a fresh view of the root container.
		self := &node{form: root.form, obj: root.obj, arr: root.arr}
		eq, err := equal(self, opValue(op))
		if err != nil {
			return err
		}
		if eq {
			return nil
		}
		return fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
	}
	c, key := find(root, path)
	if c == nil {
		return fmt.Errorf("test operation does not apply: is missing path: %s: %w", path, ErrMissing)
	}
	v, err := get(c, key)
	if err != nil {
		return fmt.Errorf("error in test for path: '%s': %w", path, err)
	}
	ov := opValue(op)
	if v == nil {
		if ov == nil || ov.textNil() {
			return nil
		}
		return fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
	}
	if ov == nil {
		return fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
	}
	eq, err := equal(v, ov)
	if err != nil {
		return err
	}
	if eq {
		return nil
	}
	return fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
}

func opCopy(root *node, op jsonpatch.Operation, copied *int64, maxCopy int64) error {
	from, err := opFrom(op)
	if err != nil {
		return fmt.Errorf("copy operation failed to decode from: %w", err)
	}
	c, key := find(root, from)
	if c == nil {
		return fmt.Errorf("copy operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
	}
	v, err := get(c, key)
	if err != nil {
		return fmt.Errorf("error in copy for from: '%s': %w", from, err)
	}
	path, err := opPath(op)
	if err != nil {
		return fmt.Errorf("copy operation failed to decode path: %w", ErrMissing)
	}
	c, key = find(root, path)
	if c == nil {
		return fmt.Errorf("copy operation does not apply: doc is missing destination path: %s: %w", path, ErrMissing)
	}
	var dup *node
	if v != nil {
		var buf bytes.Buffer
		marshal(&buf, v)
		*copied += int64(buf.Len())
		dup = &node{raw: buf.Bytes()}
	}
	if maxCopy > 0 && *copied > maxCopy {
		return fmt.Errorf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", *copied, maxCopy)
	}
	if err := add(c, key, dup); err != nil {
		if errors.Is(err, ErrServerPanics) {
			return err
		}
		return fmt.Errorf("error while adding value during copy: %w", err)
	}
	return nil
}
