package quantity

import (
	"errors"
	"math"
	"math/big"
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

// roundUpToScale rounds the non-negative u×10^-s to scale t, away from zero (inf.RoundUp); the
// result always has scale t, as inf.Dec.Round leaves it. u is not modified.
func roundUpToScale(u *big.Int, s, t int32) (*big.Int, int32) {
	if s <= t {
		return new(big.Int).Mul(u, pow10(t-s)), t
	}
	if int64(s)-int64(t) > int64(u.BitLen()) {
		// 10^(s-t) > u: the quotient is 0, rounded up to 1 unless u is 0 (without
		// materialising 10^(s-t), which for "1e-2000000000" would not finish).
		if u.Sign() == 0 {
			return new(big.Int), t
		}
		return big.NewInt(1), t
	}
	q, r := new(big.Int).QuoRem(u, pow10(s-t), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, bigOne)
	}
	return q, t
}

// cmpDec compares a×10^-as with b×10^-bs. Magnitudes are compared by digit count first so that
// quantities like 1e2000000000 compare without materialising 10^2000000000.
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

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than o, by value (the
// representation, format and cached string do not matter: "1" equals "1000m").
func (q Quantity) Cmp(o Quantity) int {
	if q.dec == nil && o.dec == nil {
		if q.scale == o.scale {
			return cmpInt64(q.value, o.value)
		}
		// Bring both to the smaller scale when that fits an int64.
		if d := int64(q.scale) - int64(o.scale); d > 0 && d <= 18 {
			if v, ok := scaleUpInt64(q.value, int32(d)); ok {
				return cmpInt64(v, o.value)
			}
		} else if d < 0 && d >= -18 {
			if v, ok := scaleUpInt64(o.value, int32(-d)); ok {
				return cmpInt64(q.value, v)
			}
		}
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	return cmpDec(a, as, b, bs)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Equal reports whether q and o have the same value (equality.Semantic's rule for quantities).
func (q Quantity) Equal(o Quantity) bool { return q.Cmp(o) == 0 }

// ErrRange is returned where the apiserver would materialise a decimal with more than
// MaxScaleSpread digits to add two quantities (it would exhaust memory); writepath refuses
// instead.
var ErrRange = errors.New("quantity arithmetic out of range")

// MaxScaleSpread is the largest difference of decimal scales Add and Sub align.
const MaxScaleSpread = 1 << 16

// Add returns q+o as resource.Quantity.Add computes it (int64 form while the sum fits, a big
// decimal at the larger scale otherwise; a zero q takes o's format). The cached string is
// dropped.
func (q Quantity) Add(o Quantity) (Quantity, error) { return q.add(o, false) }

// Sub returns q-o as resource.Quantity.Sub computes it.
func (q Quantity) Sub(o Quantity) (Quantity, error) { return q.add(o, true) }

func (q Quantity) add(o Quantity, sub bool) (Quantity, error) {
	r := q
	r.s = ""
	if q.IsZero() {
		r.format = o.format
	}
	if q.dec == nil && o.dec == nil {
		bv := o.value
		if sub {
			bv = -bv
		}
		if v, s, ok := addInt64Amount(q.value, q.scale, bv, o.scale); ok {
			r.value, r.scale = v, s
			return r, nil
		}
	}
	a, as := q.asDec()
	b, bs := o.asDec()
	scale := as
	if bs > scale {
		scale = bs
	}
	if (a.Sign() != 0 && int64(scale)-int64(as) > MaxScaleSpread) || (b.Sign() != 0 && int64(scale)-int64(bs) > MaxScaleSpread) {
		return Quantity{}, ErrRange
	}
	sa := new(big.Int).Set(a)
	if a.Sign() != 0 {
		sa.Mul(a, pow10(scale-as))
	}
	sb := new(big.Int).Set(b)
	if b.Sign() != 0 {
		sb.Mul(b, pow10(scale-bs))
	}
	if sub {
		sa.Sub(sa, sb)
	} else {
		sa.Add(sa, sb)
	}
	return Quantity{dec: sa, dscale: scale, format: r.format}, nil
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

// RoundUp is resource.Quantity.RoundUp(scale): q rounded away from zero to a multiple of
// 10^scale (scale -3 is Milli), and whether that was exact. An int64-form value already that
// coarse is returned unchanged, cached string included; otherwise the cached string is dropped
// and a big decimal always ends at exactly that scale.
func (q Quantity) RoundUp(scale int32) (Quantity, bool) {
	r := q
	if q.dec != nil {
		r.s = ""
		if int64(-scale)-int64(q.dscale) > MaxScaleSpread {
			// Already coarser than 10^scale: the value stays; rescaling it would materialise
			// more than MaxScaleSpread digits.
			return r, true
		}
		neg := q.dec.Sign() < 0
		u, s := roundUpToScale(new(big.Int).Abs(q.dec), q.dscale, -scale)
		if neg {
			u.Neg(u)
		}
		r.dec, r.dscale = u, s
		return r, cmpDec(u, s, q.dec, q.dscale) == 0
	}
	if q.scale >= scale {
		return r, true
	}
	r.s = ""
	v, exact := negativeScaleInt64(q.value, scale-q.scale)
	r.value, r.scale = v, scale
	return r, exact
}

// negativeScaleInt64 divides base by 10^scale, rounding away from zero.
func negativeScaleInt64(base int64, scale int32) (int64, bool) {
	value, fraction := base, false
	for i := int32(0); i < scale && value != 0; i++ {
		if value%10 != 0 {
			fraction = true
		}
		value /= 10
	}
	if fraction {
		if base > 0 {
			value++
		} else {
			value--
		}
	}
	return value, !fraction
}

// Identical reports whether q and o hold the same representation (value and scale or big
// decimal, format, cached string): reflect.DeepEqual of two resource.Quantity, which tells "1"
// from "1000m" and "01" from "1" where Equal does not.
func (q Quantity) Identical(o Quantity) bool {
	if q.format != o.format || q.s != o.s || q.value != o.value || q.scale != o.scale || (q.dec == nil) != (o.dec == nil) {
		return false
	}
	return q.dec == nil || (q.dscale == o.dscale && q.dec.Cmp(o.dec) == 0)
}
