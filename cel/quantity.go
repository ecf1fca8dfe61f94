package cel

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Qty is a resource quantity with the representation k8s.io/apimachinery's resource.Quantity
// keeps: a scaled int64 (value × 10^scale) while it fits, a big decimal (unscaled × 10^-dscale)
// once it does not. The representation is observable through CEL (isInteger() is false for
// "1000m" and for every big-decimal quantity; asApproximateFloat() multiplies by a power of ten),
// so it is kept exactly. A Qty is immutable.
type Qty struct {
	dec    *big.Int // nil: int64 form
	dscale int32    // scale of the decimal form (value = dec × 10^-dscale)
	value  int64    // int64 form: value × 10^scale
	scale  int32
	binary bool // BinarySI format (affects only the canonical string)
}

// The apiserver's quantity parse errors (resource.ErrFormatWrong, ErrNumeric, ErrSuffix).
var (
	errQtyFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQtyNumeric = errors.New("unable to parse numeric part of quantity")
	errQtySuffix  = errors.New("unable to parse quantity's suffix")
)

var maxInt64Dec = big.NewInt(math.MaxInt64)

// ParseQuantity parses s as resource.ParseQuantity does, with its errors and rounding (values
// more precise than 1n are rounded up, away from zero; binary-SI values are capped at 2^63-1).
func ParseQuantity(s string) (*Qty, error) {
	if len(s) == 0 {
		return nil, errQtyFormat
	}
	if s == "0" {
		return &Qty{}, nil
	}
	positive, value, num, denom, suf, err := splitQuantity(s)
	if err != nil {
		return nil, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return nil, errQtySuffix
	}
	precision := int32(0)
	scale := int32(0)
	mantissa := int64(1)
	switch format {
	case fmtDecimal, fmtExponent:
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	case fmtBinary:
		if exponent >= 0 && len(denom) == 0 {
			mantissa = mantissa << uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			v, err := strconv.ParseInt(num+denom, 10, 64)
			if err != nil {
				return nil, errQtyNumeric
			}
			if r, ok := mulInt64(v, mantissa); ok {
				if !positive {
					r = -r
				}
				return &Qty{value: r, scale: scale, binary: format == fmtBinary}, nil
			}
		}
	}
	unscaled, dscale, ok := scanDecimal(value)
	if !ok {
		return nil, errQtyNumeric
	}
	if base == 10 {
		dscale -= exponent
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	neg := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	if unscaled.Sign() != 0 || !unscaled.IsInt64() {
		unscaled, dscale = roundUpToScale(unscaled, dscale, 9)
	}
	if format == fmtBinary && cmpDec(unscaled, dscale, maxInt64Dec, 0) > 0 {
		unscaled, dscale = new(big.Int).Set(maxInt64Dec), 0
	}
	if format == fmtBinary && cmpDec(unscaled, dscale, big.NewInt(1), 0) < 0 && unscaled.Sign() > 0 {
		format = fmtDecimal
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	return &Qty{dec: unscaled, dscale: dscale, binary: format == fmtBinary}, nil
}

const (
	fmtDecimal = iota
	fmtBinary
	fmtExponent
)

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a == 1 {
		return b, true
	}
	if b == 1 {
		return a, true
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	c := a * b
	return c, c/b == a
}

func addInt64(a, b int64) (int64, bool) {
	c := a + b
	switch {
	case a > 0 && b > 0:
		if c < 0 {
			return 0, false
		}
	case a < 0 && b < 0:
		if c > 0 {
			return 0, false
		}
		if a == math.MinInt64 && b == math.MinInt64 {
			return 0, false
		}
	}
	return c, true
}

// scaleUpInt64 multiplies v by 10^s (s >= 0), reporting overflow.
func scaleUpInt64(v int64, s int32) (int64, bool) {
	if v == 0 {
		return 0, true
	}
	for ; s > 0; s-- {
		var ok bool
		if v, ok = mulInt64(v, 10); !ok {
			return 0, false
		}
	}
	return v, true
}

func splitQuantity(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos := 0
	end := len(str)
	if pos < end {
		switch str[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for i := pos; ; i++ {
		if i >= end {
			num = "0"
			value = num
			return
		}
		if str[i] != '0' {
			break
		}
		pos++
	}
	for i := pos; ; i++ {
		if i >= end {
			num = str[pos:end]
			value = str[0:end]
			return
		}
		if str[i] < '0' || str[i] > '9' {
			num = str[pos:i]
			pos = i
			break
		}
	}
	if len(num) == 0 {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		for i := pos; ; i++ {
			if i >= end {
				denom = str[pos:end]
				value = str[0:end]
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
	suffixStart := pos
	for i := pos; ; i++ {
		if i >= end {
			suffix = str[suffixStart:end]
			return
		}
		if !strings.ContainsAny(str[i:i+1], "eEinumkKMGTP") {
			pos = i
			break
		}
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for i := pos; ; i++ {
		if i >= end {
			suffix = str[suffixStart:end]
			return
		}
		if str[i] < '0' || str[i] > '9' {
			break
		}
	}
	err = errQtyFormat
	return
}

func interpretSuffix(s string) (base, exponent int32, format int, ok bool) {
	switch s {
	case "":
		return 10, 0, fmtDecimal, true
	case "n":
		return 10, -9, fmtDecimal, true
	case "u":
		return 10, -6, fmtDecimal, true
	case "m":
		return 10, -3, fmtDecimal, true
	case "k":
		return 10, 3, fmtDecimal, true
	case "M":
		return 10, 6, fmtDecimal, true
	case "G":
		return 10, 9, fmtDecimal, true
	case "T":
		return 10, 12, fmtDecimal, true
	case "P":
		return 10, 15, fmtDecimal, true
	case "E":
		return 10, 18, fmtDecimal, true
	case "Ki":
		return 2, 10, fmtBinary, true
	case "Mi":
		return 2, 20, fmtBinary, true
	case "Gi":
		return 2, 30, fmtBinary, true
	case "Ti":
		return 2, 40, fmtBinary, true
	case "Pi":
		return 2, 50, fmtBinary, true
	case "Ei":
		return 2, 60, fmtBinary, true
	}
	if len(s) > 1 && (s[0] == 'E' || s[0] == 'e') {
		parsed, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, fmtExponent, false
		}
		return 10, int32(parsed), fmtExponent, true
	}
	return 0, 0, fmtExponent, false
}

// scanDecimal parses "[+-]digits[.digits]" as inf.Dec.SetString does.
func scanDecimal(s string) (*big.Int, int32, bool) {
	digits := make([]byte, 0, len(s))
	dp, dg := -1, -1
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
			if dg == -1 {
				dg = len(digits)
			}
		default:
			return nil, 0, false
		}
		digits = append(digits, ch)
	}
	if dg == -1 {
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

var bigTen = big.NewInt(10)

func pow10(n int32) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// roundUpToScale rounds the non-negative u×10^-s to scale t, away from zero (inf.RoundUp); the
// result always has scale t, as inf.Dec.Round leaves it.
func roundUpToScale(u *big.Int, s, t int32) (*big.Int, int32) {
	if s <= t {
		return new(big.Int).Mul(u, pow10(t-s)), t
	}
	q, r := new(big.Int).QuoRem(u, pow10(s-t), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q, t
}

// cmpDec compares a×10^-as with b×10^-bs. Magnitudes are compared by digit count first so
// that quantities like 1e2000000000 compare without materialising 10^2000000000.
func cmpDec(a *big.Int, as int32, b *big.Int, bs int32) int {
	sa, sb := a.Sign(), b.Sign()
	if sa != sb || sa == 0 {
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	}
	ea := int64(len(new(big.Int).Abs(a).String())) - int64(as)
	eb := int64(len(new(big.Int).Abs(b).String())) - int64(bs)
	if ea != eb {
		if (ea > eb) == (sa > 0) {
			return 1
		}
		return -1
	}
	switch {
	case as == bs:
		return a.Cmp(b)
	case as < bs:
		return new(big.Int).Mul(a, pow10(bs-as)).Cmp(b)
	default:
		return a.Cmp(new(big.Int).Mul(b, pow10(as-bs)))
	}
}

// asDec returns the decimal form (unscaled, scale).
func (q *Qty) asDec() (*big.Int, int32) {
	if q.dec != nil {
		return q.dec, q.dscale
	}
	return big.NewInt(q.value), -q.scale
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than o.
func (q *Qty) Cmp(o *Qty) int {
	a, as := q.asDec()
	b, bs := o.asDec()
	return cmpDec(a, as, b, bs)
}

// Sign returns -1, 0 or 1.
func (q *Qty) Sign() int {
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

func (q *Qty) isZero() bool { return q.Sign() == 0 }

// AsInt64 is resource.Quantity.AsInt64: only the int64 form with a non-negative scale converts.
func (q *Qty) AsInt64() (int64, bool) {
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

// AsApproximateFloat64 is resource.Quantity.AsApproximateFloat64 (representation-dependent).
func (q *Qty) AsApproximateFloat64() float64 {
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

// errQtyRange is returned where the apiserver would materialise a decimal with more than
// maxScaleSpread digits (it would exhaust memory); writepath refuses instead.
var errQtyRange = errors.New("quantity arithmetic out of range")

const maxScaleSpread = 1 << 16

// Add returns q+o, as resource.Quantity.Add computes it.
func (q *Qty) Add(o *Qty) (*Qty, error) { return q.add(o, false) }

// Sub returns q-o, as resource.Quantity.Sub computes it.
func (q *Qty) Sub(o *Qty) (*Qty, error) { return q.add(o, true) }

func (q *Qty) add(o *Qty, sub bool) (*Qty, error) {
	r := *q
	if q.isZero() {
		r.binary = o.binary
	}
	if q.dec == nil && o.dec == nil {
		bv := o.value
		if sub {
			bv = -bv
		}
		if v, s, ok := addInt64Amount(q.value, q.scale, bv, o.scale); ok {
			r.value, r.scale = v, s
			return &r, nil
		}
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	var sa, sb *big.Int
	scale := as
	if bs > scale {
		scale = bs
	}
	if (a.Sign() != 0 && int64(scale)-int64(as) > maxScaleSpread) || (b.Sign() != 0 && int64(scale)-int64(bs) > maxScaleSpread) {
		return nil, errQtyRange
	}
	sa = new(big.Int).Set(a)
	if a.Sign() != 0 {
		sa.Mul(a, pow10(scale-as))
	}
	sb = new(big.Int).Set(b)
	if b.Sign() != 0 {
		sb.Mul(b, pow10(scale-bs))
	}
	if sub {
		sa.Sub(sa, sb)
	} else {
		sa.Add(sa, sb)
	}
	return &Qty{dec: sa, dscale: scale, binary: r.binary}, nil
}

func addInt64Amount(av int64, as int32, bv int64, bs int32) (int64, int32, bool) {
	switch {
	case bv == 0:
		return av, as, true
	case av == 0:
		return bv, bs, true
	case as == bs:
		c, ok := addInt64(av, bv)
		return c, as, ok
	case as > bs:
		c, ok := scaleUpInt64(av, as-bs)
		if !ok {
			return 0, 0, false
		}
		c, ok = addInt64(c, bv)
		return c, bs, ok
	default:
		c, ok := scaleUpInt64(bv, bs-as)
		if !ok {
			return 0, 0, false
		}
		c, ok = addInt64(av, c)
		return c, as, ok
	}
}

// QtyFromInt64 is resource.NewQuantity(v, DecimalExponent).
func QtyFromInt64(v int64) *Qty { return &Qty{value: v} }

// String returns a decimal rendering of q (exact, not the apiserver's canonical form).
func (q *Qty) String() string {
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
