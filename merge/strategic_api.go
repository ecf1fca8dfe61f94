package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	kjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// patchTypesWithoutStrategic are the PATCH content types the apiserver
// accepts for a resource without strategic merge patch (custom resources), in
// the order its 415 lists them.
var patchTypesWithoutStrategic = []string{
	"application/json-patch+json",
	"application/merge-patch+json",
	"application/apply-patch+yaml",
}

// ApplyStrategic applies a strategic merge patch to obj as kube-apiserver 1.37
// applies a PATCH with Content-Type application/strategic-merge-patch+json:
// strategicpatch.StrategicMergeMapPatch over meta (the kind's patch metadata,
// see KindMeta), with every directive ($patch replace/delete/merge,
// $retainKeys, $setElementOrder/<list>, $deleteFromPrimitiveList/<list>), the
// fields' strategies and merge keys. A nil meta (a kind without patch
// metadata, such as a custom resource) is refused with the apiserver's 415.
// Errors are mapped to statuses as the apiserver maps them (400 for a bad
// patch format, 422 for lists of lists and retainKeys mismatches, 500 for the
// other strategicpatch errors, which the apiserver does not classify). obj is
// not modified; the result shares nothing with the arguments.
func ApplyStrategic(obj map[string]any, patchJSON []byte, meta Meta, opts Options) (Result, error) {
	// The content type is checked before the body is read.
	if meta == nil {
		return Result{}, fail(status.UnknownBodyFormat(patchTypesWithoutStrategic), ErrUnsupportedStrategicMergePatchFormat)
	}
	if err := opts.checkSize(patchJSON); err != nil {
		return Result{}, err
	}
	patchMap, strictErrs, err := decodeStrategicPatch(patchJSON, opts)
	if err != nil {
		return Result{}, err
	}
	if opts.OnPatch != nil {
		opts.OnPatch(patchMap)
	}
	var original map[string]any
	shared := false
	if opts.ShareUnpatched && obj != nil {
		original, shared = copyAlongPatch(obj, patchMap)
	}
	if !shared {
		if original, err = copyObject(obj); err != nil {
			return Result{}, fail(status.InternalError(err), err)
		}
	}
	if original == nil {
		original = map[string]any{}
	}
	result, err := mergeMap(original, patchMap, meta, mergeOptions{mergeParallelList: true, ignoreUnmatchedNulls: true, stats: opts.stats})
	if err != nil {
		return Result{}, strategicStatus(err)
	}
	if len(strictErrs) > 0 && opts.validation() == schema.FieldValidationStrict {
		return Result{}, fail(status.Invalid(status.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), "strict decoding error: "+strings.Join(strictErrs, ", "))}), nil)
	}
	if opts.validation() != schema.FieldValidationWarn {
		strictErrs = nil
	}
	return Result{Object: result, Warnings: strictErrs}, nil
}

// decodeStrategicPatch decodes the patch body as the apiserver does (strict
// decoding under fieldValidation Warn and Strict), with the fast decoder for
// well-formed objects without duplicate keys (the same map, and no strict
// errors) and the reference decoder for everything else.
func decodeStrategicPatch(patchJSON []byte, opts Options) (map[string]any, []string, error) {
	if m, ok := decodeObjectFast(patchJSON); ok {
		return m, nil, nil
	}
	patchMap := map[string]any{}
	var strictErrs []string
	if v := opts.validation(); v == schema.FieldValidationWarn || v == schema.FieldValidationStrict {
		strict, err := kjson.UnmarshalStrict(patchJSON, &patchMap)
		if err != nil {
			if e := invalidJSON(patchJSON); e != nil {
				return nil, nil, e
			}
			return nil, nil, fail(status.BadRequest(err.Error()), err)
		}
		for _, e := range strict {
			strictErrs = append(strictErrs, e.Error())
		}
	} else if err := kjson.UnmarshalCaseSensitivePreserveInts(patchJSON, &patchMap); err != nil {
		if e := invalidJSON(patchJSON); e != nil {
			return nil, nil, e
		}
		return nil, nil, fail(status.BadRequest(err.Error()), err)
	}
	return patchMap, strictErrs, nil
}

// strategicStatus is the apiserver's interpretStrategicMergePatchError.
func strategicStatus(err error) error {
	switch err {
	case ErrBadJSONDoc, ErrBadPatchFormatForPrimitiveList, ErrBadPatchFormatForRetainKeys,
		ErrBadPatchFormatForSetElementOrderList, ErrUnsupportedStrategicMergePatchFormat:
		return fail(status.BadRequest(err.Error()), err)
	case ErrNoListOfLists, ErrPatchContentNotMatchRetainKeys:
		return fail(status.GenericServerResponse(http.StatusUnprocessableEntity, "", status.GroupResource{}, "", err.Error(), 0, false), err)
	case ErrServerPanics:
		return fail(status.InternalError(err), err)
	}
	// An error without status: the apiserver answers 500 with its text and
	// no reason.
	return fail(&status.Error{Code: http.StatusInternalServerError, Reason: status.ReasonUnknown, Message: err.Error()}, err)
}

