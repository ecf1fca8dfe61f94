package apply

import (
	"errors"
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
)

// TypeConverter turns an object of the object model into a structured-merge-diff typed value,
// choosing the type from the object's apiVersion and kind (what the apiserver's TypeConverter
// does). opts are passed to SMD (typed.AllowDuplicates for live objects).
type TypeConverter interface {
	ObjectToTyped(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error)
}

// Types is a TypeConverter over a fixed set of kinds.
type Types map[schema.GroupVersionKind]typed.ParseableType

// ObjectToTyped implements TypeConverter. An object whose kind is not in the map fails with a
// *NoTypeError ("no corresponding type for apps/v1, Kind=Deployment").
func (t Types) ObjectToTyped(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	gvk := gvkOf(obj)
	pt, ok := t[gvk]
	if !ok {
		return nil, &NoTypeError{GVK: gvk}
	}
	return fromUnstructured(pt, obj, opts...)
}

// Builtin is the TypeConverter of every built-in kind of Kubernetes 1.37 (the schema package's
// catalogue, the types client-go's apply configurations use).
var Builtin TypeConverter = builtinTypes{}

type builtinTypes struct{}

// ObjectToTyped is the apiserver's TypeConverter of a built-in object: the unstructured
// converter's view of the Go value (without the present-but-empty []byte fields an object
// decoded with defaults.Options.KeepEmptyBytes holds as "": ToUnstructured leaves them out, see
// defaults.OmitEmptyBytes), typed by its schema.
func (builtinTypes) ObjectToTyped(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	pt, err := builtinType(obj)
	if err != nil {
		return nil, err
	}
	return fromUnstructured(pt, defaults.OmitEmptyBytes(obj), opts...)
}

// configToTyped types an applied (or last-applied) configuration, which the apiserver types as
// the unstructured object it is, not through a Go value: a "" in a []byte field is what the
// applier sets and is kept (ObjectToTyped leaves it out of typed objects only).
func (e *engine) configToTyped(obj map[string]any) (*typed.TypedValue, error) {
	if _, ok := e.types.(builtinTypes); ok {
		pt, err := builtinType(obj)
		if err != nil {
			return nil, err
		}
		return fromUnstructured(pt, obj)
	}
	return e.types.ObjectToTyped(obj)
}

// unvalidated is ObjectToTyped without the validation, for a part of an object validated whole
// already (withoutSharedFields): the same typed value.
func (builtinTypes) unvalidated(obj map[string]any) (*typed.TypedValue, error) {
	pt, err := builtinType(obj)
	if err != nil {
		return nil, err
	}
	return typed.AsTypedUnvalidated(value.NewValueInterface(defaults.OmitEmptyBytes(obj)), pt.Schema, pt.TypeRef), nil
}

// builtinType is the structured-merge-diff type of obj's built-in kind, a *NoTypeError for a
// kind the catalogue does not type.
func builtinType(obj map[string]any) (typed.ParseableType, error) {
	gvk := gvkOf(obj)
	k, err := schema.Builtin(gvk)
	if err != nil || k.SMDTypeName() == "" {
		return typed.ParseableType{}, &NoTypeError{GVK: gvk}
	}
	return k.SMDType()
}

// Deduced is the TypeConverter the apiserver uses for kinds without a schema: maps are merged key
// by key, lists are atomic.
var Deduced TypeConverter = deducedTypes{}

type deducedTypes struct{}

func (deducedTypes) ObjectToTyped(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return fromUnstructured(typed.DeducedParseableType, obj, opts...)
}

// NoTypeError reports a kind the TypeConverter has no type for. Server-side apply treats it like an
// unknown API version: ownership recorded at that version is dropped.
type NoTypeError struct {
	GVK schema.GroupVersionKind
}

func (e *NoTypeError) Error() string { return fmt.Sprintf("no corresponding type for %v", e.GVK) }

// Request.Convert is a schema.Converter: it converts obj from its own version to another of the
// same kind (same group). It is called only when obj is at another version. It must not change
// obj. An error wrapping ErrVersionUnknown says the version is not served any more: the
// apiserver then drops the managers recorded at that version.

// ErrVersionUnknown is what Request.Convert wraps for a version it does not know.
var ErrVersionUnknown = errors.New("version not registered")

// SameSchema returns the converter of versions that share one schema (CRD versions with
// conversion strategy None, for instance): converting only rewrites apiVersion. Versions not
// listed are unknown.
func SameSchema(apiVersions ...string) schema.Converter {
	known := make(map[string]bool, len(apiVersions))
	for _, v := range apiVersions {
		known[v] = true
	}
	return schema.ConverterFunc(func(obj map[string]any, _, to schema.GroupVersionKind) (map[string]any, error) {
		apiVersion := to.APIVersion()
		if !known[apiVersion] {
			return nil, fmt.Errorf("%w: %s", ErrVersionUnknown, apiVersion)
		}
		out := make(map[string]any, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		out["apiVersion"] = apiVersion
		return out, nil
	})
}

// smdConverter adapts a version converter and a TypeConverter to merge.Converter.
type smdConverter struct {
	types   TypeConverter
	convert schema.Converter
}

type missingVersionError struct{ err error }

func (e *missingVersionError) Error() string { return e.err.Error() }
func (e *missingVersionError) Unwrap() error { return e.err }

func (c smdConverter) Convert(object *typed.TypedValue, version fieldpath.APIVersion) (*typed.TypedValue, error) {
	gv, err := schema.ParseAPIVersion(string(version))
	if err != nil {
		return object, err
	}
	if cur, ok := groupVersionOfTyped(object); ok && cur == gv {
		return object, nil
	}
	obj, err := typedToObject(object)
	if err != nil {
		return object, err
	}
	if c.convert == nil {
		return object, &missingVersionError{err: fmt.Errorf("%w: %s", ErrVersionUnknown, version)}
	}
	from := gvkOf(obj)
	converted, err := c.convert.Convert(obj, from, gv.WithKind(from.Kind))
	if err != nil {
		if errors.Is(err, ErrVersionUnknown) {
			return object, &missingVersionError{err: err}
		}
		return object, err
	}
	tv, err := c.types.ObjectToTyped(converted)
	if err != nil {
		var nt *NoTypeError
		if errors.As(err, &nt) {
			return object, &missingVersionError{err: err}
		}
		return object, err
	}
	return tv, nil
}

func (c smdConverter) IsMissingVersionError(err error) bool {
	var m *missingVersionError
	return errors.As(err, &m)
}

func groupVersionOfTyped(tv *typed.TypedValue) (schema.GroupVersion, bool) {
	v := tv.AsValue()
	if v == nil || !v.IsMap() {
		return schema.GroupVersion{}, false
	}
	av, ok := v.AsMap().Get("apiVersion")
	if !ok || !av.IsString() {
		return schema.GroupVersion{}, false
	}
	gv, err := schema.ParseAPIVersion(av.AsString())
	if err != nil {
		return schema.GroupVersion{}, false
	}
	return gv, true
}

// typedToObject returns a fresh object-model copy of a typed value (SMD's results share memory
// with their inputs; ints normalised to int64).
func typedToObject(tv *typed.TypedValue) (map[string]any, error) {
	u := tv.AsValue().Unstructured()
	m, ok := u.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert value to unstructured for type %T", u)
	}
	return toModelMap(m), nil
}
