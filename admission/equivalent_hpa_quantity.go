package admission

import (
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// hpaQuantity is a resource.Quantity as the HorizontalPodAutoscaler
// conversion sees it: decoded from JSON by UnmarshalJSON (ParseQuantity of the
// bytes between the quotes, with its rounding and errors) and encoded by
// MarshalJSON (the string it was parsed from when ParseQuantity kept it,
// otherwise the canonical form). The value is unscaled × 10^exp; a nil
// unscaled is zero.
type hpaQuantity struct {
	unscaled *big.Int
	exp      int32
	format   hpaQtyFormat
	// cached is the string ParseQuantity keeps when its input is already in
	// canonical form (for the int64 fast path only); MarshalJSON writes it back
	// as is ("+1" stays "+1").
	cached string
}

type hpaQtyFormat int

const (
	hpaDecimalSI hpaQtyFormat = iota
	hpaBinarySI
	hpaDecimalExponent
)

// The apiserver's parse errors (resource.ErrFormatWrong, ErrNumeric,
// ErrSuffix).
var (
	errHPAQtyFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errHPAQtyNumeric = errors.New("unable to parse numeric part of quantity")
	errHPAQtySuffix  = errors.New("unable to parse quantity's suffix")
)

var (
	hpaBig1     = big.NewInt(1)
	hpaBig10    = big.NewInt(10)
	hpaBig1024  = big.NewInt(1024)
	hpaMaxInt64 = new(big.Int).SetUint64(1<<63 - 1)
	hpaDecExp   = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	hpaBinExp   = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	hpaDecSuf   = map[int32]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
	hpaBinSuf   = map[int32]string{0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
)

func hpaPow10(n int32) *big.Int { return new(big.Int).Exp(hpaBig10, big.NewInt(int64(n)), nil) }

// UnmarshalJSON is Quantity.UnmarshalJSON: null zeroes the value but keeps
// the format and the kept string (as apimachinery does), a quoted value is
// parsed without unescaping, any other literal is parsed as written.
func (q *hpaQuantity) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		q.unscaled, q.exp = nil, 0
		return nil
	}
	if l := len(b); l >= 2 && b[0] == '"' && b[l-1] == '"' {
		b = b[1 : l-1]
	}
	p, err := parseHPAQuantity(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	*q = p
	return nil
}

// MarshalJSON is Quantity.MarshalJSON.
func (q hpaQuantity) MarshalJSON() ([]byte, error) {
	return json.Marshal(q.String())
}

func (q hpaQuantity) isZero() bool { return q.unscaled == nil || q.unscaled.Sign() == 0 }

// parseHPAQuantity is resource.ParseQuantity.
func parseHPAQuantity(str string) (hpaQuantity, error) {
	if str == "" {
		return hpaQuantity{}, errHPAQtyFormat
	}
	if str == "0" {
		return hpaQuantity{cached: str}, nil
	}
	positive, value, num, denom, suf, err := splitHPAQuantity(str)
	if err != nil {
		return hpaQuantity{}, err
	}
	var base, exponent int32
	var format hpaQtyFormat
	if e, ok := hpaDecExp[suf]; ok {
		base, exponent, format = 10, e, hpaDecimalSI
	} else if e, ok := hpaBinExp[suf]; ok {
		base, exponent, format = 2, e, hpaBinarySI
	} else if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		p, perr := strconv.ParseInt(suf[1:], 10, 64)
		if perr != nil {
			return hpaQuantity{}, errHPAQtySuffix
		}
		base, exponent, format = 10, int32(p), hpaDecimalExponent
	} else {
		return hpaQuantity{}, errHPAQtySuffix
	}

	// The int64 fast path, which keeps str when it is canonical.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	if format == hpaBinarySI {
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	} else {
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			shifted := num + denom
			v, err := strconv.ParseInt(shifted, 10, 64)
			if err != nil {
				return hpaQuantity{}, errHPAQtyNumeric
			}
			if r, ok := hpaMulInt64(v, mantissa); ok {
				if !positive {
					r = -r
				}
				q := hpaQuantity{unscaled: big.NewInt(r), exp: scale, format: format}
				if format == hpaBinarySI {
					if exponent%10 == 0 && v&0x07 != 0 {
						q.cached = str
					}
				} else if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
					q.cached = str
				}
				return q, nil
			}
		}
	}

	// The inf.Dec path.
	unscaled, dscale, ok := scanHPADecimal(value)
	if !ok {
		return hpaQuantity{}, errHPAQtyNumeric
	}
	if base == 10 {
		dscale -= exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	neg := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	if dscale > 9 && unscaled.Sign() != 0 {
		// Round up (away from zero) to 1n.
		d, m := new(big.Int).QuoRem(unscaled, hpaPow10(dscale-9), new(big.Int))
		if m.Sign() != 0 {
			d.Add(d, hpaBig1)
		}
		unscaled, dscale = d, 9
	}
	if format == hpaBinarySI && hpaCmp(unscaled, -dscale, hpaMaxInt64, 0) > 0 {
		unscaled, dscale = new(big.Int).Set(hpaMaxInt64), 0
	}
	if format == hpaBinarySI && unscaled.Sign() > 0 && hpaCmp(unscaled, -dscale, hpaBig1, 0) < 0 {
		format = hpaDecimalSI
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	return hpaQuantity{unscaled: unscaled, exp: -dscale, format: format}, nil
}

func hpaMulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == -1<<63) || (b == -1 && a == -1<<63) {
		return 0, false
	}
	return c, true
}

