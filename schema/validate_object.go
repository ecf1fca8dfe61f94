package schema

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/status"
)

// Request is one write of a custom object to a CRD version, as the apiserver receives it after
// decoding.
type Request struct {
	// Object is the decoded object (not modified).
	Object map[string]any
	// Old is the stored object for an update, nil for a create. It is taken as stored: already
	// pruned and defaulted.
	Old map[string]any
	// FieldValidation is Strict, Warn or Ignore ("" means Strict, kubectl's default).
	FieldValidation FieldValidation
	// DecodeWarnings are the duplicate-field findings of the decoder (`duplicate field "x"`), as
	// internal/codec reports them with AllowDuplicates.
	DecodeWarnings []string
	// Subresource is "" for the main resource or "status" for an update of the status
	// subresource (only status changes; Old is required).
	Subresource string
}

// Result is what the write path makes of a Request.
type Result struct {
	// Object is the object after pruning, metadata coercion and defaulting, with what the
	// registry sets before validation: status reset when the status subresource is enabled
	// (dropped on create, the old status kept on update), metadata.generation (1 on create; on
	// update the stored one, bumped when anything but metadata changed), and on update uid,
	// creationTimestamp and deletion fields from the stored object. What the apiserver generates
	// on create (uid, creationTimestamp) and resourceVersion are not filled in.
	Object map[string]any
	// Pruned lists the unknown fields removed ("spec.foo", "metadata.bar"), sorted.
	Pruned []string
	// Warnings are the warnings the apiserver would return (field validation, deprecated
	// version, finalizer names), in its order.
	Warnings []string
	// Errors are the validation errors (empty when valid).
	Errors field.ErrorList
}

// Process runs a create (req.Old nil) or an update of a custom object through the apiserver's
// CRD write path up to storage: decoding checks, field validation, pruning, metadata coercion,
// defaulting, then validation (schema, metadata, list sets and maps, scale paths; on update with
// ratcheting). CEL rules (x-kubernetes-validations) are not evaluated here.
//
// It returns an error (a *status.Error) where the apiserver fails the request before validation:
// 400 for strict field-validation failures and undecodable metadata. Validation failures are in
// Result.Errors; Invalid turns them into the 422 the apiserver sends.
func (v *Version) Process(req Request) (Result, error) {
	fv := req.FieldValidation
	if fv == "" {
		fv = FieldValidationStrict
	}
	obj, unknown, err := v.Coerce(req.Object, fv != FieldValidationIgnore)
	if err != nil {
		return Result{}, err
	}
	res := Result{Pruned: unknown}
	warnings, ferr := FieldValidationFindings(fv, req.DecodeWarnings, unknown)
	if ferr != nil {
		// The handler reports a failed strict decoding like any decoding failure.
		k := v.crd.Names.Kind
		return Result{}, status.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", k, v.Name, k, ferr.Error()))
	}
	// The handler sends the version's deprecation warning before anything decoding finds.
	if w := v.Warning(); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	res.Warnings = append(res.Warnings, warnings...)
	if v.Structural != nil {
		obj = Default(obj, v.Structural).(map[string]any)
	}
	if req.Subresource == "status" {
		if req.Old == nil || !v.Subresources.Status {
			return Result{}, status.NotFound(status.GroupResource{Group: v.crd.Group, Resource: v.crd.Names.Plural + "/status"}, "")
		}
		// The status strategy keeps everything of the stored object but status (and
		// managedFields, which the field manager owns).
		vobj := value.Clone(req.Old).(map[string]any)
		if st, ok := obj["status"]; ok {
			vobj["status"] = st
		} else {
			delete(vobj, "status")
		}
		md, _ := obj["metadata"].(map[string]any)
		mf, hasMF := md["managedFields"]
		if vmd, ok := vobj["metadata"].(map[string]any); ok {
			if hasMF {
				vmd["managedFields"] = mf
			} else {
				delete(vmd, "managedFields")
			}
		} else if hasMF && vobj["metadata"] == nil {
			vobj["metadata"] = map[string]any{"managedFields": mf}
		}
		res.Object = vobj
		res.Errors = v.ValidateStatusUpdate(vobj, req.Old)
		return res, nil
	}
	// The strategy resets status when the status subresource is on (PrepareForCreate drops it,
	// PrepareForUpdate keeps the stored one): that is what is validated and stored.
	vobj := obj
	if v.Subresources.Status {
		vobj = shallowCopy(obj)
		if req.Old == nil {
			delete(vobj, "status")
		} else if os, ok := req.Old["status"]; ok {
			vobj["status"] = os
		} else {
			delete(vobj, "status")
		}
	}
	if req.Old == nil {
		vobj = prepareForCreate(vobj)
	} else {
		vobj = prepareForUpdate(vobj, req.Old)
	}
	res.Object = vobj
	if req.Old == nil {
		res.Errors = v.ValidateCreate(vobj)
	} else {
		res.Errors = v.ValidateUpdate(vobj, req.Old)
	}
	if len(res.Errors) == 0 {
		// The strategy's warnings come only once validation passed.
		res.Warnings = append(res.Warnings, finalizerWarnings(vobj, req.Old)...)
	}
	return res, nil
}

