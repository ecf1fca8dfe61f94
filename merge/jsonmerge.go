package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// DefaultMaxRequestBytes is the apiserver's request body limit (3 MiB).
const DefaultMaxRequestBytes = 3 * 1024 * 1024

// Options configure the Apply functions. The zero value is the apiserver's
// configuration.
type Options struct {
	// FieldValidation is the request's fieldValidation: Ignore, Warn (the
	// default when empty) or Strict.
	FieldValidation schema.FieldValidation
	// MaxRequestBytes caps the patch body; 0 means 3 MiB, negative no limit.
	MaxRequestBytes int64
	// ShareUnpatched lets ApplyStrategic's result share with obj the values the patch does
	// not reach, instead of copying all of obj: the caller must then change neither. The
	// result is the same value either way.
	ShareUnpatched bool
	// OnPatch, when set, is called by ApplyStrategic with the decoded patch before it is
	// merged, for the caller to read (it must not keep or change it).
	OnPatch func(patch map[string]any)

	stats *mergeStats // work counters, set by the scaling tests only
}

func (o Options) validation() schema.FieldValidation {
	if o.FieldValidation == "" {
		return schema.FieldValidationWarn
	}
	return o.FieldValidation
}

// checkSize is the apiserver's body limit.
func (o Options) checkSize(patchJSON []byte) error {
	max := o.MaxRequestBytes
	if max == 0 {
		max = DefaultMaxRequestBytes
	}
	if max > 0 && int64(len(patchJSON)) > max {
		return fail(status.RequestEntityTooLarge(fmt.Sprintf("limit is %d", max)), nil)
	}
	return nil
}

// invalidJSON is the apiserver's answer to a body that is not JSON, checked
// before anything else; callers that decode first call it on a decoding error
// (same outcome, one pass less over valid bodies).
func invalidJSON(patchJSON []byte) error {
	if !json.Valid(patchJSON) {
		return fail(status.BadRequest("invalid JSON patch"), nil)
	}
	return nil
}

func (o Options) checkBody(patchJSON []byte) error {
	if err := o.checkSize(patchJSON); err != nil {
		return err
	}
	return invalidJSON(patchJSON)
}

// Result is a patched object and the warnings the apiserver would send.
type Result struct {
	Object   map[string]any
	Warnings []string
}

// ApplyMergePatch applies an RFC 7386 JSON merge patch to obj as kube-apiserver
// 1.37 applies a PATCH with Content-Type application/merge-patch+json (the
// apiserver runs gopkg.in/evanphx/json-patch.v4's MergePatch): null deletes a
// member, objects merge recursively, anything else (lists included) replaces;
// null members of a value that is inserted where nothing (or a non-object) was
// are dropped, recursively through objects and lists, but an array replacing
// an object is kept as sent. A patch that is not an object is refused as the
// apiserver refuses it (400 "error decoding patch: ..." under the default
// field validation, 400 "Invalid JSON Patch" for null; with Ignore a list patch
// replaces the whole document and fails decoding with 422). obj is not
// modified; the result shares nothing with the arguments.
func ApplyMergePatch(obj map[string]any, patchJSON []byte, opts Options) (Result, error) {
	if err := opts.checkBody(patchJSON); err != nil {
		return Result{}, err
	}
	var warnings []string
	if v := opts.validation(); v == schema.FieldValidationWarn || v == schema.FieldValidationStrict {
		m := map[string]any{}
		strict, err := kjson.UnmarshalStrict(patchJSON, &m)
		if err != nil {
			return Result{}, fail(status.BadRequest(fmt.Sprintf("error decoding patch: %v", err)), err)
		}
		for _, e := range strict {
			warnings = append(warnings, e.Error())
		}
	}
	patchVal, err := decodeJSON(patchJSON)
	if err != nil {
		return Result{}, fail(status.BadRequest(err.Error()), err)
	}
	var out map[string]any
	switch p := patchVal.(type) {
	case map[string]any:
		doc, err := copyObject(obj)
		if err != nil {
			return Result{}, fail(status.InternalError(err), err)
		}
		if doc == nil {
			// A nil object is patched as an empty one.
			doc = map[string]any{}
		}
		mergeInto(doc, p)
		out = doc
	case nil:
		return Result{}, fail(status.BadRequest("Invalid JSON Patch"), errBadJSONPatch)
	case []any:
		// The library returns the list itself (nulls pruned inside objects);
		// the apiserver then fails to read a kind from it.
		pruned := pruneNulls(p)
		b, _ := json.Marshal(pruned)
		return Result{}, notAnObject(b)
	default:
		return Result{}, fail(status.BadRequest("Invalid JSON Patch"), errBadJSONPatch)
	}
	if len(warnings) > 0 && opts.validation() == schema.FieldValidationStrict {
		b, _ := json.Marshal(out)
		return Result{}, fail(status.Invalid(status.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), string(b), "strict decoding error: "+strings.Join(warnings, ", "))}), nil)
	}
	if opts.validation() != schema.FieldValidationWarn {
		warnings = nil
	}
	return Result{Object: out, Warnings: warnings}, nil
}