// splitHPAQuantity is apimachinery's parseQuantityString: sign, the numeric
// part (num digits without leading zeros, denom the fraction digits), and the
// suffix.
func splitHPAQuantity(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	// Leading zeros.
	for ; ; pos++ {
		if pos >= end {
			return positive, "0", "0", "", "", nil
		}
		if str[pos] != '0' {
			break
		}
	}
	i := pos
	for ; i < end && str[i] >= '0' && str[i] <= '9'; i++ {
	}
	if i >= end {
		return positive, str, str[pos:], "", "", nil
	}
	num, pos = str[pos:i], i
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		i = pos
		for ; i < end && str[i] >= '0' && str[i] <= '9'; i++ {
		}
		if i >= end {
			return positive, str, num, str[pos:], "", nil
		}
		denom, pos = str[pos:i], i
	}
	value = str[:pos]
	start := pos
	for ; pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0; pos++ {
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for ; pos < end && str[pos] >= '0' && str[pos] <= '9'; pos++ {
	}
	if pos < end {
		return positive, value, num, denom, "", errHPAQtyFormat
	}
	return positive, value, num, denom, str[start:], nil
}

// scanHPADecimal parses "[+-]digits[.digits]" as inf.Dec's SetString does:
// the unscaled value and the number of fraction digits.
func scanHPADecimal(s string) (*big.Int, int32, bool) {
	digits := make([]byte, 0, len(s))
	dp, seen := -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+' || c == '-':
			if i != 0 {
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

// hpaCmp compares a × 10^ae with b × 10^be.
func hpaCmp(a *big.Int, ae int32, b *big.Int, be int32) int {
	switch {
	case ae == be:
		return a.Cmp(b)
	case ae > be:
		return new(big.Int).Mul(a, hpaPow10(ae-be)).Cmp(b)
	default:
		return a.Cmp(new(big.Int).Mul(b, hpaPow10(be-ae)))
	}
}

// String is what MarshalJSON writes: the kept string, or
// Quantity.CanonicalizeBytes (a binary-SI value below 1024 in magnitude or
// with a fraction is written in decimal SI; a decimal exponent outside the SI
// suffixes has no suffix, as apimachinery's suffixer finds none).
func (q hpaQuantity) String() string {
	if q.cached != "" {
		return q.cached
	}
	if q.isZero() {
		return "0"
	}
	format := q.format
	abs := new(big.Int).Abs(q.unscaled)
	if format == hpaBinarySI {
		if hpaCmp(abs, q.exp, hpaBig1024, 0) < 0 {
			format = hpaDecimalSI
		} else if q.exp < 0 && new(big.Int).Rem(abs, hpaPow10(-q.exp)).Sign() != 0 {
			format = hpaDecimalSI
		}
	}
	if format == hpaBinarySI {
		v := new(big.Int).Set(q.unscaled)
		if q.exp > 0 {
			v.Mul(v, hpaPow10(q.exp))
		} else if q.exp < 0 {
			v.Quo(v, hpaPow10(-q.exp))
		}
		neg := v.Sign() < 0
		v.Abs(v)
		e := int32(0)
		for v.Cmp(hpaBig1024) >= 0 {
			d, m := new(big.Int).QuoRem(v, hpaBig1024, new(big.Int))
			if m.Sign() != 0 {
				break
			}
			v, e = d, e+1
		}
		if neg {
			v.Neg(v)
		}
		return v.String() + hpaBinSuf[e]
	}
	v := new(big.Int).Set(q.unscaled)
	e := q.exp
	for {
		d, m := new(big.Int).QuoRem(v, hpaBig10, new(big.Int))
		if m.Sign() != 0 {
			break
		}
		v, e = d, e+1
	}
	for e%3 != 0 {
		v.Mul(v, hpaBig10)
		e--
	}
	if format == hpaDecimalExponent {
		if e == 0 {
			return v.String()
		}
		return v.String() + "e" + strconv.Itoa(int(e))
	}
	return v.String() + hpaDecSuf[e]
}

// hpaTime is a metav1.Time in JSON: null is the zero time, a string is parsed
// as RFC 3339 (any other JSON value is an error), and it is written in UTC to
// the second (the zero time as null).
type hpaTime struct{ t time.Time }

func (t *hpaTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.t = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.t = p.Local()
	return nil
}

func (t hpaTime) MarshalJSON() ([]byte, error) {
	if t.t.IsZero() {
		return []byte("null"), nil
	}
	b := []byte{'"'}
	b = t.t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}