// metadataOf returns a copy of obj whose metadata map is a fresh copy (created if missing).
func withOwnMetadata(obj map[string]any) (map[string]any, map[string]any) {
	c := shallowCopy(obj)
	md, _ := obj["metadata"].(map[string]any)
	mdc := make(map[string]any, len(md)+2)
	for k, v := range md {
		mdc[k] = v
	}
	c["metadata"] = mdc
	return c, mdc
}

// prepareForCreate is what the custom resource strategy sets on create: generation 1.
func prepareForCreate(obj map[string]any) map[string]any {
	if _, ok := obj["metadata"]; ok {
		if _, isMap := obj["metadata"].(map[string]any); !isMap {
			return obj
		}
	}
	c, md := withOwnMetadata(obj)
	md["generation"] = int64(1)
	return c
}

// prepareForUpdate is what rest.BeforeUpdate and the custom resource strategy carry over from
// the stored object before validating an update: generation (bumped when anything but metadata
// changed), uid when unset, creationTimestamp, deletionTimestamp and its grace period.
func prepareForUpdate(obj, old map[string]any) map[string]any {
	if _, ok := obj["metadata"].(map[string]any); !ok && obj["metadata"] != nil {
		return obj
	}
	oldMD, _ := old["metadata"].(map[string]any)
	c, md := withOwnMetadata(obj)
	gen, _ := oldMD["generation"].(int64)
	changed := false
	for k, v := range obj {
		if k == "metadata" {
			continue
		}
		if ov, ok := old[k]; !ok || !value.EqualNilDistinct(ov, v) {
			changed = true
		}
	}
	for k := range old {
		if _, ok := obj[k]; !ok && k != "metadata" {
			changed = true
		}
	}
	if changed {
		gen++
	}
	if gen != 0 {
		md["generation"] = gen
	} else {
		delete(md, "generation")
	}
	if uid, _ := md["uid"].(string); uid == "" {
		if ouid, ok := oldMD["uid"].(string); ok && ouid != "" {
			md["uid"] = ouid
		}
	}
	if ct, ok := oldMD["creationTimestamp"]; ok && ct != nil {
		md["creationTimestamp"] = ct
	}
	if dt, ok := oldMD["deletionTimestamp"]; ok && dt != nil {
		md["deletionTimestamp"] = dt
	}
	if gp, ok := oldMD["deletionGracePeriodSeconds"]; ok && gp != nil {
		if _, set := md["deletionGracePeriodSeconds"]; !set {
			md["deletionGracePeriodSeconds"] = gp
		}
	}
	return c
}

// Invalid returns the 422 Invalid status error the apiserver sends for errs about obj.
func (v *Version) Invalid(obj map[string]any, errs field.ErrorList) *status.Error {
	name := ""
	if md, ok := obj["metadata"].(map[string]any); ok {
		name, _ = md["name"].(string)
	}
	// The store names the kind the object says it is (the unstructured object's ObjectKinds),
	// which differs from the CRD's when the body carries another kind.
	kind := v.crd.Names.Kind
	if k, ok := obj["kind"].(string); ok && k != "" {
		kind = k
	}
	return status.Invalid(status.GroupKind{Group: v.crd.Group, Kind: kind}, name, errs)
}