var errBadJSONPatch = errors.New("Invalid JSON Patch")

func notAnObject(patched []byte) error {
	detail := "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"
	return fail(status.Invalid(status.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(patched), detail)}), nil)
}

// mergeInto merges patch into doc (both owned by the caller) with the
// library's rules.
func mergeInto(doc, patch map[string]any) {
	for k, pv := range patch {
		if pv == nil {
			delete(doc, k)
			continue
		}
		cur, ok := doc[k]
		if !ok || cur == nil {
			doc[k] = pruneNulls(pv)
			continue
		}
		doc[k] = mergeValue(cur, pv)
	}
}

func mergeValue(cur, pv any) any {
	cm, ok := cur.(map[string]any)
	if !ok {
		return pruneNulls(pv)
	}
	pm, ok := pv.(map[string]any)
	if !ok {
		return pv
	}
	mergeInto(cm, pm)
	return cm
}

// pruneNulls drops null members of objects, recursively through objects and
// lists (null list elements stay). v is owned by the caller.
func pruneNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				t[k] = pruneNulls(e)
			}
		}
	case []any:
		for i, e := range t {
			if e != nil {
				t[i] = pruneNulls(e)
			}
		}
	}
	return v
}

// CreateMergePatch returns the JSON merge patch that turns original into
// modified, as gopkg.in/evanphx/json-patch.v4's CreateMergePatch computes it
// (what kubectl and controllers send): changed and added members with their new
// value, removed members as null, lists replaced whole, objects diffed
// recursively and omitted when unchanged. Numbers are compared and written as
// that library reads them (float64), so integers beyond 2^53 round. The bytes
// are encoding/json's (sorted keys). Arguments are not modified.
func CreateMergePatch(original, modified map[string]any) ([]byte, error) {
	o, err := asFloats(original)
	if err != nil {
		return nil, err
	}
	m, err := asFloats(modified)
	if err != nil {
		return nil, err
	}
	d := diffMerge(o.(map[string]any), m.(map[string]any))
	return json.Marshal(d)
}

func diffMerge(a, b map[string]any) map[string]any {
	into := map[string]any{}
	for k, bv := range b {
		av, ok := a[k]
		if !ok || reflect.TypeOf(av) != reflect.TypeOf(bv) {
			into[k] = bv
			continue
		}
		switch at := av.(type) {
		case map[string]any:
			if d := diffMerge(at, bv.(map[string]any)); len(d) > 0 {
				into[k] = d
			}
		case nil:
		default:
			if !reflect.DeepEqual(av, bv) {
				into[k] = bv
			}
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			into[k] = nil
		}
	}
	return into
}

// asFloats deep-copies v with every number as float64, as encoding/json
// decodes into interface values.
func asFloats(v any) (any, error) {
	switch t := v.(type) {
	case nil, bool, string, float64:
		return t, nil
	case int64:
		return float64(t), nil
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			c, err := asFloats(e)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			c, err := asFloats(e)
			if err != nil {
				return nil, err
			}
			s[i] = c
		}
		return s, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}

// Precondition is a check on a three-way patch, as
// k8s.io/apimachinery/pkg/util/mergepatch.PreconditionFunc.
type Precondition func(patch map[string]any) bool

// RequireKeyUnchanged fails when the patch changes the top-level key.
func RequireKeyUnchanged(key string) Precondition {
	return func(patch map[string]any) bool {
		_, ok := patch[key]
		return !ok
	}
}

// RequireMetadataKeyUnchanged fails when the patch changes metadata.<key>.
func RequireMetadataKeyUnchanged(key string) Precondition {
	return func(patch map[string]any) bool {
		md, ok := patch["metadata"]
		if !ok {
			return true
		}
		m, ok := md.(map[string]any)
		if !ok {
			return true
		}
		_, ok = m[key]
		return !ok
	}
}

// CreateThreeWayMergePatch returns the JSON merge patch kubectl apply sends for
// an object without strategic merge patch metadata (custom resources), as
// k8s.io/apimachinery/pkg/util/jsonmergepatch.CreateThreeWayJSONMergePatch
// computes it: additions and changes from current to modified, deletions from
// original (the last applied configuration) to modified, a *ConflictError when
// they overlap, then the preconditions (*PreconditionError). A nil map stands
// for {}. Arguments are not modified.
func CreateThreeWayMergePatch(original, modified, current map[string]any, preconditions ...Precondition) ([]byte, error) {
	if original == nil {
		original = map[string]any{}
	}
	if modified == nil {
		modified = map[string]any{}
	}
	if current == nil {
		current = map[string]any{}
	}
	addAndChange, err := CreateMergePatch(current, modified)
	if err != nil {
		return nil, err
	}
	addObj, err := keepOrDeleteNull(addAndChange, false)
	if err != nil {
		return nil, err
	}
	deletion, err := CreateMergePatch(original, modified)
	if err != nil {
		return nil, err
	}
	delObj, err := keepOrDeleteNull(deletion, true)
	if err != nil {
		return nil, err
	}
	if hasConflicts(addObj, delObj) {
		return nil, &ConflictError{message: fmt.Sprintf("patch:\n%s\nconflicts with changes made from original to current:\n%s\n", toYAML(addObj), toYAML(delObj))}
	}
	// MergePatch(deletion, addAndChange) with the library's rules, written by
	// encoding/json.
	addCopy, err := roundTrip(addObj)
	if err != nil {
		return nil, err
	}
	doc, err := roundTrip(delObj)
	if err != nil {
		return nil, err
	}
	mergeInto(doc, addCopy)
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	patchMap, err := roundTrip(doc)
	if err != nil {
		return nil, err
	}
	for _, fn := range preconditions {
		if !fn(patchMap) {
			return nil, &PreconditionError{message: fmt.Sprintf("precondition failed for: %v", patchMap)}
		}
	}
	return out, nil
}

