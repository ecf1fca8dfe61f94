package validation

import (
	"fmt"

	"github.com/writepath/writepath/field"
	"github.com/writepath/writepath/internal/validation"
)

// IPAddress and ServiceCIDR (networking.k8s.io) as ValidateIPAddress(Update) and
// ValidateServiceCIDR(Update, StatusUpdate) with their strategies. An IPAddress's parentRef is
// required, its resource and name too, by 1.37's enforced (beta) declarative rules (after the
// hand-written errors), and immutable; its name is an IP address in canonical form. A
// ServiceCIDR holds one or two CIDRs of distinct families, immutable but for a second one added
// to a single-stack ServiceCIDR; its /status validates the metadata alone.

func validateIPAddress(obj map[string]any, _ Options) field.ErrorList {
	ref, hasRef := mapOf(obj["spec"])["parentRef"].(map[string]any)
	return withDeclarative(ipAddress(obj, true), parentRefRequired(ref, hasRef, true))
}

func validateIPAddressUpdate(obj, old map[string]any, _ Options) field.ErrorList {
	ref, hasRef := mapOf(obj["spec"])["parentRef"].(map[string]any)
	oldRef, oldHasRef := mapOf(old["spec"])["parentRef"].(map[string]any)
	changed := hasRef != oldHasRef || !semanticEqual(ref, oldRef)
	// A changed parentRef: the declarative required and immutable checks (which cover the
	// hand-written parentRef required and immutable errors), not its fields' (whose
	// hand-written required errors stand).
	errs := ipAddress(obj, false)
	if changed && !hasRef {
		errs = dropRequired(errs, "spec.parentRef")
	}
	errs = append(errs, coreObjectMetaUpdate(obj, old)...)
	if !changed {
		return withDeclarative(errs, nil)
	}
	decl := parentRefRequired(ref, hasRef, false)
	decl = append(decl, field.Invalid(field.NewPath("spec", "parentRef"), nil, "field is immutable"))
	return withDeclarative(errs, decl)
}

// dropRequired drops the Required errors at path.
func dropRequired(errs field.ErrorList, path string) field.ErrorList {
	out := errs[:0:0]
	for _, e := range errs {
		if e.Type == field.ErrorTypeRequired && e.Field == path {
			continue
		}
		out = append(out, e)
	}
	return out
}

// ipAddress is ValidateIPAddress; coveredRequired drops the required errors the declarative ones
// replace (on create).
func ipAddress(obj map[string]any, coveredRequired bool) field.ErrorList {
	errs := coreObjectMeta(obj, false, ipAddressName)
	p := field.NewPath("spec", "parentRef")
	ref, ok := mapOf(obj["spec"])["parentRef"].(map[string]any)
	if !ok {
		if !coveredRequired {
			errs = append(errs, field.Required(p, ""))
		}
		return errs
	}
	if g := str(ref, "group"); g != "" {
		errs = append(errs, invalids(p.Child("group"), g, validation.IsDNS1123Subdomain(g))...)
	}
	for _, k := range []string{"resource", "name"} {
		if v := str(ref, k); v == "" {
			if !coveredRequired {
				errs = append(errs, field.Required(p.Child(k), ""))
			}
		} else {
			errs = append(errs, invalids(p.Child(k), v, validation.IsValidPathSegmentName(v))...)
		}
	}
	if ns := str(ref, "namespace"); ns != "" {
		errs = append(errs, invalids(p.Child("namespace"), ns, validation.IsValidPathSegmentName(ns))...)
	}
	return errs
}

// parentRefRequired is the declarative parentRef rules: required; on create (fields) its resource
// and name required too.
func parentRefRequired(ref map[string]any, hasRef, fields bool) field.ErrorList {
	p := field.NewPath("spec", "parentRef")
	if !hasRef {
		return field.ErrorList{field.Required(p, "")}
	}
	if !fields {
		return nil
	}
	var errs field.ErrorList
	for _, k := range []string{"resource", "name"} {
		if str(ref, k) == "" {
			errs = append(errs, field.Required(p.Child(k), ""))
		}
	}
	return errs
}

