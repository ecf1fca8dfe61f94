package schema

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The string formats the apiserver validates in custom resources (apiextensions'
// supportedVersionedFormats at the 1.37 compatibility version), with kube-openapi's strfmt
// validators. Format names are compared with dashes removed, as go-openapi does.

var supportedFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true,
	"cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true, "uuid5": true,
	"isbn": true, "isbn10": true, "isbn13": true, "creditcard": true, "ssn": true, "hexcolor": true,
	"rgbcolor": true, "byte": true, "password": true, "date": true, "duration": true,
	"datetime": true, "k8sshortname": true, "k8slongname": true,
}

func normalizeFormat(f string) string { return strings.ReplaceAll(f, "-", "") }

// effectiveFormat is the format kept by StripUnsupportedFormatsPostProcessor for a schema node
// with the given OpenAPI type list.
func effectiveFormat(format string, types []string) string {
	if format == "" {
		return ""
	}
	t := ""
	if len(types) == 1 {
		t = types[0]
	}
	switch t {
	case "", "string":
		if !supportedFormats[normalizeFormat(format)] {
			return ""
		}
		return format
	case "integer":
		if format != "int32" && format != "int64" {
			return ""
		}
		return format
	case "number":
		if format != "float" && format != "double" {
			return ""
		}
		return format
	}
	return ""
}

// knownFormat reports whether strfmt.Default knows the (normalised) format name.
func knownFormat(format string) bool {
	return format != "" && formatValidators[normalizeFormat(format)] != nil
}

var formatValidators = map[string]func(string) bool{
	"uri":          func(s string) bool { _, err := url.ParseRequestURI(s); return err == nil },
	"email":        func(s string) bool { a, err := mail.ParseAddress(s); return err == nil && a.Address != "" },
	"hostname":     isHostname,
	"ipv4":         func(s string) bool { return parseIPSloppy(s) != nil && strings.Contains(s, ".") },
	"ipv6":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr":         isCIDRSloppy,
	"mac":          func(s string) bool { _, err := net.ParseMAC(s); return err == nil },
	"uuid":         rxUUID.MatchString,
	"uuid3":        rxUUID3.MatchString,
	"uuid4":        rxUUID4.MatchString,
	"uuid5":        rxUUID5.MatchString,
	"isbn":         func(s string) bool { return isISBN(s, 10) || isISBN(s, 13) },
	"isbn10":       func(s string) bool { return isISBN(s, 10) },
	"isbn13":       func(s string) bool { return isISBN(s, 13) },
	"creditcard":   isCreditCard,
	"ssn":          func(s string) bool { return len(s) == 11 && rxSSN.MatchString(s) },
	"hexcolor":     rxHexcolor.MatchString,
	"rgbcolor":     rxRGBcolor.MatchString,
	"byte":         rxBase64.MatchString,
	"password":     func(string) bool { return true },
	"date":         isDate,
	"datetime":     isDateTime,
	"duration":     isDuration,
	"bsonobjectid": isBSONObjectID,
	"k8sshortname": func(s string) bool { return len(s) <= 63 && rxShortName.MatchString(s) },
	"k8slongname":  func(s string) bool { return len(s) <= 253 && rxLongName.MatchString(s) },
}

const shortNameFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"

var (
	rxHostname   = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	rxUUID       = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID3      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID4      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxUUID5      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxCreditCard = regexp.MustCompile("^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11})$")
	rxISBN10     = regexp.MustCompile("^(?:[0-9]{9}X|[0-9]{10})$")
	rxISBN13     = regexp.MustCompile("^(?:[0-9]{13})$")
	rxHexcolor   = regexp.MustCompile("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
	rxRGBcolor   = regexp.MustCompile("^rgb\\(\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*\\)$")
	rxBase64     = regexp.MustCompile("^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$")
	rxSSN        = regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxNotNumber  = regexp.MustCompile("[^0-9]+")
	rxWSMinus    = regexp.MustCompile(`[\s-]+`)
	rxDateTime   = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxDuration   = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	rxShortName  = regexp.MustCompile("^" + shortNameFmt + "$")
	rxLongName   = regexp.MustCompile("^" + shortNameFmt + "(\\." + shortNameFmt + ")*$")
)

func isHostname(s string) bool {
	if !rxHostname.MatchString(s) || len(s) > 255 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if len(p) > 63 {
			return false
		}
	}
	return true
}

