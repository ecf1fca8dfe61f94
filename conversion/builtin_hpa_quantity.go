package conversion

import iq "github.com/writepath/writepath/internal/quantity"

// hpaQuantity is a resource.Quantity as the HorizontalPodAutoscaler conversion sees it:
// internal/quantity's UnmarshalJSON (ParseQuantity of the bytes between the quotes, with its
// rounding and errors; null zeroes the value but keeps the format and the cached string) and
// MarshalJSON (the string ParseQuantity kept, "+1" stays "+1", otherwise the canonical form).
// The type keeps its own name: decoding errors name it, and hpaTypeNames rewrites it to
// resource.Quantity.
type hpaQuantity struct{ iq.Quantity }

func (q hpaQuantity) isZero() bool { return q.IsZero() }
