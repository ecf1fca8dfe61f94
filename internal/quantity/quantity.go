package quantity

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format is how a quantity was written, which decides its canonical string (resource.Format).
type Format uint8

// The three formats of resource.Quantity.
const (
	DecimalSI       Format = iota // "1k", "500m"
	BinarySI                      // "1Ki", "5Gi"
	DecimalExponent               // "1e3", "5E-3"
)

// String is the name apimachinery gives the format.
func (f Format) String() string {
	switch f {
	case BinarySI:
		return "BinarySI"
	case DecimalExponent:
		return "DecimalExponent"
	}
	return "DecimalSI"
}

// The parse errors of resource.ParseQuantity (ErrFormatWrong, ErrNumeric, ErrSuffix), word for
// word.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
)

// Quantity is a resource.Quantity with apimachinery's representation: a scaled int64
// (value × 10^scale) while the parsed value fits one, a big decimal (dec × 10^-dscale)
// otherwise; its Format; and the string it was parsed from when apimachinery keeps that string
// (the input was already canonical). The zero Quantity is 0 in DecimalSI. A Quantity is
// immutable: methods return new values and never change a shared *big.Int.
type Quantity struct {
	dec    *big.Int // nil: int64 form
	dscale int32    // decimal form: value = dec × 10^-dscale
	value  int64    // int64 form: value × 10^scale
	scale  int32
	format Format
	s      string // the cached string ("" when none)
}

var (
	bigOne      = big.NewInt(1)
	bigTen      = big.NewInt(10)
	big1024     = big.NewInt(1024)
	maxInt64Dec = big.NewInt(math.MaxInt64)
	pow10Small  [64]*big.Int
)

func init() {
	p := big.NewInt(1)
	for i := range pow10Small {
		pow10Small[i] = new(big.Int).Set(p)
		p.Mul(p, bigTen)
	}
}

// pow10 returns 10^n (n >= 0); the result must not be modified.
func pow10(n int32) *big.Int {
	if n >= 0 && int(n) < len(pow10Small) {
		return pow10Small[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// Parse reads s as resource.ParseQuantity does: the same grammar, errors, representation
// (int64 form when the number fits the fast path), rounding (values more precise than 1n are
// rounded up, away from zero), cap (binary-SI values beyond 2^63-1 become 2^63-1) and cached
// string.
func Parse(str string) (Quantity, error) {
	if len(str) == 0 {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{s: str}, nil
	}
	positive, value, num, denom, suf, err := split(str)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return Quantity{}, ErrSuffix
	}

	// The int64 fast path.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	switch format {
	case DecimalSI, DecimalExponent:
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	case BinarySI:
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
				return Quantity{}, ErrNumeric
			}
			if r, ok := mulInt64(v, mantissa); ok {
				if !positive {
					r = -r
				}
				q := Quantity{value: r, scale: scale, format: format}
				// apimachinery keeps the input when it is already canonical.
				switch format {
				case BinarySI:
					if exponent%10 == 0 && v&0x07 != 0 {
						q.s = str
					}
				default:
					if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
						q.s = str
					}
				}
				return q, nil
			}
		}
	}

	// The big-decimal path.
	unscaled, dscale, ok := scanDecimal(value)
	if !ok {
		return Quantity{}, ErrNumeric
	}
	if base == 10 {
		dscale -= exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	neg := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	// apimachinery rounds every non-zero value to scale 9 (inf.Dec.Round), which also rescales
	// a coarser value; a value so coarse that rescaling would materialise more than
	// MaxScaleSpread digits keeps its own scale instead (same value, and it stays usable).
	if (unscaled.Sign() != 0 || !unscaled.IsInt64()) && int64(9)-int64(dscale) <= MaxScaleSpread {
		unscaled, dscale = roundUpToScale(unscaled, dscale, 9)
	}
	if format == BinarySI && cmpDec(unscaled, dscale, maxInt64Dec, 0) > 0 {
		unscaled, dscale = new(big.Int).Set(maxInt64Dec), 0
	}
	if format == BinarySI && unscaled.Sign() > 0 && cmpDec(unscaled, dscale, bigOne, 0) < 0 {
		format = DecimalSI
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	return Quantity{dec: unscaled, dscale: dscale, format: format}, nil
}

// MustParse is Parse for strings known to be quantities; it panics on an error.
func MustParse(s string) Quantity {
	q, err := Parse(s)
	if err != nil {
		panic("quantity.MustParse(" + strconv.Quote(s) + "): " + err.Error())
	}
	return q
}

// FromInt64 is resource.NewQuantity(v, format).
func FromInt64(v int64, format Format) Quantity { return Quantity{value: v, format: format} }

// split is apimachinery's parseQuantityString: the sign, the number as written (value), its
// integer digits without leading zeros (num, "0" when none), its fraction digits (denom) and
// the suffix.
func split(str string) (positive bool, value, num, denom, suffix string, err error) {
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
		if !isSuffixByte(str[i]) {
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
	err = ErrFormatWrong
	return
}

func isSuffixByte(c byte) bool {
	switch c {
	case 'e', 'E', 'i', 'n', 'u', 'm', 'k', 'K', 'M', 'G', 'T', 'P':
		return true
	}
	return false
}

// interpretSuffix maps a suffix to its base, exponent and format.
func interpretSuffix(s string) (base, exponent int32, format Format, ok bool) {
	switch s {
	case "":
		return 10, 0, DecimalSI, true
	case "n":
		return 10, -9, DecimalSI, true
	case "u":
		return 10, -6, DecimalSI, true
	case "m":
		return 10, -3, DecimalSI, true
	case "k":
		return 10, 3, DecimalSI, true
	case "M":
		return 10, 6, DecimalSI, true
	case "G":
		return 10, 9, DecimalSI, true
	case "T":
		return 10, 12, DecimalSI, true
	case "P":
		return 10, 15, DecimalSI, true
	case "E":
		return 10, 18, DecimalSI, true
	case "Ki":
		return 2, 10, BinarySI, true
	case "Mi":
		return 2, 20, BinarySI, true
	case "Gi":
		return 2, 30, BinarySI, true
	case "Ti":
		return 2, 40, BinarySI, true
	case "Pi":
		return 2, 50, BinarySI, true
	case "Ei":
		return 2, 60, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'E' || s[0] == 'e') {
		parsed, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, DecimalExponent, false
		}
		// apimachinery truncates the exponent to int32.
		return 10, int32(parsed), DecimalExponent, true
	}
	return 0, 0, DecimalExponent, false
}

// scanDecimal parses "[+-]digits[.digits]" as inf.Dec's SetString does.
func scanDecimal(s string) (*big.Int, int32, bool) {
	digits := make([]byte, 0, len(s))
	dp, seen := -1, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '+' || ch == '-':
			if len(digits) > 0 || dp >= 0 {
				return nil, 0, false
			}
		case ch == '.':
			if dp >= 0 {
				return nil, 0, false
			}
			dp = len(digits)
			continue
		case ch >= '0' && ch <= '9':
			seen = true
		default:
			return nil, 0, false
		}
		digits = append(digits, ch)
	}
	if !seen {
		return nil, 0, false
	}
	scale := int32(0)
	if dp >= 0 {
		scale = int32(len(digits) - dp)
	}
	u, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return nil, 0, false
	}
	return u, scale, true
}