// keepOrDeleteNull decodes a merge patch (integers as int64, as
// k8s.io/apimachinery/pkg/util/json does) and keeps only its nulls (keepNull)
// or only its non-null values; an explicitly empty object counts as a value.
func keepOrDeleteNull(patchJSON []byte, keepNull bool) (map[string]any, error) {
	m, err := decodeObjectK8s(patchJSON)
	if err != nil {
		return nil, err
	}
	return filterNulls(m, keepNull), nil
}

func filterNulls(m map[string]any, keepNull bool) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch t := v.(type) {
		case nil:
			if keepNull {
				out[k] = nil
			}
		case map[string]any:
			if len(t) == 0 {
				if !keepNull {
					out[k] = t
				}
				continue
			}
			if sub := filterNulls(t, keepNull); len(sub) != 0 {
				out[k] = sub
			}
		default:
			if !keepNull {
				out[k] = v
			}
		}
	}
	return out
}

// hasConflicts is mergepatch.HasConflicts on decoded patches.
func hasConflicts(left, right any) bool {
	switch l := left.(type) {
	case map[string]any:
		r, ok := right.(map[string]any)
		if !ok {
			return true
		}
		for k, lv := range l {
			rv, ok := r[k]
			if !ok {
				continue
			}
			if hasConflicts(lv, rv) {
				return true
			}
		}
		return false
	case []any:
		r, ok := right.([]any)
		if !ok || len(l) != len(r) {
			return true
		}
		for i := range l {
			if hasConflicts(l[i], r[i]) {
				return true
			}
		}
		return false
	default:
		return !reflect.DeepEqual(left, right)
	}
}

func toYAML(v any) string {
	y, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(y)
}

// roundTrip is encoding/json then k8s.io/apimachinery/pkg/util/json decoding.
func roundTrip(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeObjectK8s(b)
}

// decodeObjectK8s decodes a JSON object as k8s.io/apimachinery/pkg/util/json
// does: numbers that are integers as int64, the others float64.
func decodeObjectK8s(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeJSON decodes one JSON value with integers as int64.
func decodeJSON(data []byte) (any, error) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// copyObject deep-copies an object as the apiserver's JSON round trip reads it
// back (value.RoundTripJSON: a float64 that encodes as an integer becomes int64).
// copyAlongPatch is copyObject for a strategic merge of patch, which changes only what the
// patch names: the maps on the way to the patch's members are copied, the values at its
// members are copied (RoundTripJSON), and the rest of obj is shared. ok is false when the
// result could differ from copyObject's: a directive ($patch, $retainKeys, $setElementOrder,
// ...) at a level (the merge may then change any of its members), or a shared value
// RoundTripJSON would change (a float64 that encodes as an integer, a typed nil map or list,
// a value outside the model); the caller then copies obj whole.
func copyAlongPatch(obj, patch map[string]any) (map[string]any, bool) {
	for k := range patch {
		if strings.HasPrefix(k, "$") {
			return nil, false
		}
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		pv, patched := patch[k]
		if !patched {
			if !roundTripsToItself(v) {
				return nil, false
			}
			out[k] = v
			continue
		}
		pm, pok := pv.(map[string]any)
		om, ook := v.(map[string]any)
		if pok && ook && om != nil {
			c, ok := copyAlongPatch(om, pm)
			if !ok {
				return nil, false
			}
			out[k] = c
			continue
		}
		c, err := value.RoundTripJSON(v)
		if err != nil {
			return nil, false
		}
		out[k] = c
	}
	return out, true
}

// roundTripsToItself reports whether value.RoundTripJSON(v) equals v, without copying.
func roundTripsToItself(v any) bool {
	switch x := v.(type) {
	case nil, bool, int64, string:
		return true
	case float64:
		r, err := value.RoundTripJSON(x)
		_, still := r.(float64)
		return err == nil && still
	case map[string]any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !roundTripsToItself(e) {
				return false
			}
		}
		return true
	case []any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !roundTripsToItself(e) {
				return false
			}
		}
		return true
	}
	return false
}

func copyObject(m map[string]any) (map[string]any, error) {
	v, err := value.RoundTripJSON(m)
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	return out, nil
}
