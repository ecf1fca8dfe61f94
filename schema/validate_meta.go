package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/writepath/writepath/field"
)

// Validation of the metadata of custom resources (the root's, by the custom resource strategy,
// and embedded resources', by apiextensions' objectmeta.Validate), with apimachinery's wording.

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	labelKeyFmt         = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + labelKeyFmt + ")?"
)

var (
	rxDNS1123Label     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	rxDNS1123Subdomain = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	rxDNS1035Label     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	rxLabelKey         = regexp.MustCompile("^" + labelKeyFmt + "$")
	rxLabelValue       = regexp.MustCompile("^" + labelValueFmt + "$")
)

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// contentMaxLenError is the wording of apimachinery's api/validate/content package (label keys
// and values), which counts bytes.
func contentMaxLenError(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

func regexError(msg, format string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + format + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

func isDNS1123Subdomain(v string) []string { return dns1123Subdomain(v, maxLenError) }

func dns1123Subdomain(v string, maxLen func(int) string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, maxLen(253))
	}
	if !rxDNS1123Subdomain.MatchString(v) {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

func isDNS1123Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, maxLenError(63))
	}
	if !rxDNS1123Label.MatchString(v) {
		if rxDNS1123Subdomain.MatchString(v) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

func isDNS1035Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, maxLenError(63))
	}
	if !rxDNS1035Label.MatchString(v) {
		errs = append(errs, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

func isQualifiedName(v string) []string {
	var errs []string
	parts := strings.Split(v, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range dns1123Subdomain(prefix, contentMaxLenError) {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part "+contentMaxLenError(63))
	}
	if !rxLabelKey.MatchString(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

func isLabelValue(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, contentMaxLenError(63))
	}
	if !rxLabelValue.MatchString(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

// nameIsDNSSubdomain is apimachinery's NameIsDNSSubdomain (the name rule of custom resources).
func nameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return isDNS1123Subdomain(name)
}

func nameIsPathSegment(name string, prefix bool) []string {
	if !prefix && (name == "." || name == "..") {
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	var errs []string
	for _, c := range []string{"/", "%"} {
		if strings.Contains(name, c) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", c))
		}
	}
	return errs
}

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
			for _, m := range isDNS1123Label(om.Namespace) {
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

func validateMetaCommon(om *ObjectMeta, fld field.Path) field.ErrorList {
	var all field.ErrorList
	for _, k := range sortedStringKeys(om.Labels) {
		for _, m := range isQualifiedName(k) {
			all = append(all, field.Invalid(fld.Child("labels"), k, m))
		}
		for _, m := range isLabelValue(om.Labels[k]) {
			all = append(all, field.Invalid(fld.Child("labels"), om.Labels[k], m))
		}
	}
	total := 0
	for _, k := range sortedStringKeys(om.Annotations) {
		for _, m := range isQualifiedName(strings.ToLower(k)) {
			all = append(all, field.Invalid(fld.Child("annotations"), k, m))
		}
		total += len(k) + len(om.Annotations[k])
	}
	if total > 256*(1<<10) {
		all = append(all, field.TooLong(fld.Child("annotations"), "", 256*(1<<10)))
	}
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
			all = append(all, field.Invalid(p, ownerRefValue(r), "/v1, Kind=Event is disallowed from being an owner"))
		}
		if r.Controller != nil && *r.Controller {
			cur := r.Kind + "/" + r.Name
			if first != "" {
				all = append(all, field.Invalid(fld.Child("ownerReferences"), ownerRefsValue(om.OwnerReferences),
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", first, cur)))
			} else {
				first = cur
			}
		}
	}
	return all
}

func ownerRefValue(r OwnerReference) map[string]any {
	m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": r.UID}
	if r.Controller != nil {
		m["controller"] = *r.Controller
	}
	if r.BlockOwnerDeletion != nil {
		m["blockOwnerDeletion"] = *r.BlockOwnerDeletion
	}
	return m
}

func ownerRefsValue(rs []OwnerReference) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = ownerRefValue(r)
	}
	return out
}

func validateFinalizers(fs []string, fld field.Path) field.ErrorList {
	var all field.ErrorList
	orphan, del := false, false
	for _, f := range fs {
		for _, m := range isQualifiedName(f) {
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
	if om.ResourceVersion == "" {
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
	immutable("creationTimestamp", om.CreationTimestamp.unstructured(), old.CreationTimestamp.unstructured())
	var nd, od any
	if om.DeletionTimestamp != nil {
		nd = om.DeletionTimestamp.unstructured()
	}
	if old.DeletionTimestamp != nil {
		od = old.DeletionTimestamp.unstructured()
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
			} else if errs := isDNS1035Label(strings.ToLower(kind)); len(errs) > 0 {
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
				all = append(all, validateObjectMeta(om, om.Namespace != "", nameIsPathSegment, pth.Child("metadata"))...)
			}
		}
	}
	return all
}
