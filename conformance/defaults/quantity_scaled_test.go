package defaults

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/writepath/writepath/internal/quantity"
)

// TestQuantityScaledValue compares quantity.ScaledValue with resource.Quantity.ScaledValue at
// every scale from 10^-12 to 10^12, overflow included (the apiserver's MilliValue()%1000 checks
// read the wrapped value: "9223372036854775807" of ephemeral-storage is no fractional byte
// value), on random quantities and the int64 corners.
func TestQuantityScaledValue(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	inputs := []string{"9223372036854775807", "-9223372036854775808", "9223372036854775807m", "1e30", "-1e30",
		"123456789012345678901234567890m", "1Ei", "8Ei", "9.3e18", "0.000000001", "-1n", "18446744073709551616"}
	for i := 0; i < 20000; i++ {
		if s, ok := randomQuantity(r).(string); ok {
			inputs = append(inputs, s)
		}
	}
	compared := 0
	for _, s := range inputs {
		ref, rerr := resource.ParseQuantity(s)
		got, gerr := quantity.Parse(s)
		if rerr != nil || gerr != nil {
			continue
		}
		for scale := int32(-12); scale <= 12; scale++ {
			require.Equal(t, ref.ScaledValue(resource.Scale(scale)), got.ScaledValue(scale), "%q at scale %d", s, scale)
			compared++
		}
	}
	t.Logf("%d values compared, 0 disagreements", compared)
}
