package cel

import "github.com/writepath/writepath/internal/quantity"

// Qty is a resource quantity with the representation k8s.io/apimachinery's resource.Quantity
// keeps (internal/quantity): a scaled int64 while it fits, a big decimal once it does not. The
// representation is observable through CEL (isInteger() is false for "1000m" and for every
// big-decimal quantity; asApproximateFloat() multiplies by a power of ten). A Qty is immutable.
type Qty struct{ q quantity.Quantity }

// ParseQuantity parses s as resource.ParseQuantity does, with its errors and rounding (values
// more precise than 1n are rounded up, away from zero; binary-SI values are capped at 2^63-1).
func ParseQuantity(s string) (*Qty, error) {
	q, err := quantity.Parse(s)
	if err != nil {
		return nil, err
	}
	return &Qty{q}, nil
}

// QtyFromInt64 is resource.NewQuantity(v, DecimalExponent).
func QtyFromInt64(v int64) *Qty { return &Qty{quantity.FromInt64(v, quantity.DecimalExponent)} }

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than o.
func (q *Qty) Cmp(o *Qty) int { return q.q.Cmp(o.q) }

// Sign returns -1, 0 or 1.
func (q *Qty) Sign() int { return q.q.Sign() }

// AsInt64 is resource.Quantity.AsInt64: only the int64 form with a non-negative scale converts.
func (q *Qty) AsInt64() (int64, bool) { return q.q.AsInt64() }

// AsApproximateFloat64 is resource.Quantity.AsApproximateFloat64 (representation-dependent).
func (q *Qty) AsApproximateFloat64() float64 { return q.q.AsApproximateFloat64() }

// Add returns q+o, as resource.Quantity.Add computes it. Where the apiserver would materialise
// a decimal of more than 65,536 digits (it would exhaust memory), writepath refuses with an
// error instead.
func (q *Qty) Add(o *Qty) (*Qty, error) { return wrapQty(q.q.Add(o.q)) }

// Sub returns q-o, as resource.Quantity.Sub computes it.
func (q *Qty) Sub(o *Qty) (*Qty, error) { return wrapQty(q.q.Sub(o.q)) }

func wrapQty(r quantity.Quantity, err error) (*Qty, error) {
	if err != nil {
		return nil, err
	}
	return &Qty{r}, nil
}

// String returns a decimal rendering of q (exact, not the apiserver's canonical form).
func (q *Qty) String() string { return q.q.Decimal() }
