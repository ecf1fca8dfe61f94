package versions

import (
	"math/big"
)

// quantityMaps are the fields of the built-in types that hold a ResourceList
// (map of resource.Quantity); quantityFields hold a single Quantity. The typed
// comparison of the apiserver (equality.Semantic) compares quantities by value,
// so "1" equals "1000m" and "0.5" equals "500m" there.
var (
	quantityMaps   = map[string]bool{"limits": true, "requests": true, "capacity": true, "allocatable": true, "hard": true, "used": true, "overhead": true}
	quantityFields = map[string]bool{"sizeLimit": true}
)

var (
	decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
)

// maxQuantity is the cap of a binary-suffixed quantity (the largest int64).
var maxQuantity = new(big.Rat).SetInt64(1<<63 - 1)

// parseQuantity reads a resource.Quantity string (sign, digits, fraction,
// decimal or binary suffix, or exponent) as an exact rational, rounded up (away
// from zero) to a multiple of 1n and, with a binary suffix, capped at the
// largest int64, as apimachinery's ParseQuantity does; a missing number is 0
// ("Mi" is 0). ok is false for strings ParseQuantity rejects, and for
// exponents beyond ±1000, which are left to string comparison.
func parseQuantity(s string) (*big.Rat, bool) {
	if s == "" {
		return nil, false
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
	}
	suffix := s[i:]
	binary := false
	r, ok := new(big.Rat).SetString("0" + intPart + "." + frac + "0")
	if !ok {
		return nil, false
	}
	if e, ok := decimalSuffixes[suffix]; ok {
		r.Mul(r, pow10(e))
	} else if b, ok := binarySuffixes[suffix]; ok {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), b)))
		binary = true
	} else if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		exp, ok := new(big.Int).SetString(suffix[1:], 10)
		if !ok || exp.CmpAbs(big.NewInt(1000)) > 0 {
			return nil, false
		}
		r.Mul(r, pow10(int(exp.Int64())))
	} else {
		return nil, false
	}
	// Round up (away from zero) to nano precision.
	nano := new(big.Rat).Mul(r, pow10(9))
	if !nano.IsInt() {
		q := new(big.Int).Quo(nano.Num(), nano.Denom())
		q.Add(q, big.NewInt(1))
		r.SetFrac(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(9), nil))
	}
	if binary && r.Cmp(maxQuantity) > 0 {
		r.Set(maxQuantity)
	}
	if neg {
		r.Neg(r)
	}
	return r, true
}

func pow10(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-e)), nil))
}

// quantityEqual reports whether a and b are equal quantities; ok is false when
// either is not a quantity string.
func quantityEqual(a, b any) (equal, ok bool) {
	sa, okA := a.(string)
	sb, okB := b.(string)
	if !okA || !okB {
		return false, false
	}
	qa, okA := parseQuantity(sa)
	qb, okB := parseQuantity(sb)
	if !okA || !okB {
		return false, false
	}
	return qa.Cmp(qb) == 0, true
}

// CompareQuantity compares two resource.Quantity strings by value, as
// apimachinery's Quantity.Cmp does after parsing them (so "1" equals "1000m" and
// "1Ki" equals "1024"): -1, 0 or +1. ok is false when either string is not a
// quantity ParseQuantity accepts.
func CompareQuantity(a, b string) (cmp int, ok bool) {
	qa, okA := parseQuantity(a)
	qb, okB := parseQuantity(b)
	if !okA || !okB {
		return 0, false
	}
	return qa.Cmp(qb), true
}

// QuantityValue parses a resource.Quantity string as apimachinery's ParseQuantity does
// (rounded up to a multiple of 1n, binary-suffixed values capped at the largest int64) and
// returns its exact value; ok is false for a string ParseQuantity rejects.
func QuantityValue(s string) (value *big.Rat, ok bool) {
	return parseQuantity(s)
}
