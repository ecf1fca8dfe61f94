package validation

import (
	"regexp"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// The regexps of apimachinery's formats: the oracle the hand-written matchers must agree with.
var oracles = []struct {
	name  string
	rx    *regexp.Regexp
	match func(string) bool
}{
	{"DNS1123Label", regexp.MustCompile("^" + DNS1123LabelFmt + "$"), matchDNS1123Label},
	{"DNS1123Subdomain", regexp.MustCompile("^" + DNS1123SubdomainFmt + "$"), matchDNS1123Subdomain},
	{"DNS1035Label", regexp.MustCompile("^" + DNS1035LabelFmt + "$"), matchDNS1035Label},
	{"LabelKey", regexp.MustCompile("^" + LabelKeyFmt + "$"), matchLabelKey},
	{"LabelValue", regexp.MustCompile("^" + LabelValueFmt + "$"), matchLabelValue},
	{"WildcardDNS1123Subdomain", regexp.MustCompile("^\\*\\." + DNS1123SubdomainFmt + "$"), matchWildcardDNS1123Subdomain},
	{"HTTPPath", regexp.MustCompile("^" + HTTPPathFmt + "$"), MatchHTTPPath},
	{"PortNameCharset", regexp.MustCompile("^[-a-z0-9]+$"), matchPortNameCharset},
	{"PortNameLetter", regexp.MustCompile("[a-z]"), matchPortNameLetter},
	{"Percent", regexp.MustCompile("^[0-9]+%$"), matchPercent},
	{"HTTPHeaderName", regexp.MustCompile("^[-A-Za-z0-9]+$"), matchHTTPHeaderName},
	{"EnvVarName", regexp.MustCompile("^[-._a-zA-Z][-._a-zA-Z0-9]*$"), matchEnvVarName},
	{"ConfigMapKey", regexp.MustCompile("^[-._a-zA-Z0-9]+$"), matchConfigMapKey},
	{"DNS1123SubdomainWithUnderscore", regexp.MustCompile("^" + dns1123LabelFmtWithUnderscore + "(\\." + dns1123LabelFmtWithUnderscore + ")*$"), matchDNS1123SubdomainWithUnderscore},
}

func TestMatchersAgreeWithRegexps(t *testing.T) {
	inputs := []string{"", "a", "A", "0", "-", ".", "_", "a-b", "a.b", "a_b", "a..b", ".a", "a.", "-a", "a-", "ab-", "a\n", "\na",
		"example.com", "Example.com", "my-name", "123-abc", "a.b-c.d", "a.-b", "a-.b", "é", "aé", "MyName", "my.name", "x/y", "a b", "*.a", "*.a.b", "*.", "*a", "a/b%2f~:",
		"1%", "93%", "%", "1%%", "x1%", "X-Header-Name", "MY_ENV.NAME", "my.env-name", "1abc", "_a", "__a", "_a._b", "a_b._c_d", "a_", "_", "_.a",
		"a.b.", ".", "a..b", "_-a", "a-_b", "http", "h--p", "\x00a", "abc\n", "Za9-"}
	// Every string of length up to 4 over an alphabet that covers each character class.
	alphabet := []byte{'a', 'Z', '0', '-', '.', '_', '/', '*', '%', 0xff, '9', 'z', '='}
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		inputs = append(inputs, string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(append([]byte(nil), prefix...), c), n-1)
		}
	}
	gen(nil, 4)
	for _, o := range oracles {
		for _, in := range inputs {
			assert.Equal(t, o.rx.MatchString(in), o.match(in), "%s(%q)", o.name, in)
		}
	}
}

// relaxedEnvVarNameByRunes is IsRelaxedEnvVarName's test as apimachinery writes it, rune by rune.
func relaxedEnvVarNameByRunes(v string) bool {
	for _, r := range v {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == '=' {
			return false
		}
	}
	return v != ""
}

func TestRelaxedEnvVarNameAgreesWithRunes(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, in := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "b"} {
			assert.Equal(t, relaxedEnvVarNameByRunes(in), len(IsRelaxedEnvVarName(in)) == 0, "%q", in)
		}
	}
}

func FuzzMatchers(f *testing.F) {
	for _, s := range []string{"", "a", "a-b.c", "A_b.C", "-x", "x.", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, o := range oracles {
			if o.rx.MatchString(in) != o.match(in) {
				t.Fatalf("%s(%q): regexp %v, matcher %v", o.name, in, o.rx.MatchString(in), o.match(in))
			}
		}
		if relaxedEnvVarNameByRunes(in) != (len(IsRelaxedEnvVarName(in)) == 0) {
			t.Fatalf("IsRelaxedEnvVarName(%q) disagrees with the rune loop", in)
		}
	})
}
