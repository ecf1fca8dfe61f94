package schema

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// Validation of the metadata of custom resources (the root's, by the custom resource strategy,
// and embedded resources', by apiextensions' objectmeta.Validate), with apimachinery's wording.

// nameIsDNSSubdomain is apimachinery's NameIsDNSSubdomain (the name rule of custom resources).
var nameIsDNSSubdomain = validation.NameIsDNSSubdomain

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ObjectMetaOptions are what the caller of apimachinery's ObjectMeta validation decides.
type ObjectMetaOptions struct {
	// Namespaced is true for a namespace-scoped kind: on create metadata.namespace is then
	// required (a DNS label); for a cluster-scoped kind it must be empty ("not allowed on this
	// type").
	Namespaced bool
	// ResourceVersionSet skips the update check that metadata.resourceVersion is not empty: the
	// registry has already checked it (rest.BeforeUpdate validates after the store has refused
	// an update without one, or given an unconditional update the stored version).
	ResourceVersionSet bool
	// NameRule validates metadata.name and metadata.generateName (prefix true) on create, as
	// the kind's strategy passes its name function (ValidateServiceName, ValidateNamespaceName,
	// path-segment names for RBAC, ...). nil is a DNS subdomain (NameIsDNSSubdomain).
	NameRule func(name string, prefix bool) []string
}

// ValidateObjectMeta is apimachinery's ValidateObjectMetaAccessor on the unstructured metadata
// of an object being created, with names (and generateName) validated by opts.NameRule (DNS
// subdomains by default, as every strategy of a kind without its own name rule does): name, generateName, namespace,
// generation, labels, annotations, ownerReferences, finalizers and managedFields, in
// apimachinery's order and words. The error is not a validation error: metadata does not decode
// as an ObjectMeta (the apiserver's decoder refuses such a body with 400). metadata is not
// modified.
func ValidateObjectMeta(metadata map[string]any, opts ObjectMetaOptions, fld field.Path) (field.ErrorList, error) {
	om, err := metaFromMap(metadata)
	if err != nil {
		return nil, err
	}
	nameRule := nameIsDNSSubdomain
	if opts.NameRule != nil {
		nameRule = opts.NameRule
	}
	return validateObjectMeta(om, opts.Namespaced, nameRule, fld), nil
}

// ValidateObjectMetaUpdate is apimachinery's ValidateObjectMetaAccessorUpdate on unstructured
// metadata: no new finalizers while the old object is being deleted, resourceVersion set (unless
// opts.ResourceVersionSet), generation not negative nor decremented, name, namespace, uid,
// creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds unchanged, then labels,
// annotations, ownerReferences and managedFields. The error says that metadata or old does not
// decode as an ObjectMeta. Neither input is modified.
func ValidateObjectMetaUpdate(metadata, old map[string]any, opts ObjectMetaOptions, fld field.Path) (field.ErrorList, error) {
	om, err := metaFromMap(metadata)
	if err != nil {
		return nil, err
	}
	oldOM, err := metaFromMap(old)
	if err != nil {
		return nil, err
	}
	return validateObjectMetaUpdateRV(om, oldOM, !opts.ResourceVersionSet, fld), nil
}

// validateObjectMeta is the create-time ObjectMeta validation (ValidateObjectMetaAccessor).
func validateObjectMeta(om *ObjectMeta, requiresNamespace bool, nameFn func(string, bool) []string, fld field.Path) field.ErrorList {
	var all field.ErrorList
	if om.GenerateName != "" {
		for _, m := range nameFn(om.GenerateName, true) {
			all = append(all, field.Invalid(fld.Child("generateName"), om.GenerateName, m))
		}
	}
	if om.Name == "" {
		all = append(all, field.Required(fld.Child("name"), "name or generateName is required"))
	} else {
		for _, m := range nameFn(om.Name, false) {
			all = append(all, field.Invalid(fld.Child("name"), om.Name, m))
		}
	}
	if requiresNamespace {
		if om.Namespace == "" {
			all = append(all, field.Required(fld.Child("namespace"), ""))
		} else {
			for _, m := range validation.IsDNS1123Label(om.Namespace) {
				all = append(all, field.Invalid(fld.Child("namespace"), om.Namespace, m))
			}
		}
	} else if om.Namespace != "" {
		all = append(all, field.Forbidden(fld.Child("namespace"), "not allowed on this type"))
	}
	if om.Generation < 0 {
		all = append(all, field.Invalid(fld.Child("generation"), om.Generation, "must be greater than or equal to 0"))
	}
	all = append(all, validateMetaCommon(om, fld)...)
	all = append(all, validateFinalizers(om.Finalizers, fld.Child("finalizers"))...)
	all = append(all, validateManagedFields(om.ManagedFields, fld.Child("managedFields"))...)
	return all
}