func isCreditCard(s string) bool {
	sanitized := rxNotNumber.ReplaceAllString(s, "")
	if !rxCreditCard.MatchString(sanitized) {
		return false
	}
	var sum int64
	double := false
	for i := len(sanitized) - 1; i >= 0; i-- {
		n := int64(sanitized[i] - '0')
		if double {
			n *= 2
			if n >= 10 {
				sum += n%10 + 1
			} else {
				sum += n
			}
		} else {
			sum += n
		}
		double = !double
	}
	return sum%10 == 0
}

func isISBN(s string, version int) bool {
	sanitized := rxWSMinus.ReplaceAllString(s, "")
	var checksum int32
	switch version {
	case 10:
		if !rxISBN10.MatchString(sanitized) {
			return false
		}
		for i := int32(0); i < 9; i++ {
			checksum += (i + 1) * int32(sanitized[i]-'0')
		}
		if sanitized[9] == 'X' {
			checksum += 10 * 10
		} else {
			checksum += 10 * int32(sanitized[9]-'0')
		}
		return checksum%11 == 0
	case 13:
		if !rxISBN13.MatchString(sanitized) {
			return false
		}
		factor := []int32{1, 3}
		for i := 0; i < 12; i++ {
			checksum += factor[i%2] * int32(sanitized[i]-'0')
		}
		return int32(sanitized[12]-'0')-((10-(checksum%10))%10) == 0
	}
	return false
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	m := rxDateTime.FindStringSubmatch(parts[1])
	if len(m) == 0 {
		return false
	}
	return m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

var durationUnits = []struct {
	variants []string
	mult     time.Duration
}{
	{[]string{"ns", "nano"}, time.Nanosecond},
	{[]string{"us", "µs", "micro"}, time.Microsecond},
	{[]string{"ms", "milli"}, time.Millisecond},
	{[]string{"s", "sec"}, time.Second},
	{[]string{"m", "min"}, time.Minute},
	{[]string{"h", "hr", "hour"}, time.Hour},
	{[]string{"d", "day"}, 24 * time.Hour},
	{[]string{"w", "wk", "week"}, 7 * 24 * time.Hour},
}

func isDuration(s string) bool {
	_, err := ParseDuration(s)
	return err == nil
}

// ParseDuration is kube-openapi's strfmt.ParseDuration, what the duration format accepts (and
// IsDuration is its err == nil): Go's time.ParseDuration, or a sequence of "<integer> <unit>"
// with the units' long and short names ("3 days", "1h30min"), summed.
func ParseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	var dur time.Duration
	ok := false
	for _, m := range rxDuration.FindAllStringSubmatch(s, -1) {
		factor, err := strconv.Atoi(m[2])
		if err != nil {
			return 0, err
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, u := range durationUnits {
			last := len(u.variants) - 1
			for i, v := range u.variants {
				if (last == i && strings.HasPrefix(unit, v)) || strings.EqualFold(v, unit) {
					ok = true
					dur += time.Duration(factor) * u.mult
				}
			}
		}
	}
	if ok {
		return dur, nil
	}
	return 0, fmt.Errorf("unable to parse %s as duration", s)
}

func isBSONObjectID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// parseIPSloppy parses an IP address like k8s.io/utils/net.ParseIPSloppy: IPv4 fields may have
// leading zeros.
func parseIPSloppy(s string) net.IP {
	if strings.Contains(s, ":") {
		return net.ParseIP(s)
	}
	return parseIPv4Sloppy(s)
}

func parseIPv4Sloppy(s string) net.IP {
	var out [4]byte
	for i := 0; i < 4; i++ {
		if len(s) == 0 {
			return nil
		}
		if i > 0 {
			if s[0] != '.' {
				return nil
			}
			s = s[1:]
		}
		n, c, ok := dtoi(s)
		if !ok || n > 0xFF {
			return nil
		}
		s = s[c:]
		out[i] = byte(n)
	}
	if len(s) != 0 {
		return nil
	}
	return net.IPv4(out[0], out[1], out[2], out[3])
}

// dtoi is the decimal parser of Go's old net package (leading zeros allowed).
func dtoi(s string) (n int, i int, ok bool) {
	const big = 0xFFFFFF
	n = 0
	for i = 0; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n >= big {
			return big, i, false
		}
	}
	if i == 0 {
		return 0, 0, false
	}
	return n, i, true
}

func isCIDRSloppy(s string) bool {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return false
	}
	addr, mask := s[:i], s[i+1:]
	iplen := 4
	ip := parseIPv4Sloppy(addr)
	if ip == nil {
		iplen = 16
		ip = net.ParseIP(addr)
		if ip == nil || !strings.Contains(addr, ":") {
			return false
		}
	}
	n, c, ok := dtoi(mask)
	return ok && c == len(mask) && n >= 0 && n <= 8*iplen
}
