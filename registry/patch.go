package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"sort"
	"strings"

	"github.com/writepath/writepath/apply"
	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/lazyjson"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/merge"
	"github.com/writepath/writepath/patch"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/schema/gotypes"
	"github.com/writepath/writepath/status"
)

// The PATCH media types (types.PatchType).
const (
	JSONPatch      = "application/json-patch+json"
	MergePatch     = "application/merge-patch+json"
	StrategicPatch = "application/strategic-merge-patch+json"
	ApplyPatch     = "application/apply-patch+yaml"
)

// patchType is the patch handler's Content-Type check: built-in resources accept the four patch
// types (the router refuses others with its bare 415); custom resources have no strategic merge
// patch (apiextensions' handler answers the serializer's 415 listing the three others).
func (h *handler) patchType() (string, error) {
	mt, _, err := mime.ParseMediaType(strings.TrimSpace(h.req.ContentType))
	if err != nil {
		mt = ""
	}
	if h.ep.crd != nil {
		switch mt {
		case JSONPatch, MergePatch, ApplyPatch:
			return mt, nil
		}
		return "", status.UnknownBodyFormat([]string{JSONPatch, MergePatch, ApplyPatch})
	}
	switch mt {
	case JSONPatch, MergePatch, StrategicPatch, ApplyPatch:
		return mt, nil
	}
	return "", status.RouteError(415, "415: Unsupported Media Type")
}

// patch is PATCH on an object or a subresource (handlers/patch.go, then store.Update).
func (h *handler) patch() (Response, []Write, error) {
	ep := h.ep
	pt, err := h.patchType()
	if err != nil {
		return Response{}, nil, err
	}
	if err := limitBody(h.req.Body); err != nil {
		return Response{}, nil, err
	}
	o, err := h.parseWriteOptions("PatchOptions", pt == ApplyPatch)
	if err != nil {
		return Response{}, nil, err
	}
	live, err := h.live()
	if err != nil {
		return Response{}, nil, err
	}
	if ep.Subresource == "scale" {
		return h.patchScale(pt, live, o)
	}
	if pt == ApplyPatch {
		return h.apply(live, o)
	}
	if live == nil {
		return Response{}, nil, status.NotFound(ep.groupResource(), ep.Name)
	}
	obj, err := h.applyPatch(pt, live, o)
	if err != nil {
		return Response{}, nil, err
	}
	if !value.Equal(metaOf(obj)["managedFields"], metaOf(live)["managedFields"]) {
		h.clientManagedFields = true
	}
	// The patcher's checks on the patched object (handlers/patch.go applyPatch): the
	// namespace as rest.EnsureObjectNamespaceMatchesRequestNamespace, then checkName.
	obj = ownTop(obj)
	if err := ensureNamespace(obj, ep.expectedNamespaceForResource()); err != nil {
		return Response{}, nil, err
	}
	if err := checkPatchedName(obj, ep.Name, ep.Namespace); err != nil {
		return Response{}, nil, err
	}
	if obj, err = h.manageUpdate(live, obj, o); err != nil {
		return Response{}, nil, err
	}
	return h.finishUpdate(live, obj)
}