// validateManagedFields is apimachinery's ValidateManagedFields.
func validateManagedFields(entries []ManagedFieldsEntry, fld field.Path) field.ErrorList {
	var all field.ErrorList
	for i, e := range entries {
		p := fld.Index(i)
		switch e.Operation {
		case "":
			all = append(all, field.Required(p.Child("operation"), "must not be empty"))
		case "Apply", "Update":
		default:
			all = append(all, field.NotSupported(p.Child("operation"), e.Operation, []string{"Apply", "Update"}))
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			all = append(all, field.Invalid(p.Child("fieldsType"), e.FieldsType, "must be `FieldsV1`"))
		}
		if len(e.Manager) > 128 {
			all = append(all, field.TooLong(p.Child("manager"), "", 128))
		}
		for j, r := range e.Manager {
			if !unicode.IsPrint(r) {
				all = append(all, field.Invalid(p.Child("manager"), e.Manager, fmt.Sprintf("invalid character %#U (at position %d)", r, j)))
			}
		}
		if len(e.Subresource) > 256 {
			all = append(all, field.TooLong(p.Child("subresource"), "", 256))
		}
	}
	return all
}

// ValidateLabels is apimachinery's ValidateLabels: every key a qualified name, every value a
// label value. Keys are checked in sorted order where the apiserver walks a Go map.
func ValidateLabels(labels map[string]string, fld field.Path) field.ErrorList {
	// The errors come in key order; only labels with one need the keys sorted.
	valid := true
	for k, v := range labels {
		if len(validation.IsQualifiedName(k)) != 0 || len(validation.IsValidLabelValue(v)) != 0 {
			valid = false
			break
		}
	}
	if valid {
		return nil
	}
	var all field.ErrorList
	for _, k := range sortedStringKeys(labels) {
		for _, m := range validation.IsQualifiedName(k) {
			all = append(all, field.Invalid(fld, k, m))
		}
		for _, m := range validation.IsValidLabelValue(labels[k]) {
			all = append(all, field.Invalid(fld, labels[k], m))
		}
	}
	return all
}

// TotalAnnotationSizeLimit is apimachinery's TotalAnnotationSizeLimitB: 256 KiB of keys and values.
const TotalAnnotationSizeLimit = 256 * (1 << 10)

// ValidateAnnotations is apimachinery's ValidateAnnotations: keys are qualified names (compared
// lower-cased) and keys and values together stay within TotalAnnotationSizeLimit.
func ValidateAnnotations(annotations map[string]string, fld field.Path) field.ErrorList {
	// The errors come in key order; only annotations with one need the keys sorted.
	valid, total := true, 0
	for k, v := range annotations {
		total += len(k) + len(v)
		if valid && len(validation.IsQualifiedName(strings.ToLower(k))) != 0 {
			valid = false
		}
	}
	if valid && total <= TotalAnnotationSizeLimit {
		return nil
	}
	var all field.ErrorList
	total = 0
	for _, k := range sortedStringKeys(annotations) {
		for _, m := range validation.IsQualifiedName(strings.ToLower(k)) {
			all = append(all, field.Invalid(fld, k, m))
		}
		total += len(k) + len(annotations[k])
	}
	if total > TotalAnnotationSizeLimit {
		all = append(all, field.TooLong(fld, "", TotalAnnotationSizeLimit))
	}
	return all
}

