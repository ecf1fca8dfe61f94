package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidators(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) []string
		in   string
		want []string
	}{
		{"subdomain ok", IsDNS1123Subdomain, "example.com", nil},
		{"subdomain upper", IsDNS1123Subdomain, "Example", []string{"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
		{"subdomain too long", IsDNS1123Subdomain, strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
		{"label with dots", IsDNS1123Label, "a.b", []string{"must not contain dots"}},
		{"caseless subdomain upper ok", IsDNS1123SubdomainCaseless, "Example.COM", nil},
		{"caseless subdomain too long", IsDNS1123SubdomainCaseless, strings.Repeat("A", 254), []string{"must be no more than 253 bytes"}},
		{"caseless subdomain underscore", IsDNS1123SubdomainCaseless, "a_b", []string{"an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'Example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
		{"short name too long", func(v string) []string { return DNS1123Label(v, ContentMaxLenError) }, strings.Repeat("a", 64), []string{"must be no more than 63 bytes"}},
		{"1035 leading digit", IsDNS1035Label, "1abc", []string{"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"}},
		{"qualified ok", IsQualifiedName, "example.com/My_name", nil},
		{"qualified empty prefix", IsQualifiedName, "/a", []string{"prefix part must be non-empty"}},
		{"qualified long name", IsQualifiedName, strings.Repeat("a", 64), []string{"name part must be no more than 63 bytes"}},
		{"label value empty ok", IsValidLabelValue, "", nil},
		{"label value dash end", IsValidLabelValue, "a-", []string{"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
		{"path segment dotdot", IsValidPathSegmentName, "..", []string{"may not be '..'"}},
		{"path segment slash and percent", IsValidPathSegmentName, "a/%", []string{"may not contain '/'", "may not contain '%'"}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.fn(tc.in), "%s: %q", tc.name, tc.in)
	}
}

func TestGenerateNamePrefixes(t *testing.T) {
	assert.Nil(t, NameIsDNSSubdomain("web-", true), "a generateName prefix may end in '-'")
	assert.NotNil(t, NameIsDNSSubdomain("web-", false), "a name may not")
	assert.Nil(t, NameIsPathSegment("..", true), "prefixes are not checked for exact names")
	// apimachinery's maskTrailingDash drops the two last characters, not one: "web-" -> "wea".
	assert.Equal(t, "wea", MaskTrailingDash("web-"))
	assert.Equal(t, "-", MaskTrailingDash("-"), "a lone dash is left alone")
}

func TestIsCELIdentifier(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "_x1": true, "Abc_9": true, "": false, "1a": false,
		"a-b": false, "a.b": false, "namespace": false, "while": false, "true": false, "in": false, "ns": true} {
		if got := IsCELIdentifier(s); got != want {
			t.Errorf("IsCELIdentifier(%q) = %v, want %v", s, got, want)
		}
	}
	for _, w := range []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
		"function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"} {
		if !IsCELReserved(w) {
			t.Errorf("%q is reserved", w)
		}
	}
	if IsCELReserved("self") {
		t.Error("self is not reserved")
	}
}
