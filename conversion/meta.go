package conversion

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/writepath/writepath/field"
)

// Label and annotation validation of converted objects (apimachinery's ValidateLabels and
// ValidateAnnotations), with apimachinery's wording. Keys are checked in sorted order where
// the apiserver walks a Go map.

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	// totalAnnotationSizeLimit is apimachinery's TotalAnnotationSizeLimitB.
	totalAnnotationSizeLimit = 256 * 1024
)

var (
	rxDNS1123Subdomain = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	rxDNS1035Label     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	rxQualifiedName    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	rxLabelValue       = regexp.MustCompile("^" + labelValueFmt + "$")
)

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

func dns1123SubdomainWith(v string, maxLen func(int) string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, maxLen(253))
	}
	if !rxDNS1123Subdomain.MatchString(v) {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

func dns1123Subdomain(v string) []string {
	return dns1123SubdomainWith(v, func(n int) string { return fmt.Sprintf("must be no more than %d characters", n) })
}

func dns1035Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !rxDNS1035Label.MatchString(v) {
		errs = append(errs, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

func bytesMaxLen(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

func qualifiedName(v string) []string {
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
			for _, m := range dns1123SubdomainWith(prefix, bytesMaxLen) {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part "+bytesMaxLen(63))
	}
	if !rxQualifiedName.MatchString(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

func labelValue(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, bytesMaxLen(63))
	}
	if !rxLabelValue.MatchString(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func validateLabels(labels map[string]string, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		for _, m := range qualifiedName(k) {
			errs = append(errs, field.Invalid(fld, k, m))
		}
		for _, m := range labelValue(labels[k]) {
			errs = append(errs, field.Invalid(fld, labels[k], m))
		}
	}
	return errs
}

func validateAnnotations(annotations map[string]string, fld field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(annotations) {
		for _, m := range qualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(fld, k, m))
		}
	}
	total := 0
	for k, v := range annotations {
		total += len(k) + len(v)
	}
	if total > totalAnnotationSizeLimit {
		errs = append(errs, field.TooLong(fld, "", totalAnnotationSizeLimit))
	}
	return errs
}
