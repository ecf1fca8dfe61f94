package cel

import (
	"regexp"
	"strings"

	"github.com/writepath/writepath/internal/validation"
)

var expandMatcher = regexp.MustCompile(`(__|[-./]|[^a-zA-Z0-9-./_])`)

// Escape maps a property name to its CEL identifier, as the apiserver does: reserved words
// become __word__, "__" becomes __underscores__, "." __dot__, "-" __dash__, "/" __slash__. It
// returns false for names CEL cannot reach (empty, leading digit, other characters).
func Escape(ident string) (string, bool) {
	if len(ident) == 0 || ('0' <= ident[0] && ident[0] <= '9') {
		return "", false
	}
	if validation.IsCELReserved(ident) {
		return "__" + ident + "__", true
	}
	canSkip, prevUnderscore := true, false
	for _, c := range ident {
		if c == '/' || c == '-' || c == '.' {
			canSkip = false
			break
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
		if c == '_' && prevUnderscore {
			canSkip = false
			break
		}
		prevUnderscore = c == '_'
	}
	if canSkip {
		return ident, true
	}
	ok := true
	ident = expandMatcher.ReplaceAllStringFunc(ident, func(s string) string {
		switch s {
		case "__":
			return "__underscores__"
		case ".":
			return "__dot__"
		case "-":
			return "__dash__"
		case "/":
			return "__slash__"
		}
		ok = false
		return ""
	})
	if !ok {
		return "", false
	}
	return ident, true
}

var unexpandMatcher = regexp.MustCompile(`(_{2}[^_]+_{2})`)

// Unescape is the inverse of Escape.
func Unescape(escaped string) (string, bool) {
	if !strings.Contains(escaped, "__") {
		return escaped, true
	}
	ok := true
	out := unexpandMatcher.ReplaceAllStringFunc(escaped, func(s string) string {
		contents := s[2 : len(s)-2]
		switch contents {
		case "underscores":
			return "__"
		case "dot":
			return "."
		case "dash":
			return "-"
		case "slash":
			return "/"
		}
		if validation.IsCELReserved(contents) {
			if len(s) != len(escaped) {
				ok = false
			}
			return contents
		}
		ok = false
		return ""
	})
	if !ok {
		return "", false
	}
	return out, true
}
