package validation

import (
	"fmt"
	"strings"
)

// Formats of apimachinery's util/validation, quoted in its messages.
const (
	DNS1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	DNS1123SubdomainFmt = DNS1123LabelFmt + "(\\." + DNS1123LabelFmt + ")*"
	DNS1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	LabelKeyFmt         = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	LabelValueFmt       = "(" + LabelKeyFmt + ")?"
)

// The formats above are matched by hand rather than by regexp: the same language, checked in one
// pass without the regexp engine's per-match state (a finalizer or label list of 100,000 names
// costs 100,000 small loops, not 100,000 backtracker allocations). matchers_test.go holds the
// regexps as the oracle.

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// matchDNS1123Label reports whether v matches ^DNS1123LabelFmt$.
func matchDNS1123Label(v string) bool {
	if v == "" || !isLowerAlnum(v[0]) || !isLowerAlnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if !isLowerAlnum(v[i]) && v[i] != '-' {
			return false
		}
	}
	return true
}

// matchDNS1123Subdomain reports whether v matches ^DNS1123SubdomainFmt$: labels joined by dots.
func matchDNS1123Subdomain(v string) bool {
	for {
		i := strings.IndexByte(v, '.')
		if i < 0 {
			return matchDNS1123Label(v)
		}
		if !matchDNS1123Label(v[:i]) {
			return false
		}
		v = v[i+1:]
	}
}

// matchDNS1035Label reports whether v matches ^DNS1035LabelFmt$.
func matchDNS1035Label(v string) bool {
	return v != "" && v[0] >= 'a' && v[0] <= 'z' && matchDNS1123Label(v)
}

