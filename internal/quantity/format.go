package quantity

import (
	"math/big"
	"strconv"
	"strings"
)

// String is the quantity as resource.Quantity's String and MarshalJSON write it: the cached
// string when there is one, the canonical form otherwise.
func (q Quantity) String() string {
	if q.s != "" {
		return q.s
	}
	return q.Canonical()
}

// Cached is the string apimachinery keeps from parsing ("" when it keeps none).
func (q Quantity) Cached() string { return q.s }

func decSuffix(e int32) string {
	switch e {
	case -9:
		return "n"
	case -6:
		return "u"
	case -3:
		return "m"
	case 3:
		return "k"
	case 6:
		return "M"
	case 9:
		return "G"
	case 12:
		return "T"
	case 15:
		return "P"
	case 18:
		return "E"
	}
	// apimachinery writes no suffix for an exponent it has none for.
	return ""
}

var binSuffixes = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// binSuffix is the suffix of 1024^n ("" beyond Ei, as apimachinery has none).
func binSuffix(n int) string {
	if n < len(binSuffixes) {
		return binSuffixes[n]
	}
	return ""
}

// Canonical is resource.Quantity.CanonicalizeBytes: the shortest exact form in q's format,
// mantissa and a suffix whose exponent is a multiple of 3 (decimal) or of 10 (binary); a
// binary-SI value below 1024 in magnitude or with a fraction is written in decimal SI.
func (q Quantity) Canonical() string {
	if q.IsZero() {
		return "0"
	}
	if q.dec == nil {
		if s, ok := q.canonicalInt64(); ok {
			return s
		}
	}
	u, s := q.asDec()
	format := q.format
	if format == BinarySI {
		abs := new(big.Int).Abs(u)
		if cmpDec(abs, s, big1024, 0) < 0 {
			format = DecimalSI
		} else if s > 0 && new(big.Int).Rem(abs, pow10(s)).Sign() != 0 {
			format = DecimalSI
		}
	}
	if format == BinarySI {
		v := new(big.Int).Set(u)
		if s < 0 {
			v.Mul(v, pow10(-s))
		} else if s > 0 {
			v.Quo(v, pow10(s))
		}
		e := 0
		r := new(big.Int)
		for {
			d, m := new(big.Int).QuoRem(v, big1024, r)
			if m.Sign() != 0 || d.Sign() == 0 {
				break
			}
			v, e = d, e+1
		}
		return v.String() + binSuffix(e)
	}
	// Decimal: strip factors of ten into the exponent, then make the exponent a multiple of 3.
	v := new(big.Int).Set(u)
	e := -s
	r := new(big.Int)
	for {
		d, m := new(big.Int).QuoRem(v, bigTen, r)
		if m.Sign() != 0 {
			break
		}
		v, e = d, e+1
	}
	for e%3 != 0 {
		v.Mul(v, bigTen)
		e--
	}
	return withSuffix(v.String(), e, format)
}

func withSuffix(mantissa string, e int32, format Format) string {
	if format == DecimalExponent {
		if e == 0 {
			return mantissa
		}
		return mantissa + "e" + strconv.Itoa(int(e))
	}
	return mantissa + decSuffix(e)
}

// canonicalInt64 is Canonical for the int64 form without big integers; ok is false when an
// intermediate value would not fit an int64.
func (q Quantity) canonicalInt64() (string, bool) {
	v, e := q.value, q.scale
	format := q.format
	if format == BinarySI {
		if q.Cmp(Quantity{value: -1024}) > 0 && q.Cmp(Quantity{value: 1024}) < 0 {
			format = DecimalSI
		} else {
			var iv int64
			switch {
			case e >= 0:
				var ok bool
				if iv, ok = scaleUpInt64(v, e); !ok {
					return "", false
				}
			case e < -18:
				// |v| < 10^19: a nonzero v has a fraction at this scale.
				format = DecimalSI
			default:
				p := int64(1)
				for i := int32(0); i < -e; i++ {
					p *= 10
				}
				if v%p != 0 {
					format = DecimalSI
				} else {
					iv = v / p
				}
			}
			if format == BinarySI {
				n := 0
				for iv%1024 == 0 && iv/1024 != 0 {
					iv /= 1024
					n++
				}
				return strconv.FormatInt(iv, 10) + binSuffix(n), true
			}
		}
	}
	for v%10 == 0 {
		v /= 10
		e++
	}
	for e%3 != 0 {
		var ok bool
		if v, ok = mulInt64(v, 10); !ok {
			return "", false
		}
		e--
	}
	return withSuffix(strconv.FormatInt(v, 10), e, format), true
}

// Decimal is q's exact value as a plain decimal ("1.5", "-0.001", "1024"); values whose scale
// is beyond ±1000 are written as unscaled digits and an exponent ("1e2000").
func (q Quantity) Decimal() string {
	u, s := q.asDec()
	if s < -1000 || s > 1000 {
		return u.String() + "e" + strconv.Itoa(int(-s))
	}
	if s <= 0 {
		return new(big.Int).Mul(u, pow10(-s)).String()
	}
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	for int32(len(digits)) <= s {
		digits = "0" + digits
	}
	out := digits[:int32(len(digits))-s] + "." + digits[int32(len(digits))-s:]
	out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	if neg {
		out = "-" + out
	}
	return out
}
