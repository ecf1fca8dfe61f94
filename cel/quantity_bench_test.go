package cel_test

import (
	"testing"

	"github.com/writepath/writepath/cel"
)

var benchQuantities = []string{"100m", "1", "1.5Gi", "128Mi", "2", "500m", "1e3", "0.25", "12345678901234567890", "1Ki"}

// BenchmarkQuantity parses the quantities a resources block holds and compares and adds them,
// what quantity() rules do.
func BenchmarkQuantity(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var prev *cel.Qty
		for _, s := range benchQuantities {
			q, err := cel.ParseQuantity(s)
			if err != nil {
				b.Fatal(err)
			}
			if prev != nil {
				_ = q.Cmp(prev)
				if _, err := q.Add(prev); err != nil {
					b.Fatal(err)
				}
			}
			_, _ = q.AsInt64()
			prev = q
		}
	}
}