// matchLabelKey reports whether v matches ^LabelKeyFmt$.
func matchLabelKey(v string) bool {
	if v == "" || !isAlnum(v[0]) || !isAlnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// matchLabelValue reports whether v matches ^LabelValueFmt$.
func matchLabelValue(v string) bool { return v == "" || matchLabelKey(v) }

// MaxLenError is apimachinery's length message for names (counted in characters).
func MaxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// ContentMaxLenError is the wording of apimachinery's api/validate/content package (label keys
// and values), which counts bytes.
func ContentMaxLenError(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

// RegexError is apimachinery's message for a value that does not match format.
func RegexError(msg, format string, examples ...string) string {
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

// IsDNS1123Subdomain is apimachinery's IsDNS1123Subdomain.
func IsDNS1123Subdomain(v string) []string { return DNS1123Subdomain(v, MaxLenError) }

// DNS1123Subdomain checks an RFC 1123 subdomain with the given length wording (label-key prefixes
// use ContentMaxLenError, names MaxLenError).
func DNS1123Subdomain(v string, maxLen func(int) string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, maxLen(253))
	}
	if !matchDNS1123Subdomain(v) {
		errs = append(errs, RegexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1123SubdomainCaseless is apimachinery's content.IsDNS1123SubdomainCaseless (declarative
// validation's k8s-long-name-caseless format): an RFC 1123 subdomain in either case, its length
// in bytes.
func IsDNS1123SubdomainCaseless(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, ContentMaxLenError(253))
	}
	if !matchDNS1123Subdomain(strings.ToLower(v)) {
		errs = append(errs, RegexError("an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123SubdomainFmt, "Example.com"))
	}
	return errs
}

// IsDNS1123Label is apimachinery's IsDNS1123Label.
func IsDNS1123Label(v string) []string { return DNS1123Label(v, MaxLenError) }

// DNS1123Label checks an RFC 1123 label with the given length wording (declarative validation's
// short names use ContentMaxLenError, the hand-written rules MaxLenError).
func DNS1123Label(v string, maxLen func(int) string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, maxLen(63))
	}
	if !matchDNS1123Label(v) {
		if matchDNS1123Subdomain(v) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, RegexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1035Label is apimachinery's IsDNS1035Label.
func IsDNS1035Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, MaxLenError(63))
	}
	if !matchDNS1035Label(v) {
		errs = append(errs, RegexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

// IsQualifiedName is apimachinery's IsQualifiedName (label and annotation keys, finalizer names).
func IsQualifiedName(v string) []string {
	var errs []string
	// strings.Split(v, "/") into one or two parts, without allocating the parts.
	name := v
	if i := strings.IndexByte(v, '/'); i >= 0 {
		prefix := v[:i]
		name = v[i+1:]
		if strings.IndexByte(name, '/') >= 0 {
			return append(errs, "a valid label key "+RegexError(labelKeyErrMsg, LabelKeyFmt, "MyName", "my.name", "123-abc")+
				" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
		}
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range DNS1123Subdomain(prefix, ContentMaxLenError) {
				errs = append(errs, "prefix part "+m)
			}
		}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part "+ContentMaxLenError(63))
	}
	if !matchLabelKey(name) {
		errs = append(errs, "name part "+RegexError(labelKeyErrMsg, LabelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue is apimachinery's IsValidLabelValue.
func IsValidLabelValue(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, ContentMaxLenError(63))
	}
	if !matchLabelValue(v) {
		errs = append(errs, RegexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LabelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// MaskTrailingDash replaces the final character of a generateName prefix ending in '-' so that
// the prefix validates like a name (apimachinery's maskTrailingDash).
func MaskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

// NameIsDNSSubdomain is apimachinery's NameIsDNSSubdomain (prefix: the value is a generateName).
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = MaskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel is apimachinery's NameIsDNSLabel.
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = MaskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label is apimachinery's NameIsDNS1035Label.
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = MaskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}

// IsValidPathSegmentName is apimachinery's path.IsValidPathSegmentName.
func IsValidPathSegmentName(name string) []string {
	if name == "." || name == ".." {
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	return IsValidPathSegmentPrefix(name)
}

// IsValidPathSegmentPrefix is apimachinery's path.IsValidPathSegmentPrefix.
func IsValidPathSegmentPrefix(name string) []string {
	var errs []string
	for _, c := range []string{"/", "%"} {
		if strings.Contains(name, c) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", c))
		}
	}
	return errs
}

// NameIsPathSegment is the name rule of resources whose names are only path segments.
func NameIsPathSegment(name string, prefix bool) []string {
	if prefix {
		return IsValidPathSegmentPrefix(name)
	}
	return IsValidPathSegmentName(name)
}

// IsWildcardDNS1123Subdomain is apimachinery's IsWildcardDNS1123Subdomain: "*." followed by an
// RFC 1123 subdomain.
func IsWildcardDNS1123Subdomain(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, MaxLenError(253))
	}
	if !matchWildcardDNS1123Subdomain(v) {
		errs = append(errs, RegexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", "\\*\\."+DNS1123SubdomainFmt, "*.example.com"))
	}
	return errs
}

// matchWildcardDNS1123Subdomain reports whether v matches ^\*\.DNS1123SubdomainFmt$.
func matchWildcardDNS1123Subdomain(v string) bool {
	return strings.HasPrefix(v, "*.") && matchDNS1123Subdomain(v[2:])
}

// HTTPPathFmt is the format of the path part of a domain-prefixed path (RFC 3986 path characters).
const HTTPPathFmt = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`

// MatchHTTPPath reports whether v matches ^HTTPPathFmt$.
func MatchHTTPPath(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isAlnum(c) || strings.IndexByte("/-._~%!$&'()*+,;=:", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// celReserved are CEL's reserved words: not identifiers (cel-go's parser refuses them as names),
// reachable from a schema only escaped.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// IsCELReserved reports whether s is one of CEL's reserved words.
func IsCELReserved(s string) bool { return celReserved[s] }

// IsCELIdentifier reports whether s is a CEL identifier: [_a-zA-Z][_a-zA-Z0-9]*, not a reserved
// word.
func IsCELIdentifier(s string) bool {
	if s == "" || celReserved[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
