package validation

import (
	"regexp"
	"testing"

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
}

func TestMatchersAgreeWithRegexps(t *testing.T) {
	inputs := []string{"", "a", "A", "0", "-", ".", "_", "a-b", "a.b", "a_b", "a..b", ".a", "a.", "-a", "a-", "ab-", "a\n", "\na",
		"example.com", "Example.com", "my-name", "123-abc", "a.b-c.d", "a.-b", "a-.b", "é", "aé", "MyName", "my.name", "x/y", "a b", "*.a", "*.a.b", "*.", "*a", "a/b%2f~:"}
	// Every string of length up to 3 over an alphabet that covers each character class.
	alphabet := []byte{'a', 'Z', '0', '-', '.', '_', '/', '*', '%', 0xff}
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
	gen(nil, 3)
	for _, o := range oracles {
		for _, in := range inputs {
			assert.Equal(t, o.rx.MatchString(in), o.match(in), "%s(%q)", o.name, in)
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
	})
}
