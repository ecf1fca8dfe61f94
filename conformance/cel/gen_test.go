package cel

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// sampleSize is n normally and at least long with WRITEPATH_LONG=1.
func sampleSize(n, long int) int {
	if os.Getenv("WRITEPATH_LONG") != "" {
		return long
	}
	return n
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func digits(r *rand.Rand, max int) string {
	n := r.IntN(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

// quantityString returns a quantity-like string. Exponents stay small: the apiserver
// materialises 10^exponent when adding decimal quantities, so quantity("1e2000000000") + a
// fraction does not finish there (writepath refuses with an error; see TestQuantityBombs).
func quantityString(r *rand.Rand) string {
	if r.IntN(20) == 0 {
		return pick(r, "", "0", "-", "+", ".", "1.", ".5", "1e", "1Ki", "1.5Gi", "100m", "1000m", "-0.0001", "9223372036854775807", "9223372036854775808", "8Ei", "9Ei", "1n", "0.1n", "123456789012345678901234567890", "1e200", "0e200", "1E-3", "1Mi ", " 1", "1.2.3", "1kk", "1ki")
	}
	s := pick(r, "", "", "+", "-")
	if r.IntN(5) == 0 {
		s += strings.Repeat("0", r.IntN(4))
	}
	s += digits(r, 22)
	if r.IntN(3) == 0 {
		s += "." + digits(r, 12)
	}
	s += pick(r, "", "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
		"e"+strconv.Itoa(r.IntN(40)-20), "E+"+strconv.Itoa(r.IntN(30)), "e", "i", "x", "Kb")
	return s
}

func semverString(r *rand.Rand) string {
	if r.IntN(15) == 0 {
		return pick(r, "", "1", "1.2", "v1.2.3", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3+", "1.2.3-01", "1.2.3-a..b", "1.2.3+a..b", "1.2.3-alpha.1+build.5", "18446744073709551616.0.0", "v01", "1.2-a", "1.2.3.4", "a.b.c")
	}
	part := func() string {
		switch r.IntN(6) {
		case 0:
			return "0" + digits(r, 2)
		case 1:
			return pick(r, "x", "1a", "")
		}
		return strconv.Itoa(r.IntN(30))
	}
	s := pick(r, "", "", "", "v") + part()
	n := r.IntN(4)
	for i := 0; i < n; i++ {
		s += "." + part()
	}
	if r.IntN(3) == 0 {
		s += "-" + pick(r, "alpha", "beta.1", "rc.01", "0", "x-y", "a$", "1.2")
	}
	if r.IntN(4) == 0 {
		s += "+" + pick(r, "build", "001", "a.b", "", "x_y")
	}
	return s
}

func ipString(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("%d.%d.%d.%d", r.IntN(300), r.IntN(256), r.IntN(256), r.IntN(256))
	case 1:
		return pick(r, "127.0.0.1", "0.0.0.0", "::", "::1", "fe80::1", "fe80::1%eth0", "ff02::1", "224.0.0.1", "169.254.1.1", "::ffff:1.2.3.4", "2001:db8::1", "2001:DB8::1", "2001:db8:0:0:0:0:0:1", "1.2.3", "01.2.3.4", "", "1.2.3.4 ", "10.0.0.1")
	case 2:
		var parts []string
		for i := 0; i < 1+r.IntN(8); i++ {
			parts = append(parts, strconv.FormatInt(int64(r.IntN(0x10000)), 16))
		}
		return strings.Join(parts, pick(r, ":", ":", "::"))
	}
	return fmt.Sprintf("%d.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
}

func cidrString(r *rand.Rand) string {
	if r.IntN(8) == 0 {
		return pick(r, "", "10.0.0.0", "10.0.0.0/33", "10.0.0.0/-1", "::/0", "::ffff:1.2.3.4/96", "2001:db8::/32", "fe80::/10%eth0", "1.2.3.4/08", "192.168.0.1/24")
	}
	return ipString(r) + "/" + strconv.Itoa(r.IntN(140))
}

func urlString(r *rand.Rand) string {
	if r.IntN(5) == 0 {
		return pick(r, "", "/", "//x", "http://", "https://example.com", "https://user:pw@example.com:8080/a/b%20c?x=1&y=2&x=3#frag",
			"example.com", "http://[::1]:80/", "http://[fe80::1%25en0]/", "mailto:a@b", "http://a b.com/", "http://example.com/%zz", "ftp://x/y;p?q", "*", "http://host:port/", "https://example.com:99999/")
	}
	s := pick(r, "http", "https", "ftp", "", "HTTP") + pick(r, "://", "://", ":", "//", "")
	s += pick(r, "example.com", "a.b.c", "[::1]", "127.0.0.1", "user@host", "", "x")
	if r.IntN(2) == 0 {
		s += ":" + strconv.Itoa(r.IntN(70000))
	}
	s += pick(r, "", "/", "/a/b", "/a%2Fb", "/x y", "/%41")
	if r.IntN(2) == 0 {
		s += "?" + pick(r, "a=1", "a=1&b=2&a=3", "a", "=", "a=%zz", "k=v;x=y")
	}
	if r.IntN(4) == 0 {
		s += "#f"
	}
	return s
}

func regexString(r *rand.Rand) string {
	return pick(r, "a+", "[a-z]+", "(", "b.", "^a", "x*", "", "(a|b)*c", "\\d+", "[", "a{2,}", "(?i)A", "\\", "((a+)+)+b", "\\pL")
}

func textString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return pick(r, "", "Hello World", "aaab", "my-name", "My_Name", "a.b.c", "123", "ümlaut", "-x-", "abc-", "a/b", "example.com/Name", strings.Repeat("a", 70), strings.Repeat("ab.", 90))
	}
	alphabet := "abcAB01-._/ "
	n := r.IntN(12)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func celString(s string) string { return strconv.Quote(s) }

func listLiteral(r *rand.Rand) string {
	n := r.IntN(6)
	var elems []string
	kind := r.IntN(6)
	for i := 0; i < n; i++ {
		switch kind {
		case 0:
			elems = append(elems, strconv.Itoa(r.IntN(20)-10))
		case 1:
			elems = append(elems, strconv.FormatFloat(float64(r.IntN(200)-100)/8, 'f', -1, 64)+pick(r, "", ".0"))
		case 2:
			elems = append(elems, celString(pick(r, "a", "b", "c", "", "ab")))
		case 3:
			elems = append(elems, strconv.Itoa(r.IntN(20))+"u")
		case 4:
			elems = append(elems, pick(r, "true", "false"))
		case 5:
			elems = append(elems, "duration('"+strconv.Itoa(r.IntN(100))+"s')")
		}
	}
	if kind == 1 {
		for i, e := range elems {
			if !strings.Contains(e, ".") {
				elems[i] = e + ".0"
			}
		}
	}
	return "[" + strings.Join(elems, ", ") + "]"
}

func listElem(r *rand.Rand) string {
	return pick(r, "1", "2", "-3", "'a'", "'b'", "1.0", "2u", "true", "duration('5s')")
}

var formatNames = []string{"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"}

// expression returns a random CEL expression over the Kubernetes libraries.
func expression(r *rand.Rand) string {
	q := func() string { return "quantity(" + celString(quantityString(r)) + ")" }
	sv := func() string {
		if r.IntN(3) == 0 {
			return "semver(" + celString(semverString(r)) + ", " + pick(r, "true", "false") + ")"
		}
		return "semver(" + celString(semverString(r)) + ")"
	}
	switch r.IntN(16) {
	case 0:
		return "isQuantity(" + celString(quantityString(r)) + ")"
	case 1:
		return q() + pick(r, ".isInteger()", ".asApproximateFloat()", ".asInteger()", ".sign()", ".isInteger()")
	case 2:
		return q() + pick(r, ".add(", ".sub(", ".isLessThan(", ".isGreaterThan(", ".compareTo(") + q() + ")" + pick(r, "", ".asApproximateFloat()", ".isInteger()")
	case 3:
		return pick(r, q()+".add("+strconv.Itoa(r.IntN(2000)-1000)+").asApproximateFloat()", q()+" == "+q(), q()+".add("+q()+") == "+q(), q()+" == "+q()+".sub(1)", "sign("+q()+")")
	case 4:
		return pick(r, "isSemver("+celString(semverString(r))+")", "isSemver("+celString(semverString(r))+", true)", sv()+".major()", sv()+".minor() + "+sv()+".patch()", sv()+".compareTo("+sv()+")", sv()+".isLessThan("+sv()+")", sv()+" == "+sv())
	case 5:
		ip := "ip(" + celString(ipString(r)) + ")"
		return pick(r, "isIP("+celString(ipString(r))+")", "ip.isCanonical("+celString(ipString(r))+")", ip+".family()", ip+".isLoopback()", ip+".isUnspecified()", ip+".isGlobalUnicast()", ip+".isLinkLocalMulticast()", ip+".isLinkLocalUnicast()", "string("+ip+")", ip+" == "+ip)
	case 6:
		c := "cidr(" + celString(cidrString(r)) + ")"
		return pick(r, "isCIDR("+celString(cidrString(r))+")", c+".containsIP("+celString(ipString(r))+")", c+".containsIP(ip("+celString(ipString(r))+"))",
			c+".containsCIDR("+celString(cidrString(r))+")", c+".containsCIDR("+c+")", "string("+c+".masked())", c+".prefixLength()", "string("+c+".ip())", c+" == "+c)
	case 7:
		u := "url(" + celString(urlString(r)) + ")"
		return pick(r, "isURL("+celString(urlString(r))+")", u+".getScheme()", u+".getHost()", u+".getHostname()", u+".getPort()", u+".getEscapedPath()", u+".getQuery()", u+" == "+u)
	case 8:
		return celString(textString(r)) + pick(r, ".find(", ".findAll(") + celString(regexString(r)) + ")"
	case 9:
		return celString(textString(r)) + ".findAll(" + celString(regexString(r)) + ", " + strconv.Itoa(r.IntN(5)-1) + ")"
	case 10:
		l := listLiteral(r)
		return l + pick(r, ".isSorted()", ".sum()", ".min()", ".max()", ".indexOf("+listElem(r)+")", ".lastIndexOf("+listElem(r)+")", ".includes("+listElem(r)+")")
	case 11:
		f := pick(r, formatNames...)
		return pick(r, "format."+f+"().validate("+celString(textString(r))+")", "format.named("+celString(pick(r, formatNames...))+").hasValue()", "format.named("+celString(f)+").value().validate("+celString(textString(r))+")", "format."+f+"() == format.named("+celString(pick(r, formatNames...))+").value()")
	case 12:
		s := celString(textString(r))
		return s + pick(r, ".lowerAscii()", ".upperAscii()", ".trim()", ".replace('a', 'xy')", ".split('.')", ".substring(1)", ".indexOf('b')", ".reverse()", ".charAt(0)") + pick(r, "", "")
	case 13:
		return pick(r, "['a','b'].join('-')", "[1,2,3].map(x, x * 2).sum()", "sets.contains([1,2],[2])", "sets.intersects([1],[2])", "[3,1,2].sort()", "lists.range(5).reverse()", "[1,[2,3]].flatten()", "[1,1,2].distinct()", "[1,2].all(i, v, i < v)", "{'a':1}.transformMap(k, v, v + 1)", "optional.of(1).orValue(2)", "[1,2,3].sortBy(x, -x)", "math.greatest(1,2)", "base64.encode(b'x')", "strings.quote('a')", "'%d'.format([1])", "[1,2].exists_one(x, x > 1)")
	case 14:
		if r.IntN(256) != 0 || os.Getenv("WRITEPATH_LONG") == "" {
			return pick(r, "isQuantity('1e2000000000')", "quantity('1e2000000000').isInteger()", "isSemver('"+strings.Repeat("1", 40)+".0.0')")
		}
		// cost bombs (slow in both: each runs to the per-call limit)
		n := 1 + r.IntN(30)
		return pick(r, fmt.Sprintf("lists.range(%d).all(i, lists.range(%d).all(j, lists.range(%d).all(k, true)))", n*10, n*10, n*10),
			fmt.Sprintf("'%s'.matches('(a+)+b')", strings.Repeat("a", n)),
			fmt.Sprintf("lists.range(%d).map(x, 'abcdefghij'.repeat(x)).size() > 0", n*30))
	}
	return pick(r, "1 + 1 == 2", "'abc'.startsWith('a')", "duration('1h') > duration('1m')", "timestamp('2020-01-01T00:00:00Z').getFullYear()", "int('12')", "double(1) / 0.0 > 0.0", "1 / 0 == 0", "[1,2,3][5] == 1", "{'a':1}['b'] == 1", "dyn(1) == 1.0", "1 == 1u", "1 < 1.5")
}
