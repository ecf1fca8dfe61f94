// Package quantity is writepath's one reading of Kubernetes resource quantities
// (k8s.io/apimachinery's resource.Quantity): the parser, the representation, the canonical
// string, comparison and the arithmetic CEL needs. cel (the quantity() library), schema
// (built-in defaulting's RoundUp(Milli) and encoding), versions (equality.Semantic's
// quantity rule) and admission (the HorizontalPodAutoscaler conversion's JSON form) use it; it
// imports no writepath package.
//
// A Quantity holds what apimachinery holds: the value as a scaled int64 (value × 10^scale)
// when ParseQuantity's fast path produced one, a big decimal (unscaled × 10^-scale) otherwise;
// the Format (DecimalSI "1k", BinarySI "1Ki", DecimalExponent "1e3"); and the input string when
// ParseQuantity keeps it because it is already canonical ("+1" stays "+1", "1000m" does not).
// The representation is observable (CEL's isInteger() is false for "1000m", and
// asApproximateFloat() multiplies the unscaled value by a power of ten), so it is kept exactly.
//
// # Usage
//
//	q, err := quantity.Parse("1.5Gi")      // ErrFormatWrong, ErrNumeric or ErrSuffix
//	s := q.String()                        // "1536Mi": the cached string, else Canonical()
//	same := q.Equal(quantity.MustParse("1610612736"))
//	c := q.Cmp(other)                      // -1, 0, 1 by value
//	m, exact := q.RoundUp(-3)              // RoundUp(resource.Milli)
//	sum, err := q.Add(other)               // ErrRange instead of a 10^2000000000 intermediate
//	i, ok := q.AsInt64(); f := q.AsApproximateFloat64(); d := q.Decimal()
//	err = q.UnmarshalJSON([]byte(`"500m"`)) // Quantity.UnmarshalJSON; null keeps the cached string
//	b, _ := q.MarshalJSON()                  // `"500m"`: String in quotes
//
// # Invariants
//
//   - Parse agrees with resource.ParseQuantity on acceptance, error, value (values finer than
//     1n round up away from zero; binary-SI values cap at 2^63-1), representation, format and
//     cached string; String agrees with Quantity.String and MarshalJSON, including the
//     quirk that a decimal-SI value whose canonical exponent has no suffix (beyond E) is
//     written without one. The conformance suites of cel, defaults and versions check this
//     against apimachinery. UnmarshalJSON and MarshalJSON are Quantity's: null zeroes the value
//     but keeps the format and the cached string, a quoted value is parsed without unescaping
//     after trimming white space, and a failed parse leaves the receiver as it was.
//   - A Quantity is an immutable value: methods return new values and never modify a shared
//     big integer (UnmarshalJSON, the one pointer method, replaces the fields it sets). Cmp is a total order by value (format, representation and cached string do
//     not matter) and Equal is Cmp == 0.
//   - Nothing materialises a power of ten beyond MaxScaleSpread digits where apimachinery
//     would (it hangs on "1e-2000000000" or a 25-digit mantissa with exponent 2000000000): the
//     value is kept exact at its own scale instead, and Add and Sub refuse with ErrRange.
//     Exponents are truncated to int32 as apimachinery's are.
//   - Pure and concurrency-safe; never panics except MustParse on a non-quantity.
//
// # Errors
//
// ErrFormatWrong, ErrNumeric and ErrSuffix are resource.ErrFormatWrong, ErrNumeric and
// ErrSuffix, word for word (callers wrap them as the apiserver does). ErrRange is writepath's
// own: arithmetic that would need more than MaxScaleSpread digits.
package quantity