func validateMetaCommon(om *ObjectMeta, fld field.Path) field.ErrorList {
	var all field.ErrorList
	all = append(all, ValidateLabels(om.Labels, fld.Child("labels"))...)
	all = append(all, ValidateAnnotations(om.Annotations, fld.Child("annotations"))...)
	first := ""
	for i, r := range om.OwnerReferences {
		p := fld.Child("ownerReferences").Index(i)
		gv, err := ParseAPIVersion(r.APIVersion)
		if r.APIVersion == "" {
			all = append(all, field.Required(p.Child("apiVersion"), "must not be empty"))
		} else if err != nil || gv.Version == "" {
			all = append(all, field.Invalid(p.Child("apiVersion"), r.APIVersion, "must be <group>/<version> or <version>"))
		}
		if r.Kind == "" {
			all = append(all, field.Required(p.Child("kind"), "must not be empty"))
		}
		if r.Name == "" {
			all = append(all, field.Required(p.Child("name"), "must not be empty"))
		}
		if r.UID == "" {
			all = append(all, field.Required(p.Child("uid"), "must not be empty"))
		}
		if gv.Group == "" && gv.Version == "v1" && r.Kind == "Event" {
			all = append(all, field.Invalid(p, r, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if r.Controller != nil && *r.Controller {
			cur := r.Kind + "/" + r.Name
			if first != "" {
				all = append(all, field.Invalid(fld.Child("ownerReferences"), om.OwnerReferences,
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", first, cur)))
			} else {
				first = cur
			}
		}
	}
	return all
}

func validateFinalizers(fs []string, fld field.Path) field.ErrorList {
	var all field.ErrorList
	orphan, del := false, false
	for _, f := range fs {
		for _, m := range validation.IsQualifiedName(f) {
			all = append(all, field.Invalid(fld, f, m))
		}
		orphan = orphan || f == "orphan"
		del = del || f == "foregroundDeletion"
	}
	if orphan && del {
		l := make([]any, len(fs))
		for i, f := range fs {
			l[i] = f
		}
		all = append(all, field.Invalid(fld, l, "finalizer orphan and foregroundDeletion cannot be both set"))
	}
	return all
}

// validateObjectMetaUpdate is ValidateObjectMetaAccessorUpdate.
func validateObjectMetaUpdate(om, old *ObjectMeta, fld field.Path) field.ErrorList {
	return validateObjectMetaUpdateRV(om, old, true, fld)
}

// validateObjectMetaUpdateRV is ValidateObjectMetaAccessorUpdate; checkRV is false where the
// registry has already checked the resourceVersion.
func validateObjectMetaUpdateRV(om, old *ObjectMeta, checkRV bool, fld field.Path) field.ErrorList {
	var all field.ErrorList
	if old.DeletionTimestamp != nil {
		oldSet := map[string]bool{}
		for _, f := range old.Finalizers {
			oldSet[f] = true
		}
		var extra []string
		seen := map[string]bool{}
		for _, f := range om.Finalizers {
			if !oldSet[f] && !seen[f] {
				extra = append(extra, f)
				seen[f] = true
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			all = append(all, field.Forbidden(fld.Child("finalizers"), fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra)))
		}
	}
	if checkRV && om.ResourceVersion == "" {
		all = append(all, field.Invalid(fld.Child("resourceVersion"), om.ResourceVersion, "must be specified for an update"))
	}
	if om.Generation < 0 {
		all = append(all, field.Invalid(fld.Child("generation"), om.Generation, "must be greater than or equal to 0"))
	}
	if om.Generation < old.Generation {
		all = append(all, field.Invalid(fld.Child("generation"), om.Generation, "must not be decremented"))
	}
	immutable := func(name string, nv, ov any) {
		if !reflect.DeepEqual(nv, ov) {
			all = append(all, field.Invalid(fld.Child(name), nv, "field is immutable"))
		}
	}
	immutable("name", om.Name, old.Name)
	immutable("namespace", om.Namespace, old.Namespace)
	immutable("uid", om.UID, old.UID)
	immutable("creationTimestamp", metaTimeValue(om.CreationTimestamp), metaTimeValue(old.CreationTimestamp))
	var nd, od any
	if om.DeletionTimestamp != nil {
		nd = metaTimeValue(*om.DeletionTimestamp)
	}
	if old.DeletionTimestamp != nil {
		od = metaTimeValue(*old.DeletionTimestamp)
	}
	immutable("deletionTimestamp", nd, od)
	var ng, og any
	if om.DeletionGracePeriodSeconds != nil {
		ng = *om.DeletionGracePeriodSeconds
	}
	if old.DeletionGracePeriodSeconds != nil {
		og = *old.DeletionGracePeriodSeconds
	}
	immutable("deletionGracePeriodSeconds", ng, og)
	all = append(all, validateMetaCommon(om, fld)...)
	all = append(all, validateManagedFields(om.ManagedFields, fld.Child("managedFields"))...)
	return all
}

// ValidateEmbeddedResources checks apiVersion, kind and metadata of the embedded resources
// (x-kubernetes-embedded-resource) in obj, like apiextensions' objectmeta.Validate. With
// isResourceRoot the root itself is checked as an embedded resource too.
func ValidateEmbeddedResources(pth field.Path, obj any, s *Structural, isResourceRoot bool) field.ErrorList {
	if isResourceRoot {
		if s == nil {
			s = &Structural{}
		}
		if !s.XEmbeddedResource {
			c := *s
			c.XEmbeddedResource = true
			s = &c
		}
	}
	return validateEmbedded(pth, obj, s)
}

func validateEmbedded(pth field.Path, x any, s *Structural) field.ErrorList {
	if s == nil {
		return nil
	}
	var all field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if s.XEmbeddedResource {
			all = append(all, validateEmbeddedResource(pth, x)...)
		}
		for _, k := range sortedKeys(x) {
			if prop, ok := s.Properties[k]; ok {
				all = append(all, validateEmbedded(pth.Child(k), x[k], prop)...)
			} else if s.AdditionalProperties != nil {
				all = append(all, validateEmbedded(pth.Key(k), x[k], s.AdditionalProperties.Structural)...)
			}
		}
	case []any:
		for i, v := range x {
			all = append(all, validateEmbedded(pth.Index(i), v, s.Items)...)
		}
	}
	return all
}

func validateEmbeddedResource(pth field.Path, x map[string]any) field.ErrorList {
	var all field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		all = append(all, field.Required(pth.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		all = append(all, field.Required(pth.Child("kind"), ""))
	}
	for _, k := range sortedKeys(x) {
		v := x[k]
		switch k {
		case "apiVersion":
			av, ok := v.(string)
			if !ok {
				all = append(all, field.Invalid(pth.Child("apiVersion"), v, "must be a string"))
			} else if av == "" {
				all = append(all, field.Invalid(pth.Child("apiVersion"), av, "must not be empty"))
			} else if _, err := ParseAPIVersion(av); err != nil {
				all = append(all, field.Invalid(pth.Child("apiVersion"), av, err.Error()))
			}
		case "kind":
			kind, ok := v.(string)
			if !ok {
				all = append(all, field.Invalid(pth.Child("kind"), v, "must be a string"))
			} else if kind == "" {
				all = append(all, field.Invalid(pth.Child("kind"), kind, "must not be empty"))
			} else if errs := validation.IsDNS1035Label(strings.ToLower(kind)); len(errs) > 0 {
				all = append(all, field.Invalid(pth.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
			}
		case "metadata":
			om, _, err := decodeObjectMeta(v, false, "")
			if err != nil {
				all = append(all, field.Invalid(pth.Child("metadata"), v, err.Error()))
			} else {
				if om.Name == "" {
					om.Name = "fakename"
				}
				// ValidateObjectMetaDeclaratively: its declarative rules are alpha, and the merge
				// (FilterCoveredHandwrittenErrors) keeps each message once.
				all = append(all, validateObjectMeta(om, om.Namespace != "", validation.NameIsPathSegment, pth.Child("metadata")).Filter()...)
			}
		}
	}
	return all
}