// applyPatch applies a JSON, merge or strategic merge patch to the live object and reads the
// result as the patcher does: JSON and merge patch results are decoded into the Go type
// (jsonPatcher.applyPatchToCurrentObject), a strategic merge patch's map is converted by the
// unstructured converter (applyPatchToObject); both are then defaulted. A value the Go type
// refuses, or an unknown field under Strict, is a 422 naming the patch.
func (h *handler) applyPatch(pt string, live map[string]any, o writeOptions) (map[string]any, error) {
	ep := h.ep
	fv := o.level()
	// The patcher works on the JSON (or, for a strategic merge patch, the unstructured form)
	// of the stored object, without its present-but-empty []byte fields (emptybytes.go).
	live = jsonView(live)
	var res map[string]any
	var warnings []string
	switch pt {
	case JSONPatch:
		r, err := patch.ApplyJSONPatch(live, h.req.Body, patch.Options{FieldValidation: fv})
		if err != nil {
			return nil, patchStatus(err)
		}
		res, warnings = r.Object, r.Warnings
	case MergePatch:
		r, err := merge.ApplyMergePatch(live, h.req.Body, merge.Options{FieldValidation: fv})
		if err != nil {
			return nil, patchStatus(err)
		}
		res, warnings = r.Object, r.Warnings
	case StrategicPatch:
		meta, err := merge.KindMeta(ep.builtin)
		if err != nil {
			return nil, status.InternalError(err)
		}
		// The patched object is only read until typedUnstructured makes the fresh one the
		// write goes on with: it may share with live what the patch does not reach.
		mo := merge.Options{FieldValidation: fv, ShareUnpatched: ep.builtin != nil}
		if ep.builtin != nil && fv != schema.FieldValidationIgnore {
			mo.OnPatch = func(p map[string]any) { h.patchUnknown = patchHasUnknown(ep.builtin, p) }
		}
		r, err := merge.ApplyStrategic(live, h.req.Body, meta, mo)
		if err != nil {
			return nil, patchStatus(err)
		}
		res, warnings = r.Object, r.Warnings
	}
	h.warnings = append(h.warnings, warnings...)
	var decodeErr func(string) error
	// The 422 quotes the patch (strategic) or the patched object (JSON, merge): rendered only
	// when there is an error.
	if pt == StrategicPatch {
		decodeErr = func(msg string) error {
			patchMap, _ := codec.DecodeValue(h.req.Body)
			return status.Invalid(status.GroupKind{}, "", fieldErrorList("patch", goMapString(patchMap), msg))
		}
	} else {
		decodeErr = func(msg string) error {
			return status.Invalid(status.GroupKind{}, "", fieldErrorList("patch", h.patchedText(pt, live, res), msg))
		}
	}
	if ep.builtin != nil && pt == StrategicPatch {
		return h.typedUnstructured(res, o.level(), decodeErr)
	}
	if ep.builtin != nil && hasFractionOrExponent(h.req.Body) {
		// json-patch.v4 keeps the patch's number literals as written, and the patched JSON is
		// decoded into the Go type, which refuses a 2.0 where it holds an integer: the patched
		// text is read as a body's is (literalNumberError).
		h.document = []byte(h.patchedText(pt, live, res))
		defer func() { h.document = nil }()
	}
	return h.typed(res, nil, o.level(), decodeErr)
}

// patchedText is the result of a JSON or merge patch of live as the apiserver's patcher holds it
// when it quotes it in a 422: the patch applied by json-patch.v4 to the live object's JSON (a
// built-in's in its Go field order, a custom resource's with sorted keys), which keeps the text
// of what the patch did not go into (internal/lazyjson). res, the patch engine's result, is
// written instead when the rendering does not apply.
func (h *handler) patchedText(pt string, live, res map[string]any) string {
	var doc []byte
	var err error
	if k := h.ep.builtin; k != nil {
		doc, err = gotypes.JSON(k.GVK, live)
	} else {
		doc, err = json.Marshal(live)
	}
	if err == nil {
		var out []byte
		if pt == MergePatch {
			out, err = lazyjson.MergePatch(doc, h.req.Body)
		} else {
			out, err = lazyjson.ApplyPatch(doc, h.req.Body)
		}
		if err == nil {
			return string(out)
		}
	}
	js, _ := codec.EncodeJSON(res)
	return string(js)
}

// typedUnstructured is typed for the unstructured converter's reading of a strategic merge
// patch's result (FromUnstructuredWithValidation, then the defaulter).
func (h *handler) typedUnstructured(obj map[string]any, level schema.FieldValidation, decodeErr func(string) error) (map[string]any, error) {
	k := h.ep.builtin
	var unknown []string
	if level != schema.FieldValidationIgnore {
		if t, err := k.SMDType(); err == nil && t.IsValid() && h.patchUnknown {
			unknown = schema.UnknownFields(t, obj)
		}
	}
	// The managedFields' fieldsV1 values are only read from here on (the field manager decodes
	// them, or keeps an unchanged entry's as it is): they may stay obj's (live's, when the
	// patch does not reach them).
	h.noteInitResources(obj)
	out, err := defaults.Builtin(h.ep.gvk, obj, defaults.Options{Now: h.req.Now, Unstructured: true, ShareFieldsV1: true, KeepEmptyBytes: h.ep.keepsEmptyBytes()})
	if err != nil {
		return nil, decodeErr(unstructuredErrorText(err))
	}
	warnings, ferr := schema.FieldValidationFindings(level, nil, unknown)
	if ferr != nil {
		return nil, strictError(k.GVK.Kind, k.GVK.Version, ferr, decodeErr)
	}
	h.warnings = append(h.warnings, warnings...)
	return out, nil
}

// unstructuredErrorText is the converter's words for a value the Go type refuses.
func unstructuredErrorText(err error) string {
	var fe *field.Error
	if errors.As(err, &fe) && fe.Detail != "" {
		return fe.Detail
	}
	return err.Error()
}

func fieldErrorList(name string, v any, detail string) field.ErrorList {
	return field.ErrorList{field.Invalid(field.NewPath(name), v, detail)}
}

