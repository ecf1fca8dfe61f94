package validation

import (
	"fmt"
	"strings"
)

// The other string and number validators of apimachinery's util/validation that the built-in
// kinds' rules call: ports, percentages, environment variable names, config keys, ids, ranges.

// Their formats are matched by hand, as the name formats are (matchers_test.go holds the
// regexps as the oracle).

// matchPortNameCharset reports whether v matches ^[-a-z0-9]+$.
func matchPortNameCharset(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isLowerAlnum(v[i]) && v[i] != '-' {
			return false
		}
	}
	return v != ""
}

// matchPortNameLetter reports whether v contains a match of [a-z].
func matchPortNameLetter(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= 'a' && v[i] <= 'z' {
			return true
		}
	}
	return false
}

// matchPercent reports whether v matches ^[0-9]+%$.
func matchPercent(v string) bool {
	if len(v) < 2 || v[len(v)-1] != '%' {
		return false
	}
	for i := 0; i < len(v)-1; i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// matchHTTPHeaderName reports whether v matches ^[-A-Za-z0-9]+$.
func matchHTTPHeaderName(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '-' {
			return false
		}
	}
	return v != ""
}

// isConfigMapKeyByte is the class [-._a-zA-Z0-9].
func isConfigMapKeyByte(c byte) bool { return isAlnum(c) || c == '-' || c == '.' || c == '_' }

// matchEnvVarName reports whether v matches ^[-._a-zA-Z][-._a-zA-Z0-9]*$.
func matchEnvVarName(v string) bool {
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		return false
	}
	return matchConfigMapKey(v)
}

// matchConfigMapKey reports whether v matches ^[-._a-zA-Z0-9]+$.
func matchConfigMapKey(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isConfigMapKeyByte(v[i]) {
			return false
		}
	}
	return v != ""
}

// InclusiveRangeError is apimachinery's "must be between lo and hi, inclusive".
func InclusiveRangeError(lo, hi int) string {
	return fmt.Sprintf(`must be between %d and %d, inclusive`, lo, hi)
}

// EmptyError is apimachinery's "must be non-empty".
func EmptyError() string { return "must be non-empty" }

// IsValidPortNum is apimachinery's IsValidPortNum: 1 to 65535.
func IsValidPortNum(port int64) []string {
	if 1 <= port && port <= 65535 {
		return nil
	}
	return []string{InclusiveRangeError(1, 65535)}
}

// IsInRange is apimachinery's IsInRange.
func IsInRange(v, lo, hi int64) []string {
	if v >= lo && v <= hi {
		return nil
	}
	return []string{InclusiveRangeError(int(lo), int(hi))}
}

// IsValidGroupID and IsValidUserID are apimachinery's: 0 to MaxInt32.
func IsValidGroupID(gid int64) []string { return IsInRange(gid, 0, 1<<31-1) }

// IsValidUserID is apimachinery's IsValidUserID.
func IsValidUserID(uid int64) []string { return IsInRange(uid, 0, 1<<31-1) }

// IsValidPortName is apimachinery's IsValidPortName (an IANA service name).
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, MaxLenError(15))
	}
	if !matchPortNameCharset(port) {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !matchPortNameLetter(port) {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(port) > 0 && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsValidPercent is apimachinery's IsValidPercent.
func IsValidPercent(v string) []string {
	if !matchPercent(v) {
		return []string{RegexError("a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%")}
	}
	return nil
}

// IsHTTPHeaderName is apimachinery's IsHTTPHeaderName.
func IsHTTPHeaderName(v string) []string {
	if !matchHTTPHeaderName(v) {
		return []string{RegexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name")}
	}
	return nil
}

// IsEnvVarName is apimachinery's IsEnvVarName.
func IsEnvVarName(v string) []string {
	var errs []string
	if !matchEnvVarName(v) {
		errs = append(errs, RegexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
			"[-._a-zA-Z][-._a-zA-Z0-9]*", "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
	}
	return append(errs, chDirPrefix(v)...)
}

// IsRelaxedEnvVarName is apimachinery's IsRelaxedEnvVarName: printable ASCII other than '='.
func IsRelaxedEnvVarName(v string) []string {
	var errs []string
	if v == "" {
		errs = append(errs, "environment variable name "+EmptyError())
	}
	// Byte by byte: a byte of a multi-byte or invalid UTF-8 sequence is above unicode.MaxASCII,
	// as the rune it belongs to is, and the printable ASCII runes are ' ' to '~'.
	for i := 0; i < len(v); i++ {
		if r := v[i]; r < ' ' || r > '~' || r == '=' {
			errs = append(errs, "a valid environment variable name must consist only of printable ASCII characters other than '='")
			break
		}
	}
	return errs
}

// IsConfigMapKey is apimachinery's IsConfigMapKey (ConfigMap and Secret keys).
func IsConfigMapKey(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, MaxLenError(253))
	}
	if !matchConfigMapKey(v) {
		errs = append(errs, RegexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"))
	}
	return append(errs, chDirPrefix(v)...)
}

func chDirPrefix(v string) []string {
	switch {
	case v == ".":
		return []string{`must not be '.'`}
	case v == "..":
		return []string{`must not be '..'`}
	case strings.HasPrefix(v, ".."):
		return []string{`must not start with '..'`}
	}
	return nil
}

const dns1123LabelFmtWithUnderscore = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"

// matchDNS1123SubdomainWithUnderscore reports whether v matches
// ^dns1123LabelFmtWithUnderscore(\.dns1123LabelFmtWithUnderscore)*$: labels joined by dots,
// each an optional '_' followed by a label that may hold '_' inside.
func matchDNS1123SubdomainWithUnderscore(v string) bool {
	for {
		label, rest, more := strings.Cut(v, ".")
		label = strings.TrimPrefix(label, "_")
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlnum(c) && c != '-' && c != '_' {
				return false
			}
		}
		if !more {
			return true
		}
		v = rest
	}
}

// IsDNS1123SubdomainWithUnderscore is apimachinery's IsDNS1123SubdomainWithUnderscore (DNS
// search domains).
func IsDNS1123SubdomainWithUnderscore(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, MaxLenError(253))
	}
	if !matchDNS1123SubdomainWithUnderscore(v) {
		errs = append(errs, RegexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
			dns1123LabelFmtWithUnderscore+"(\\."+dns1123LabelFmtWithUnderscore+")*", "example.com"))
	}
	return errs
}

// IsWellFormedResourceVersion is apimachinery's resourceversion well-formedness (KEP-5504): one
// or more ASCII decimal digits, the first of which is not '0'. There is no length limit, so "0"
// and "" are not well formed and neither is "007".
func IsWellFormedResourceVersion(rv string) bool {
	if rv == "" || rv[0] == '0' {
		return false
	}
	for i := 0; i < len(rv); i++ {
		if rv[i] < '0' || rv[i] > '9' {
			return false
		}
	}
	return true
}
