package versions

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/writepath/writepath/internal/quantity"
)

// quantityMaps are the fields of the built-in types that hold a ResourceList
// (map of resource.Quantity); quantityFields hold a single Quantity. The typed
// comparison of the apiserver (equality.Semantic) compares quantities by value,
// so "1" equals "1000m" and "0.5" equals "500m" there.
var (
	quantityMaps   = map[string]bool{"limits": true, "requests": true, "capacity": true, "allocatable": true, "hard": true, "used": true, "overhead": true}
	quantityFields = map[string]bool{"sizeLimit": true}
)

// parseQuantity reads a resource.Quantity string as apimachinery's ParseQuantity does
// (internal/quantity). ok is false for strings ParseQuantity rejects, and for exponents beyond
// ±1000, which are left to string comparison.
func parseQuantity(s string) (quantity.Quantity, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.ParseInt(s[i+1:], 10, 64); err == nil && (e > 1000 || e < -1000) {
			return quantity.Quantity{}, false
		}
	}
	q, err := quantity.Parse(s)
	return q, err == nil
}

// quantityEqual reports whether a and b are equal quantities; ok is false when
// either is not a quantity string.
func quantityEqual(a, b any) (equal, ok bool) {
	sa, okA := a.(string)
	sb, okB := b.(string)
	if !okA || !okB {
		return false, false
	}
	c, ok := CompareQuantity(sa, sb)
	return c == 0, ok
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
	q, ok := parseQuantity(s)
	if !ok {
		return nil, false
	}
	return q.Rat(), true
}
