package quantity

import (
	"math"
	"math/big"
)

// ScaledValue is resource.Quantity.ScaledValue: q in units of 10^scale (MilliValue is scale -3),
// rounded up, as an int64 computed the way apimachinery computes it, overflow included, so that
// a check such as MilliValue()%1000 answers as the apiserver's does:
//   - the int64 form scaled down rounds away from zero; scaled up by 10, 100, 1000, 10^6 or 10^9
//     it wraps around on overflow (the multiplication's result is kept), by another power it is
//     0 on overflow;
//   - the decimal form keeps the low 64 bits of its big result (big.Int.Int64), a division by
//     more than 10^18 or of a value beyond the int64 range being Euclidean.
func (q Quantity) ScaledValue(scale int32) int64 {
	if q.dec == nil {
		if q.scale < scale {
			return negativeScale(q.value, scale-q.scale)
		}
		return positiveScale(q.value, q.scale-scale)
	}
	dif := int(q.dscale) + int(scale)
	switch {
	case dif == 0:
		return q.dec.Int64()
	case dif < 0:
		return q.dec.Int64() * int64(math.Pow10(-dif))
	}
	if q.dec.Cmp(big.NewInt(math.MaxInt64)) < 0 && dif < 19 {
		divide := int64(math.Pow10(dif))
		v := q.dec.Int64()
		if v%divide != 0 {
			return v/divide + 1
		}
		return v / divide
	}
	divisor := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dif)), nil)
	res, rem := new(big.Int).DivMod(q.dec, divisor, new(big.Int))
	if rem.Sign() != 0 {
		return res.Int64() + 1
	}
	return res.Int64()
}

// positiveScale is apimachinery's positiveScaleInt64 with its overflow flag dropped, as
// ScaledValue drops it.
func positiveScale(base int64, n int32) int64 {
	switch n {
	case 0:
		return base
	case 1, 2, 3, 6, 9:
		if base == 0 || base == 1 {
			return base * int64(math.Pow10(int(n)))
		}
		if base == math.MinInt64 {
			return 0
		}
		return base * int64(math.Pow10(int(n))) // wraps, as the multiplication does
	}
	v := base
	for i := int32(0); i < n; i++ {
		if v == 0 || v == 1 {
			v *= 10
			continue
		}
		if v == math.MinInt64 {
			return 0
		}
		c := v * 10
		if c/10 != v {
			return 0
		}
		v = c
	}
	return v
}

// negativeScale is apimachinery's negativeScaleInt64: base divided by 10^n, rounded away from
// zero.
func negativeScale(base int64, n int32) int64 {
	v := base
	fraction := false
	for i := int32(0); i < n; i++ {
		if !fraction && v%10 != 0 {
			fraction = true
		}
		v /= 10
		if v == 0 {
			if fraction {
				if base > 0 {
					return 1
				}
				return -1
			}
			return 0
		}
	}
	if fraction {
		if base > 0 {
			v++
		} else {
			v--
		}
	}
	return v
}
