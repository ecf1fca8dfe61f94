package admission

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/schema/defaults"
	"github.com/writepath/writepath/schema/gotypes"
	"github.com/writepath/writepath/status"
)

// decodeStep is how a dispatcher turns a mutated object back into an object
// of the kind before defaulting it.
type decodeStep int

const (
	// decodeWebhookPatch is the mutating webhook dispatcher's: the patched
	// JSON decoded into the kind's Go type (or an unstructured object for a
	// custom resource), unknown fields dropped; a failure is a 500, whatever
	// the webhook's failurePolicy.
	decodeWebhookPatch decodeStep = iota
	// decodeJSONPatch is a MutatingAdmissionPolicy JSONPatch mutation's: the
	// same decoding, strict (an unknown field is a 500 too).
	decodeJSONPatch
	// decodeApplyConfiguration is a MutatingAdmissionPolicy ApplyConfiguration
	// mutation's: the merged unstructured object converted to the Go type
	// (runtime.Scheme.ConvertToVersion); a failure is the policy's error,
	// subject to its failurePolicy.
	decodeApplyConfiguration
)

// defaultMutated is what kube-apiserver does to an object a mutating webhook
// patched (mutating dispatcher: Decode, then GetObjectDefaulter().Default) or
// a MutatingAdmissionPolicy mutation changed (policy dispatcher dispatchOne:
// the patcher's decoding, ConvertToVersion, Default): before, the object the
// mutator was given, and out, what it made of it, are of kind (the kind the
// webhook or policy matched the request as). A built-in kind gets the
// scheme's defaulting (defaults.Builtin, which also gives the object the
// shape its Go type encodes to); a custom resource its CRD's structural
// defaulting for the version its apiVersion names (the CRD's unstructured
// defaulter), when the CRD is in Versions.CRDs.
//
// An object the mutator left as it was is returned as is: the apiserver
// defaults it again, which changes nothing in an object it decoded and
// defaulted itself. A *status.Error is the dispatcher's own answer; other
// errors are the policy's.
//
// changed is the mutating webhook dispatcher's judgement of whether the patch
// changed the object, which it makes on the decoded object before defaulting:
// a patch whose changes defaulting undoes (a container added again without
// its defaulted fields) counts. For a custom resource that is any change of
// the JSON; for a built-in kind, a change that survives defaulting, or a
// field with a non-zero value the patch removed (a value the Go type would
// have held after decoding the patched object without defaults).
//
// versioned leaves out the internal round trip of a built-in kind
// (defaults.Options.SkipInternalRoundTrip): the mutating webhook
// dispatcher defaults the versioned object and converts it into the internal
// object itself, which for a webhook sent another version than the request's
// is the conversion back to the request's kind, not the kind's round trip.
func (c *Chain) defaultMutated(kind schema.GroupVersionKind, before, out map[string]any, step decodeStep, versioned bool) (defaulted map[string]any, changed bool, err error) {
	if out == nil || value.Equal(before, out) {
		return out, false, nil
	}
	sg := schema.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind}
	if _, err := schema.Builtin(sg); err == nil {
		d, err := c.defaultBuiltin(sg, before, out, step, defaults.Options{SkipInternalRoundTrip: versioned})
		if err != nil || d == nil {
			return d, true, err
		}
		if !value.Equal(before, d) {
			return d, true, nil
		}
		t, _ := gotypes.Of(sg)
		return d, lostNonZero(before, out, t), nil
	}
	if step != decodeApplyConfiguration {
		// Decoding into an unstructured object needs a kind.
		if k, _ := out["kind"].(string); k == "" {
			js, err := codec.EncodeJSON(out)
			if err != nil {
				return nil, false, status.InternalError(err)
			}
			return nil, false, status.InternalError(fmt.Errorf("Object 'Kind' is missing in '%s'", js))
		}
	}
	crd := c.crdFor(kind.Group, kind.Kind)
	if crd == nil {
		return out, true, nil
	}
	// unstructuredDefaulter: the schema of the version the object says it
	// is, for objects of the CRD's group and kind only.
	gv, _ := out["apiVersion"].(string)
	k, _ := out["kind"].(string)
	group, version := "", gv
	if i := strings.LastIndexByte(gv, '/'); i >= 0 {
		group, version = gv[:i], gv[i+1:]
	}
	if group != crd.Group || k != crd.Names.Kind {
		return out, true, nil
	}
	v := crd.Version(version)
	if v == nil || v.Structural == nil {
		return out, true, nil
	}
	d, _ := schema.Default(out, v.Structural).(map[string]any)
	return d, true, nil
}