// ipAddressName is ValidateIPAddressName: the name is an IP address in canonical form.
func ipAddressName(name string, _ bool) []string {
	var out []string
	for _, e := range strictIP(field.Path{}, name) {
		out = append(out, e.Detail)
	}
	return out
}

func validateServiceCIDR(obj map[string]any, _ Options) field.ErrorList {
	errs := coreObjectMeta(obj, false, validation.NameIsDNSSubdomain)
	return distinct(append(errs, serviceCIDRSpec(listOf(mapOf(obj["spec"])["cidrs"]))...))
}

func validateServiceCIDRUpdate(obj, old map[string]any, opts Options) field.ErrorList {
	errs := coreObjectMetaUpdate(obj, old)
	switch opts.Subresource {
	case "status":
		return distinct(errs)
	case "":
	default:
		return nil
	}
	cidrs, oldCIDRs := stringList(mapOf(obj["spec"])["cidrs"]), stringList(mapOf(old["spec"])["cidrs"])
	p := field.NewPath("spec", "cidrs")
	switch {
	case len(cidrs) == len(oldCIDRs):
		for i, o := range oldCIDRs {
			if cidrs[i] != o {
				errs = append(errs, field.Invalid(p.Index(i), cidrs[i], "field is immutable"))
			}
		}
	case len(oldCIDRs) == 1 && len(cidrs) == 2:
		if cidrs[0] != oldCIDRs[0] {
			errs = append(errs, field.Invalid(p.Index(0), cidrs[0], "field is immutable"))
		}
		errs = append(errs, serviceCIDRSpec(listOf(mapOf(obj["spec"])["cidrs"]))...)
	default:
		errs = append(errs, field.Invalid(p, cidrListValue(mapOf(obj["spec"])["cidrs"]), "field is immutable"))
	}
	return distinct(errs)
}

// cidrListValue is a list of CIDRs as a bad value: null when absent.
func cidrListValue(v any) []string {
	if l, ok := v.([]any); ok {
		return stringList(l)
	}
	return nil
}

// serviceCIDRSpecJSON is the internal ServiceCIDRSpec as the apiserver prints it.
type serviceCIDRSpecJSON struct{ CIDRs []string }

// serviceCIDRSpec is validateServiceCIDRSpec: one or two CIDRs, each strict and canonical, two of
// distinct IP families.
func serviceCIDRSpec(raw []any) field.ErrorList {
	p := field.NewPath("spec", "cidrs")
	cidrs := stringList(raw)
	switch {
	case len(cidrs) == 0:
		return field.ErrorList{field.Required(p, "at least one CIDR required")}
	case len(cidrs) > 2:
		return field.ErrorList{field.Invalid(p, serviceCIDRSpecJSON{cidrs}, "may only hold up to 2 values")}
	}
	var errs field.ErrorList
	for i, c := range cidrs {
		errs = append(errs, strictCIDR(p.Index(i), c)...)
	}
	if len(cidrs) == 2 {
		if f := cidrFamily(cidrs[0]); f != 0 && f == cidrFamily(cidrs[1]) {
			errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}

// strictCIDR is apimachinery's IsValidCIDR: a strictly valid CIDR in canonical form.
func strictCIDR(p field.Path, v string) field.ErrorList {
	if errs := legacyCIDR(p, v, nil); len(errs) > 0 {
		return errs
	}
	if s := parseCIDRSloppy(v).String(); s != v {
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("must be in canonical form (%q)", s))}
	}
	return nil
}

// cidrFamily is k8s.io/utils/net's IPFamilyOfCIDRString: 4, 6, or 0 for a value that does not
// parse.
func cidrFamily(v string) int {
	n := parseCIDRSloppy(v)
	switch {
	case n == nil:
		return 0
	case n.IP.To4() != nil:
		return 4
	}
	return 6
}
