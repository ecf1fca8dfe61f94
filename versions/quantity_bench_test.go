package versions_test

import (
	"testing"

	"github.com/writepath/writepath/versions"
)

// BenchmarkCompareQuantity compares quantity pairs as equality.Semantic does for resources.
func BenchmarkCompareQuantity(b *testing.B) {
	pairs := [][2]string{{"1", "1000m"}, {"1Ki", "1024"}, {"1.5Gi", "1536Mi"}, {"100m", "0.2"}, {"12345678901234567890", "1e19"}}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			if _, ok := versions.CompareQuantity(p[0], p[1]); !ok {
				b.Fatal(p)
			}
		}
	}
}