// lostNonZero reports whether a typed decoding of patched would differ from
// before, an object defaulting leaves as it is and that patched defaults to:
// patched lacks, or holds a zero value (null, false, 0, "", an empty list, or
// an object of such values) in place of, a value of before that is not zero;
// or, in a pointer field at any depth (a securityContext: {}, a volume's
// emptyDir: {}), one of them holds an object or a value where the other
// lacks it or holds null, which decode to a pointer and to nil; or a list or
// a map differs in length or keys. Fields the Go type does not have do not
// count (the decoding drops them). t is the Go type of before (of the
// kind's, gotypes.Of), which tells pointer fields; where it is not
// known (a free-form value, a custom-decoded type such as a quantity) only
// the lost non-zero values count. Scalars are compared by zero-ness only
// (defaulting left them equal, so they differ in form only, as "1000m" and
// "1" do).
func lostNonZero(before, patched any, t gotypes.Type) bool {
	if t.Pointer() {
		if (before == nil) != (patched == nil) {
			return true
		}
		t = t.Deref()
	}
	if !t.Valid() || t.Custom() {
		return lostNonZeroUntyped(before, patched)
	}
	switch t.Kind() {
	case "struct":
		b, bok := before.(map[string]any)
		p, pok := patched.(map[string]any)
		if (!bok && before != nil) || (!pok && patched != nil) {
			return lostNonZeroUntyped(before, patched)
		}
		// Fields the Go type does not have are dropped by the decoding.
		for k, bv := range b {
			if ft := t.Field(k); ft.Valid() && lostNonZero(bv, p[k], ft) {
				return true
			}
		}
		for k, pv := range p {
			if _, seen := b[k]; !seen {
				if ft := t.Field(k); ft.Valid() && lostNonZero(nil, pv, ft) {
					return true
				}
			}
		}
	case "slice":
		b, bok := before.([]any)
		p, pok := patched.([]any)
		if (!bok && before != nil) || (!pok && patched != nil) {
			return lostNonZeroUntyped(before, patched)
		}
		// nil and empty lists are equal to the semantic equality.
		if len(b) != len(p) {
			return true
		}
		for i := range b {
			if lostNonZero(b[i], p[i], t.Elem()) {
				return true
			}
		}
	case "map":
		b, bok := before.(map[string]any)
		p, pok := patched.(map[string]any)
		if (!bok && before != nil) || (!pok && patched != nil) {
			return lostNonZeroUntyped(before, patched)
		}
		if len(b) != len(p) {
			return true
		}
		for k, bv := range b {
			pv, present := p[k]
			if !present || lostNonZero(bv, pv, t.Elem()) {
				return true
			}
		}
	case "interface":
		return lostNonZeroUntyped(before, patched)
	default:
		// A scalar: absent and null are its zero value.
		return zeroValue(before) != zeroValue(patched)
	}
	return false
}

// lostNonZeroUntyped is lostNonZero without the Go type: patched lacks, or
// holds a zero value in place of, a value of before that is not zero.
func lostNonZeroUntyped(before, patched any) bool {
	switch b := before.(type) {
	case map[string]any:
		p, ok := patched.(map[string]any)
		if !ok {
			return !zeroValue(b)
		}
		for k, bv := range b {
			pv, present := p[k]
			if !present || zeroValue(pv) {
				if !zeroValue(bv) {
					return true
				}
				continue
			}
			if lostNonZeroUntyped(bv, pv) {
				return true
			}
		}
	case []any:
		p, ok := patched.([]any)
		if !ok || len(p) != len(b) {
			return !zeroValue(b)
		}
		for i := range b {
			if lostNonZeroUntyped(b[i], p[i]) {
				return true
			}
		}
	}
	return false
}

func zeroValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case int64:
		return x == 0
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		for _, e := range x {
			if !zeroValue(e) {
				return false
			}
		}
		return true
	}
	return false
}

