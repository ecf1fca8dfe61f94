package defaults

import iq "github.com/writepath/writepath/internal/quantity"

// quantity is a resource.Quantity as the apiserver holds it between decoding and encoding:
// internal/quantity keeps apimachinery's representation and the string ParseQuantity caches
// when the input is already canonical (MarshalJSON writes it back unchanged: "+1" stays "+1").
type quantity struct{ q iq.Quantity }

// parseQuantity is resource.ParseQuantity, with its errors.
func parseQuantity(s string) (*quantity, error) {
	q, err := iq.Parse(s)
	if err != nil {
		return nil, err
	}
	return &quantity{q}, nil
}

// roundUpMilli is Quantity.RoundUp(resource.Milli), what SetDefaults_ResourceList does to every
// value: away from zero to a multiple of 1m; the cached string is dropped when the value was
// held as a big decimal or needed rounding.
func (q *quantity) roundUpMilli() *quantity {
	r, _ := q.q.RoundUp(-3)
	return &quantity{r}
}

// String is the quantity as MarshalJSON writes it: the cached string, or CanonicalizeBytes.
func (q *quantity) String() string { return q.q.String() }
