package schema

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// quantity is a resource.Quantity as the apiserver holds it between decoding and encoding: its
// exact value (unscaled × 10^exp), its format, and the string it was parsed from when
// apimachinery keeps that string (ParseQuantity caches it when the input is already in
// canonical form, and MarshalJSON then writes it back unchanged: "+1" stays "+1").
type quantity struct {
	unscaled *big.Int
	exp      int32
	format   qtyFormat
	cached   string
	// small is true while apimachinery holds the value as an int64Amount (scale ≥ -9 and
	// fitting an int64); RoundUp of such a value keeps the cached string when no rounding is
	// needed, a big-decimal value always drops it.
	small bool
}

type qtyFormat int

const (
	qtyDecimalSI qtyFormat = iota
	qtyBinarySI
	qtyDecimalExponent
)

var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

var (
	bigOne     = big.NewInt(1)
	bigTen     = big.NewInt(10)
	big1024    = big.NewInt(1024)
	bigMaxInt  = new(big.Int).SetUint64(1<<63 - 1)
	decSuffix  = map[int32]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
	binSuffix  = map[int32]string{0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}
	decByName  = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binByName  = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	pow10Cache = map[int32]*big.Int{}
)

func pow10(n int32) *big.Int {
	if n < 64 {
		if p, ok := pow10Cache[n]; ok {
			return p
		}
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func init() {
	for i := int32(0); i < 64; i++ {
		pow10Cache[i] = new(big.Int).Exp(bigTen, big.NewInt(int64(i)), nil)
	}
}

// parseQuantity is resource.ParseQuantity: the same grammar, errors, rounding (values more
// precise than 1n are rounded up, away from zero) and cap (binary-SI values above 2^63-1).
func parseQuantity(str string) (*quantity, error) {
	if str == "" {
		return nil, errQuantityFormat
	}
	if str == "0" {
		return &quantity{unscaled: new(big.Int), cached: str, small: true}, nil
	}
	positive, value, num, denom, suf, err := splitQuantityString(str)
	if err != nil {
		return nil, err
	}
	var base, exponent int32
	var format qtyFormat
	if e, ok := decByName[suf]; ok {
		base, exponent, format = 10, e, qtyDecimalSI
	} else if e, ok := binByName[suf]; ok {
		base, exponent, format = 2, e, qtyBinarySI
	} else if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		p, perr := strconv.ParseInt(suf[1:], 10, 64)
		if perr != nil {
			return nil, errQuantitySuffix
		}
		base, exponent, format = 10, int32(p), qtyDecimalExponent
	} else {
		return nil, errQuantitySuffix
	}

	// The int64 fast path of ParseQuantity.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	switch format {
	case qtyDecimalSI, qtyDecimalExponent:
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	case qtyBinarySI:
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			shifted := num + denom
			v, err := strconv.ParseInt(shifted, 10, 64)
			if err != nil {
				return nil, errQuantityNumeric
			}
			if r, ok := mulInt64(v, mantissa); ok {
				if !positive {
					r = -r
				}
				q := &quantity{unscaled: big.NewInt(r), exp: scale, format: format, small: true}
				switch format {
				case qtyBinarySI:
					if exponent%10 == 0 && v&0x07 != 0 {
						q.cached = str
					}
				default:
					if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
						q.cached = str
					}
				}
				return q, nil
			}
		}
	}

	// The big-decimal path.
	unscaled, dscale, ok := scanDecimal(value)
	if !ok {
		return nil, errQuantityNumeric
	}
	if base == 10 {
		dscale -= exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	neg := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	if dscale > 9 {
		unscaled, dscale = roundUpDec(unscaled, dscale, 9)
	}
	if format == qtyBinarySI && cmpDec(unscaled, dscale, bigMaxInt, 0) > 0 {
		unscaled, dscale = new(big.Int).Set(bigMaxInt), 0
	}
	if format == qtyBinarySI && unscaled.Sign() > 0 && cmpDec(unscaled, dscale, bigOne, 0) < 0 {
		format = qtyDecimalSI
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	return &quantity{unscaled: unscaled, exp: -dscale, format: format}, nil
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == -1<<63) || (b == -1 && a == -1<<63) {
		return 0, false
	}
	return c, true
}