func shallowCopy(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Coerce is the apiserver's decode-time treatment of a custom object (unstructuredSchemaCoercer):
// the root metadata is normalised through ObjectMeta, unknown fields are pruned, null values of
// non-nullable fields without default are dropped, and the metadata of embedded resources is
// normalised. With trackUnknown it returns the unknown field paths (metadata ones first, as the
// apiserver lists them). obj is not modified. Errors are 400 BadRequest *status.Error values.
func (v *Version) Coerce(obj map[string]any, trackUnknown bool) (map[string]any, []string, error) {
	return v.coerce(obj, trackUnknown, false)
}

// Read is what the apiserver does to a custom object it reads from storage (the storage
// codec's decoder): the decode-time coercion with malformed metadata fields dropped instead of
// rejected, a missing generation repaired to 1, then defaulting. Defaults added to a schema
// after an object was stored appear on read, as with the apiserver. stored is not modified.
func (v *Version) Read(stored map[string]any) (map[string]any, error) {
	out, _, err := v.coerce(stored, false, true)
	if err != nil {
		return nil, err
	}
	if v.Structural != nil {
		out = Default(out, v.Structural).(map[string]any)
	}
	return out, nil
}

func (v *Version) coerce(obj map[string]any, trackUnknown, fromStorage bool) (map[string]any, []string, error) {
	out := value.Clone(obj).(map[string]any)
	var unknown []string
	kind, foundKind := out["kind"]
	apiVersion, foundAPIVersion := out["apiVersion"]
	if foundKind {
		if _, ok := kind.(string); !ok {
			return nil, nil, status.BadRequest(fmt.Sprintf(".kind accessor error: %v is of the type %s, expected string", kind, fmt.Sprintf("%T", kind)))
		}
	}
	if foundAPIVersion {
		if _, ok := apiVersion.(string); !ok {
			return nil, nil, status.BadRequest(fmt.Sprintf(".apiVersion accessor error: %v is of the type %s, expected string", apiVersion, fmt.Sprintf("%T", apiVersion)))
		}
	}
	var om *ObjectMeta
	md, foundMeta := out["metadata"]
	if foundMeta {
		var mu []string
		var err error
		decode := decodeObjectMeta
		if fromStorage {
			decode = decodeObjectMetaDropping
		}
		om, mu, err = decode(md, trackUnknown, "metadata")
		if err != nil {
			return nil, nil, status.BadRequest(err.Error())
		}
		unknown = append(unknown, mu...)
	}
	gv, err := ParseAPIVersion(strOf(apiVersion))
	if err != nil {
		return nil, nil, status.BadRequest(err.Error())
	}
	if gv.Group == v.crd.Group && strOf(kind) == v.crd.Names.Kind {
		s := v.Structural
		if !v.crd.PreserveUnknownFields {
			unknown = append(unknown, pruneInPlace(out, s, true, trackUnknown)...)
			pruneNonNullableNullsWithoutDefaults(out, s)
		}
		if needsCoerce(s, 0) {
			c := &coercer{track: trackUnknown, dropInvalid: fromStorage}
			if ferr := c.coerce(field.Path{}, out, s); ferr != nil {
				return nil, nil, status.BadRequest(ferr.Error())
			}
			sort.Strings(c.unknown)
			unknown = append(unknown, c.unknown...)
		}
		if fromStorage && om != nil && om.Generation == 0 {
			om.Generation = 1 // very old custom resources had none
		}
	}
	if foundKind {
		out["kind"] = kind
	}
	if foundAPIVersion {
		out["apiVersion"] = apiVersion
	}
	if foundMeta {
		out["metadata"] = om.unstructured()
	}
	return out, unknown, nil
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}

// ValidateCreate validates a (coerced and defaulted) custom object for a create, like the
// custom resource strategy's Validate without CEL.
func (v *Version) ValidateCreate(obj map[string]any) field.ErrorList {
	all := v.validateTypeMeta(obj)
	if len(all) == 0 {
		om, errs := rootObjectMeta(obj)
		if len(errs) > 0 {
			all = append(all, errs...)
		} else {
			all = append(all, validateObjectMeta(om, v.crd.Namespaced(), nameIsDNSSubdomain, field.NewPath("metadata")).Filter()...)
		}
		all = append(all, v.validator.Validate(field.Path{}, obj)...)
		all = append(all, v.validateScale(obj)...)
	}
	all = append(all, ValidateEmbeddedResources(field.Path{}, obj, v.Structural, false)...)
	all = append(all, ValidateListSetsAndMaps(field.Path{}, v.Structural, obj)...)
	return all
}

// ValidateUpdate validates an update of old to obj, with validation ratcheting (unchanged
// invalid values pass), like the custom resource strategy's ValidateUpdate without CEL.
func (v *Version) ValidateUpdate(obj, old map[string]any) field.ErrorList {
	all := v.validateTypeMeta(obj)
	if len(all) == 0 {
		om, errs := rootObjectMeta(obj)
		oldOM, oldErrs := rootObjectMeta(old)
		switch {
		case len(errs) > 0:
			all = append(all, errs...)
		case len(oldErrs) > 0:
			all = append(all, oldErrs...)
		default:
			all = append(all, validateObjectMetaUpdate(om, oldOM, field.NewPath("metadata")).Filter()...)
		}
		all = append(all, v.validator.ValidateUpdate(field.Path{}, obj, old, v.Structural)...)
		all = append(all, v.validateScale(obj)...)
	}
	all = append(all, ValidateEmbeddedResources(field.Path{}, obj, v.Structural, false)...)
	if len(ValidateListSetsAndMaps(field.Path{}, v.Structural, old)) == 0 {
		all = append(all, ValidateListSetsAndMaps(field.Path{}, v.Structural, obj)...)
	}
	return all
}

// ValidateStatusUpdate validates an update of the status subresource, like the custom resource
// status strategy without CEL: metadata update rules, the status schema with ratcheting (errors
// under "status"), the scale status paths, and list sets and maps unless old already broke them.
func (v *Version) ValidateStatusUpdate(obj, old map[string]any) field.ErrorList {
	all := v.validateTypeMeta(obj)
	if len(all) == 0 {
		om, errs := rootObjectMeta(obj)
		oldOM, oldErrs := rootObjectMeta(old)
		switch {
		case len(errs) > 0:
			all = append(all, errs...)
		case len(oldErrs) > 0:
			all = append(all, oldErrs...)
		default:
			all = append(all, validateObjectMetaUpdate(om, oldOM, field.NewPath("metadata")).Filter()...)
		}
		if st, ok := obj["status"]; ok && v.status != nil {
			var sts *Structural
			if v.Structural != nil {
				sts = v.Structural.Properties["status"]
			}
			all = append(all, v.status.ValidateUpdate(field.NewPath("status"), st, old["status"], sts)...)
		}
		all = append(all, v.validateScaleStatus(obj)...)
	}
	if newErrs := ValidateListSetsAndMaps(field.Path{}, v.Structural, obj); len(newErrs) > 0 {
		if len(ValidateListSetsAndMaps(field.Path{}, v.Structural, old)) == 0 {
			all = append(all, newErrs...)
		}
	}
	return all
}

func (v *Version) validateTypeMeta(obj map[string]any) field.ErrorList {
	var all field.ErrorList
	kind, _ := obj["kind"].(string)
	// The type accessor of unstructured objects reports the parsed group/version ("/v1" reads
	// as "v1", an unparseable one as "").
	av, _ := obj["apiVersion"].(string)
	if gv, err := ParseAPIVersion(av); err != nil {
		av = ""
	} else {
		av = gv.String()
	}
	if kind != v.crd.Names.Kind {
		all = append(all, field.Invalid(field.NewPath("kind"), kind, "must be "+v.crd.Names.Kind))
	}
	if want := v.crd.Group + "/" + v.Name; av != want {
		all = append(all, field.Invalid(field.NewPath("apiVersion"), av, "must be "+want))
	}
	return all
}

func rootObjectMeta(obj map[string]any) (*ObjectMeta, field.ErrorList) {
	raw := obj["metadata"]
	if raw == nil {
		return &ObjectMeta{}, nil
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %s", fmt.Sprintf("%T", raw)))}
	}
	om, _, err := decodeObjectMeta(raw, false, "")
	if err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
	}
	return om, nil
}