// Format is the quantity's format.
func (q Quantity) Format() Format { return q.format }

// IsInt64Form reports whether q is held as a scaled int64 (apimachinery's int64Amount) rather
// than a big decimal (infDecAmount).
func (q Quantity) IsInt64Form() bool { return q.dec == nil }

// Sign returns -1, 0 or 1.
func (q Quantity) Sign() int {
	if q.dec != nil {
		return q.dec.Sign()
	}
	switch {
	case q.value > 0:
		return 1
	case q.value < 0:
		return -1
	}
	return 0
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.Sign() == 0 }

// asDec returns the decimal form (unscaled, scale); the result must not be modified.
func (q Quantity) asDec() (*big.Int, int32) {
	if q.dec != nil {
		return q.dec, q.dscale
	}
	return big.NewInt(q.value), -q.scale
}

// AsInt64 is resource.Quantity.AsInt64: only the int64 form with a non-negative scale whose
// value fits converts.
func (q Quantity) AsInt64() (int64, bool) {
	if q.dec != nil {
		return 0, false
	}
	if q.scale == 0 {
		return q.value, true
	}
	if q.scale < 0 {
		return 0, false
	}
	return scaleUpInt64(q.value, q.scale)
}

// AsApproximateFloat64 is resource.Quantity.AsApproximateFloat64 (its result depends on the
// representation: the unscaled value times a power of ten).
func (q Quantity) AsApproximateFloat64() float64 {
	var base float64
	var exponent int
	if q.dec != nil {
		base, _ = new(big.Float).SetInt(q.dec).Float64()
		exponent = int(-q.dscale)
	} else {
		base = float64(q.value)
		exponent = int(q.scale)
	}
	if exponent == 0 {
		return base
	}
	return base * math.Pow10(exponent)
}

// Rat returns q's exact value. It materialises 10^|exponent|: callers bound the exponent first.
func (q Quantity) Rat() *big.Rat {
	u, s := q.asDec()
	r := new(big.Rat).SetInt(u)
	switch {
	case s > 0:
		r.Quo(r, new(big.Rat).SetInt(pow10(s)))
	case s < 0:
		r.Mul(r, new(big.Rat).SetInt(pow10(-s)))
	}
	return r
}

// Representation is what a resource.Quantity holds in its unexported fields, which a dump of
// the struct (go-spew, as kube-controller-manager's pod-template-hash takes it) shows.
type Representation struct {
	// Value and Scale are int64Amount's value and scale (zero in the big-decimal form).
	Value int64
	Scale int32
	// Unscaled and DecScale are infDecAmount's inf.Dec (unscaled × 10^-DecScale); Unscaled is
	// nil in the int64 form and a fresh copy otherwise.
	Unscaled *big.Int
	DecScale int32
	// Cached is the string field s ("" when none).
	Cached string
}

// Representation returns q's internal state as resource.Quantity holds it.
func (q Quantity) Representation() Representation {
	r := Representation{Value: q.value, Scale: q.scale, Cached: q.s}
	if q.dec != nil {
		r.Unscaled, r.DecScale = new(big.Int).Set(q.dec), q.dscale
	}
	return r
}