// CreateStrategic returns the strategic merge patch that turns original into
// modified, as strategicpatch.CreateTwoWayMergePatch computes it (with
// $setElementOrder lists), or a *PreconditionError. Bytes are encoding/json's.
// Arguments are not modified.
func CreateStrategic(original, modified map[string]any, meta Meta, preconditions ...Precondition) ([]byte, error) {
	// diffMaps only reads its inputs (lists are sorted on copies), so they
	// are copied only when they hold numbers a JSON round trip would change.
	o, err := asDecoded(original)
	if err != nil {
		return nil, err
	}
	m, err := asDecoded(modified)
	if err != nil {
		return nil, err
	}
	p, err := diffMaps(o, m, meta, diffOptions{setElementOrder: true})
	if err != nil {
		return nil, unwrapPanic(err)
	}
	for _, fn := range preconditions {
		if !fn(p) {
			return nil, &PreconditionError{message: fmt.Sprintf("precondition failed for: %v", p)}
		}
	}
	return json.Marshal(p)
}

// CreateThreeWayStrategic returns the patch kubectl apply sends for a built-in
// kind, as strategicpatch.CreateThreeWayMergePatch computes it: additions and
// changes from current (the live object) to modified (the new configuration),
// deletions from original (the last-applied configuration) to modified, then
// the preconditions (*PreconditionError) and, unless overwrite, kubectl's
// conflict check against the changes from original to current
// (*ConflictError). A nil map stands for an empty document. Arguments are not
// modified.
func CreateThreeWayStrategic(original, modified, current map[string]any, meta Meta, overwrite bool, preconditions ...Precondition) ([]byte, error) {
	// original and current are only read (diffs sort copies of lists);
	// modified is copied because its values end up in the patch, which the
	// final merge modifies in place.
	o, err := asDecoded(original)
	if err != nil {
		return nil, err
	}
	m, err := copyDecoded(modified)
	if err != nil {
		return nil, err
	}
	var c map[string]any
	if overwrite {
		c, err = asDecoded(current)
	} else {
		// The conflict message shows current's lists as the first diff left
		// them (sorted in place): work on a private copy, in place.
		c, err = copyDecoded(current)
	}
	if err != nil {
		return nil, err
	}
	delta, err := diffMaps(c, m, meta, diffOptions{ignoreDeletions: true, setElementOrder: true, sortInPlace: !overwrite})
	if err != nil {
		return nil, unwrapPanic(err)
	}
	deletions, err := diffMaps(o, m, meta, diffOptions{setElementOrder: true, ignoreChangesAndAdditions: true})
	if err != nil {
		return nil, unwrapPanic(err)
	}
	p, err := mergeMap(deletions, delta, meta, mergeOptions{})
	if err != nil {
		return nil, unwrapPanic(err)
	}
	for _, fn := range preconditions {
		if !fn(p) {
			return nil, &PreconditionError{message: fmt.Sprintf("precondition failed for: %v", p)}
		}
	}
	if !overwrite {
		changed, err := diffMaps(o, c, meta, diffOptions{})
		if err != nil {
			return nil, unwrapPanic(err)
		}
		conflict, err := mergingMapsHaveConflicts(p, changed, meta)
		if err != nil {
			return nil, unwrapPanic(err)
		}
		if conflict {
			return nil, &ConflictError{message: fmt.Sprintf("patch:\n%s\nconflicts with changes made from original to current:\n%s\n", toYAML(p), toYAML(changed))}
		}
	}
	return json.Marshal(p)
}

// ErrReferencePanics is returned by the creation functions where the reference
// implementation panics on the input.
var ErrReferencePanics = errors.New("strategicpatch panics on this input")

func unwrapPanic(err error) error {
	if err == ErrServerPanics {
		return ErrReferencePanics
	}
	return err
}

// asDecoded returns m itself when reading it equals reading its JSON
// encoding back (no integral float64, no typed nil maps or lists), else a copy
// as copyDecoded makes it.
func asDecoded(m map[string]any) (map[string]any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	if roundTripStable(m) {
		return m, nil
	}
	return copyDecoded(m)
}

func roundTripStable(v any) bool {
	switch t := v.(type) {
	case nil, bool, int64, string:
		return true
	case float64:
		c, err := value.RoundTripJSON(t)
		if err != nil {
			return false
		}
		_, isFloat := c.(float64)
		return isFloat
	case map[string]any:
		if t == nil {
			return false
		}
		for _, e := range t {
			if !roundTripStable(e) {
				return false
			}
		}
		return true
	case []any:
		if t == nil {
			return false
		}
		for _, e := range t {
			if !roundTripStable(e) {
				return false
			}
		}
		return true
	}
	return false
}

// copyDecoded copies a document as decoding its JSON encoding would produce
// it (lists grown by append, integral floats as int64): creation functions
// receive JSON in the reference and list capacities affect its in-place
// slice operations.
func copyDecoded(m map[string]any) (map[string]any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	v, err := copyGrow(m)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func copyGrow(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return nil, nil
		}
		m := make(map[string]any, len(t))
		for k, e := range t {
			c, err := copyGrow(e)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		if t == nil {
			return nil, nil
		}
		s := make([]any, 0)
		for _, e := range t {
			c, err := copyGrow(e)
			if err != nil {
				return nil, err
			}
			s = append(s, c)
		}
		return s, nil
	}
	return value.RoundTripJSON(v)
}