// patchHasUnknown reports whether the patched object can hold unknown fields: the stored
// object holds none (it went through the typed round trip when it was written), so only the
// patch can bring them, and a patch without unknown fields (its directives aside) brings none.
// Checking the patch (as ApplyStrategic decoded it) is much cheaper than walking the whole
// patched object; when the patch has any, the patched object is walked for the paths as the
// apiserver reports them.
func patchHasUnknown(k *schema.Kind, patch map[string]any) bool {
	t, err := k.SMDType()
	if err != nil {
		return true
	}
	return len(schema.UnknownFields(t, patch)) > 0
}

// patchStatus returns a patch engine's error as its status.
func patchStatus(err error) error {
	if errors.Is(err, patch.ErrServerPanics) || errors.Is(err, merge.ErrServerPanics) {
		return err
	}
	var pe *status.PatchError // patch.Error and merge.Error
	if errors.As(err, &pe) && pe.Status != nil {
		return pe.Status
	}
	return asStatus(err)
}

// apply is a server-side apply (applyPatcher): create by apply when the object does not exist.
func (h *handler) apply(live map[string]any, o writeOptions) (Response, []Write, error) {
	ep := h.ep
	doc, err := codec.Options{AllowDuplicates: true, Format: codec.FormatYAML, MaxBytes: -1}.Decode(h.req.Body)
	if err != nil {
		return Response{}, nil, status.BadRequest(fmt.Sprintf("error encoding patch: %v", err))
	}
	config, ok := doc.Value.(map[string]any)
	if !ok {
		return Response{}, nil, notAnApplyObject(doc.Value)
	}
	if live == nil {
		if uid := metaString(config, "uid"); uid != "" {
			return Response{}, nil, status.Conflict(ep.groupResource(), ep.Name, fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
		}
	}
	req, err := h.fieldManager(ep.Subresource)
	if err != nil {
		var se *status.Error
		if errors.As(err, &se) {
			return Response{}, nil, se
		}
		return Response{}, nil, status.InternalError(err)
	}
	req.Live, req.Config, req.Manager, req.Now = live, config, o.fieldManager, h.req.Now
	if o.force != nil {
		req.Force = *o.force
	}
	// The strategy's value reset, update validation and the storage layer's timestamp rule
	// follow mutating admission (finishCreate, finishUpdate).
	h.setPrepare(req, live == nil)
	req.ResetValues, req.Reset, req.Validate, req.LibraryOnly = nil, nil, nil, true
	res, err := apply.Apply(req)
	if err != nil {
		return Response{}, nil, asStatus(asConversionStatus(err))
	}
	if len(doc.Warnings) > 0 {
		// The apply patcher decodes the patch strictly once the apply succeeded (applyPatcher):
		// duplicate keys are a 400 under Strict and warnings under Warn.
		switch o.level() {
		case schema.FieldValidationStrict:
			// go-yaml's message, one violation a line, as sigs.k8s.io/yaml wraps it.
			return Response{}, nil, status.BadRequest("error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  " +
				strings.Join(doc.Warnings, "\n  "))
		case schema.FieldValidationWarn:
			h.warnings = append(h.warnings, doc.Warnings...)
		}
	}
	obj := ownTop(res.Object)
	if ep.crd != nil {
		if obj, err = h.typed(obj, nil, schema.FieldValidationIgnore, func(msg string) error { return status.BadRequest(msg) }); err != nil {
			return Response{}, nil, err
		}
		obj = ownTop(obj)
	}
	if err := ensureNamespace(obj, ep.expectedNamespaceForResource()); err != nil {
		return Response{}, nil, err
	}
	if err := checkPatchedName(obj, ep.Name, ep.Namespace); err != nil {
		return Response{}, nil, err
	}
	if live == nil {
		return h.finishCreate(obj, o, ep.Name)
	}
	return h.finishUpdate(live, obj)
}

// goMapString renders a decoded JSON value as Go's fmt %+v renders the map the patcher holds
// (the strategic merge patch's 422 quotes the patch so).
func goMapString(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("map[")
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(k + ":")
				walk(x[k])
			}
			b.WriteByte(']')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(e)
			}
			b.WriteByte(']')
		case nil:
			b.WriteString("<nil>")
		default:
			fmt.Fprint(&b, x)
		}
	}
	walk(v)
	return b.String()
}

// notAnApplyObject is the applyPatcher's refusal of an apply configuration that is YAML but not
// an object: sigs.k8s.io/yaml's Unmarshal into a map fails in encoding/json's words.
func notAnApplyObject(v any) error {
	kind := "object"
	switch v.(type) {
	case []any:
		kind = "array"
	case string:
		kind = "string"
	case bool:
		kind = "bool"
	case int64, float64:
		kind = "number"
	}
	return status.BadRequest("error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " + kind + " into Go value of type map[string]interface {}")
}
