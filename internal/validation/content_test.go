package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestContentValidators(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) []string
		in   string
		want []string
	}{
		{"port name ok", IsValidPortName, "http-alt", nil},
		{"port name digits only and too long", IsValidPortName, strings.Repeat("1", 16), []string{"must be no more than 15 characters", "must contain at least one letter (a-z)"}},
		{"port name hyphens", IsValidPortName, "-a--b", []string{"must not contain consecutive hyphens", "must not begin or end with a hyphen"}},
		{"port name upper", IsValidPortName, "HTTP", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)"}},
		{"percent", IsValidPercent, "5", []string{"a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"env name leading digit", IsEnvVarName, "1A", []string{"a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"}},
		{"env name dotdot", IsEnvVarName, "..a", []string{"must not start with '..'"}},
		{"relaxed env name equals", IsRelaxedEnvVarName, "a=b", []string{"a valid environment variable name must consist only of printable ASCII characters other than '='"}},
		{"config key dot", IsConfigMapKey, ".", []string{"must not be '.'"}},
		{"config key slash", IsConfigMapKey, "a/b", []string{"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"}},
		{"header", IsHTTPHeaderName, "X Y", []string{"a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.fn(tc.in), "%s: %q", tc.name, tc.in)
	}
	assert.Equal(t, []string{"must be between 1 and 65535, inclusive"}, IsValidPortNum(0), "port 0")
	assert.Nil(t, IsValidPortNum(65535), "port 65535")
	assert.Equal(t, []string{"must be between 0 and 2147483647, inclusive"}, IsValidUserID(-1), "uid -1")
}