// splitQuantityString is apimachinery's parseQuantityString.
func splitQuantityString(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	for i := pos; ; i++ {
		if i >= end {
			num, value = "0", "0"
			return
		}
		if str[i] != '0' {
			break
		}
		pos++
	}
	for i := pos; ; i++ {
		if i >= end {
			num, value = str[pos:end], str[0:end]
			return
		}
		if str[i] < '0' || str[i] > '9' {
			num = str[pos:i]
			pos = i
			break
		}
	}
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		for i := pos; ; i++ {
			if i >= end {
				denom, value = str[pos:end], str[0:end]
				return
			}
			if str[i] < '0' || str[i] > '9' {
				denom = str[pos:i]
				pos = i
				break
			}
		}
	}
	value = str[0:pos]
	start := pos
	for i := pos; ; i++ {
		if i >= end {
			suffix = str[start:end]
			return
		}
		if !strings.ContainsRune("eEinumkKMGTP", rune(str[i])) {
			pos = i
			break
		}
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for i := pos; ; i++ {
		if i >= end {
			suffix = str[start:end]
			return
		}
		if str[i] < '0' || str[i] > '9' {
			break
		}
	}
	err = errQuantityFormat
	return
}

// scanDecimal parses "[+-]digits[.digits]" as inf.Dec's SetString does.
func scanDecimal(s string) (*big.Int, int32, bool) {
	digits := make([]byte, 0, len(s))
	dp, seen := -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+' || c == '-':
			if len(digits) > 0 || dp >= 0 {
				return nil, 0, false
			}
		case c == '.':
			if dp >= 0 {
				return nil, 0, false
			}
			dp = len(digits)
			continue
		case c >= '0' && c <= '9':
			seen = true
		default:
			return nil, 0, false
		}
		digits = append(digits, c)
	}
	if !seen {
		return nil, 0, false
	}
	scale := int32(0)
	if dp >= 0 {
		scale = int32(len(digits) - dp)
	}
	u, ok := new(big.Int).SetString(string(digits), 10)
	return u, scale, ok
}

// roundUpDec rounds the non-negative u×10^-s to scale t (t < s), away from zero.
func roundUpDec(u *big.Int, s, t int32) (*big.Int, int32) {
	q, r := new(big.Int).QuoRem(u, pow10(s-t), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, bigOne)
	}
	return q, t
}

// cmpDec compares a×10^-as with b×10^-bs.
func cmpDec(a *big.Int, as int32, b *big.Int, bs int32) int {
	switch {
	case as == bs:
		return a.Cmp(b)
	case as < bs:
		return new(big.Int).Mul(a, pow10(bs-as)).Cmp(b)
	default:
		return a.Cmp(new(big.Int).Mul(b, pow10(as-bs)))
	}
}

// roundUpMilli is Quantity.RoundUp(resource.Milli), what SetDefaults_ResourceList does to every
// value: away from zero to a multiple of 1m; the cached string is dropped when the value was
// held as a big decimal or needed rounding.
func (q *quantity) roundUpMilli() *quantity {
	out := *q
	if q.small && q.exp >= -3 {
		return &out
	}
	out.cached = ""
	if q.exp >= -3 {
		return &out
	}
	neg := q.unscaled.Sign() < 0
	u, _ := roundUpDec(new(big.Int).Abs(q.unscaled), -q.exp, 3)
	if neg {
		u.Neg(u)
	}
	out.unscaled, out.exp = u, -3
	return &out
}

// String is the quantity as MarshalJSON writes it: the cached string, or CanonicalizeBytes.
func (q *quantity) String() string {
	if q.cached != "" {
		return q.cached
	}
	if q.unscaled.Sign() == 0 {
		return "0"
	}
	format := q.format
	if format == qtyBinarySI {
		// |q| < 1024 and values with a fraction are written in decimal SI.
		abs := new(big.Int).Abs(q.unscaled)
		if cmpDec(abs, -q.exp, big1024, 0) < 0 {
			format = qtyDecimalSI
		} else if q.exp < 0 && new(big.Int).Rem(abs, pow10(-q.exp)).Sign() != 0 {
			format = qtyDecimalSI
		}
	}
	if format == qtyBinarySI {
		v := new(big.Int).Set(q.unscaled)
		if q.exp > 0 {
			v.Mul(v, pow10(q.exp))
		} else if q.exp < 0 {
			v.Quo(v, pow10(-q.exp))
		}
		e := int32(0)
		r := new(big.Int)
		for {
			d, m := new(big.Int).QuoRem(v, big1024, r)
			if m.Sign() != 0 || d.Sign() == 0 {
				break
			}
			v, e = d, e+1
		}
		return v.String() + binSuffix[e*10]
	}
	// Decimal: strip factors of ten into the exponent, then make the exponent a multiple of 3.
	v := new(big.Int).Set(q.unscaled)
	e := q.exp
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
	if format == qtyDecimalExponent {
		if e == 0 {
			return v.String()
		}
		return v.String() + "e" + strconv.Itoa(int(e))
	}
	return v.String() + decSuffix[e]
}