// defaultBuiltin decodes out, the mutated object of the built-in kind gvk, as
// step says, and defaults it with the steps o chooses (o.Unstructured is set
// from step).
func (c *Chain) defaultBuiltin(gvk schema.GroupVersionKind, before, out map[string]any, step decodeStep, o defaults.Options) (map[string]any, error) {
	if !defaults.Handles(gvk) {
		// Kinds of versions a default apiserver does not serve: no
		// defaulting functions modelled.
		return out, nil
	}
	k, err := schema.Builtin(gvk)
	if err != nil {
		return out, nil
	}
	// ConvertToVersion reads an ApplyConfiguration's merged unstructured
	// object with runtime.DefaultUnstructuredConverter.
	o.Unstructured = step == decodeApplyConfiguration
	o.Now = c.now()
	d, err := defaults.ForKind(k, out, o)
	if err != nil {
		if step == decodeApplyConfiguration {
			return nil, fmt.Errorf("unable to convert unstructured object to %s: %s", gvk, defaults.ConverterCause(err))
		}
		return nil, status.InternalError(errors.New(jsonDecodeError(k, err)))
	}
	if step == decodeJSONPatch {
		if unknown := newUnknownFields(gvk, before, out); len(unknown) > 0 {
			findings := make([]string, len(unknown))
			for i, p := range unknown {
				findings[i] = `unknown field "` + p + `"`
			}
			return nil, status.InternalError(errors.New("strict decoding error: " + strings.Join(findings, ", ")))
		}
	}
	return d, nil
}

func (c *Chain) now() time.Time { return c.cfg.Env.Now }

// newUnknownFields are the fields of out the kind's Go type does not have,
// other than those already in before: the apiserver's strict decoding sees
// only what it decoded itself, and its request decoding has dropped (or
// refused) the request's own unknown fields.
func newUnknownFields(gvk schema.GroupVersionKind, before, out map[string]any) []string {
	k, err := schema.Builtin(gvk)
	if err != nil {
		return nil
	}
	t, err := k.SMDType()
	if err != nil {
		return nil
	}
	had := map[string]bool{}
	if before != nil {
		for _, p := range schema.UnknownFields(t, before) {
			had[p] = true
		}
	}
	var fresh []string
	for _, p := range schema.UnknownFields(t, out) {
		if !had[p] {
			fresh = append(fresh, p)
		}
	}
	return fresh
}

func (c *Chain) crdFor(group, kind string) *schema.CRD {
	for _, crd := range c.cfg.Versions.CRDs {
		if crd != nil && crd.Group == group && crd.Names.Kind == kind {
			return crd
		}
	}
	return nil
}

// jsonDecodeError is the text of the JSON decoder's error for a value of
// kind k that does not decode into the Go type, as gotypes.DecodeError words
// it: encoding/json's UnmarshalTypeError with the innermost Go struct, the
// field stack and the Go type ("json: cannot unmarshal string into Go struct
// field DeploymentSpec.spec.replicas of type int32"), a type's own
// UnmarshalJSON error (quantities, times) and the base64 decoder's.
func jsonDecodeError(k *schema.Kind, err error) string {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err.Error()
	}
	if msg, ok := gotypes.DecodeError(k.GVK, fe.Field, fe.BadValue); ok {
		return msg
	}
	return fe.Detail
}

// typedTargetError is what the mutating policy dispatcher's ConvertToVersion
// says of a built-in kind's mutation result when the policy matched the
// request as another kind (matchPolicy Equivalent): dispatchOne converts each
// result to the request's group version, not to the version the policy
// matched, and the scheme has no such conversion, recorded from
// kube-apiserver 1.37. Across groups it refuses a type not registered in the
// target group ("v1.Event is not suitable for converting to \"v1\"",
// realcluster-defaulting/map-equivalent); between versions of one group it
// finds no conversion function, the scheme converting versions only to and
// from the internal one ("converting (v1.HorizontalPodAutoscaler) to
// (v2.HorizontalPodAutoscaler): unknown conversion",
// realcluster-equivalent/hpaq-map-*; the Go types' package names are their
// versions). Every mutation fails, so the policy never changes the object.
// Nil for a custom resource or the request's own kind.
func typedTargetError(matched, request schema.GroupVersionKind) error {
	if matched == request {
		return nil
	}
	if _, err := schema.Builtin(schema.GroupVersionKind{Group: matched.Group, Version: matched.Version, Kind: matched.Kind}); err != nil {
		return nil
	}
	if matched.Group == request.Group {
		return fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", matched.Version, matched.Kind, request.Version, request.Kind)
	}
	target := request.Version
	if request.Group != "" {
		target = request.Group + "/" + request.Version
	}
	return fmt.Errorf("%s.%s is not suitable for converting to %q in scheme %q", matched.Version, matched.Kind, target, "pkg/runtime/scheme.go:111")
}