// nestedInt64 reads an int64 at a scale path like unstructured.NestedInt64.
func nestedInt64(obj map[string]any, path string) (int64, error) {
	fields := strings.Split(strings.TrimPrefix(path, "."), ".")
	var cur any = obj
	for i, f := range fields {
		if cur == nil {
			return 0, nil
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("%v accessor error: %v is of the type %s, expected map[string]interface{}", jsonPath(fields[:i+1]), cur, fmt.Sprintf("%T", cur))
		}
		cur, ok = m[f]
		if !ok {
			return 0, nil
		}
	}
	n, ok := cur.(int64)
	if !ok {
		return 0, fmt.Errorf("%v accessor error: %v is of the type %s, expected int64", jsonPath(fields), cur, fmt.Sprintf("%T", cur))
	}
	return n, nil
}

func jsonPath(fields []string) string { return "." + strings.Join(fields, ".") }

func (v *Version) validateScale(obj map[string]any) field.ErrorList {
	sc := v.Subresources.Scale
	if sc == nil {
		return nil
	}
	var all field.ErrorList
	check := func(path string) {
		n, err := nestedInt64(obj, path)
		switch {
		case err != nil:
			all = append(all, field.Invalid(field.NewPath(path), n, err.Error()))
		case n < 0:
			all = append(all, field.Invalid(field.NewPath(path), n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			all = append(all, field.Invalid(field.NewPath(path), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	check(sc.SpecReplicasPath)
	return append(all, v.validateScaleStatus(obj)...)
}

func (v *Version) validateScaleStatus(obj map[string]any) field.ErrorList {
	sc := v.Subresources.Scale
	if sc == nil {
		return nil
	}
	var all field.ErrorList
	n, err := nestedInt64(obj, sc.StatusReplicasPath)
	switch {
	case err != nil:
		all = append(all, field.Invalid(field.NewPath(sc.StatusReplicasPath), n, err.Error()))
	case n < 0:
		all = append(all, field.Invalid(field.NewPath(sc.StatusReplicasPath), n, "should be a non-negative integer"))
	case n > math.MaxInt32:
		all = append(all, field.Invalid(field.NewPath(sc.StatusReplicasPath), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
	}
	if sc.LabelSelectorPath != nil {
		if err := nestedString(obj, *sc.LabelSelectorPath); err != nil {
			all = append(all, field.Invalid(field.NewPath(*sc.LabelSelectorPath), "", err.Error()))
		}
	}
	return all
}

// nestedString checks the value at a label selector path like unstructured.NestedString.
func nestedString(obj map[string]any, path string) error {
	fields := strings.Split(strings.TrimPrefix(path, "."), ".")
	var cur any = obj
	for i, f := range fields {
		if cur == nil {
			return nil
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%v accessor error: %v is of the type %s, expected map[string]interface{}", jsonPath(fields[:i+1]), cur, fmt.Sprintf("%T", cur))
		}
		cur, ok = m[f]
		if !ok {
			return nil
		}
	}
	if _, ok := cur.(string); !ok {
		return fmt.Errorf("%v accessor error: %v is of the type %s, expected string", jsonPath(fields), cur, fmt.Sprintf("%T", cur))
	}
	return nil
}

var standardFinalizers = map[string]bool{"orphan": true, "foregroundDeletion": true, "kubernetes": true}

// finalizerWarnings are the custom resource strategy's warnings for newly added finalizers.
func finalizerWarnings(obj, old map[string]any) []string {
	names := func(o map[string]any) []string {
		md, _ := o["metadata"].(map[string]any)
		l, _ := md["finalizers"].([]any)
		var out []string
		for _, f := range l {
			if s, ok := f.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	added := map[string]bool{}
	for _, f := range names(obj) {
		added[f] = true
	}
	if old != nil {
		for _, f := range names(old) {
			delete(added, f)
		}
	}
	list := make([]string, 0, len(added))
	for f := range added {
		list = append(list, f)
	}
	sort.Strings(list)
	var w []string
	const p = "metadata.finalizers"
	for _, f := range list {
		for _, m := range validation.IsQualifiedName(f) {
			w = append(w, fmt.Sprintf("%s: %q: %s", p, f, m))
		}
		if len(strings.Split(f, "/")) == 1 && !standardFinalizers[f] {
			if strings.Contains(f, ".") {
				w = append(w, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", p, f))
			} else {
				w = append(w, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", p, f))
			}
		}
	}
	return w
}
