package managedfields_test

import (
	"os"
	"testing"

	"github.com/writepath/writepath/managedfields"
)

// BenchmarkDecodeEncode decodes the managedFields of a Deployment with 5 managers (the apply
// benchmark's live object) and encodes them back.
func BenchmarkDecodeEncode(b *testing.B) {
	data, err := os.ReadFile("../testdata/managedfields/bench/deployment.yaml")
	if err != nil {
		b.Fatal(err)
	}
	obj := object(string(data))
	b.Run("DecodeObject", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := managedfields.DecodeObject(obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	m, err := managedfields.DecodeObject(obj)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("EncodeList-unchanged", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := managedfields.EncodeList(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	fresh, err := managedfields.Decode(managedfields.Lenient(obj))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("EncodeList-all-changed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := managedfields.EncodeList(fresh); err != nil {
				b.Fatal(err)
			}
		}
	})
}
