package schema_test

import (
	"testing"

	"github.com/writepath/writepath/schema"
)

// BenchmarkProcess is a create of a small custom object through coercion, defaulting and
// validation (conformance/bench compares an HTTPRoute with apiextensions).
func BenchmarkProcess(b *testing.B) {
	v := mustCRD().Version("v1")
	obj := mustObject(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"size":3,"ports":[{"name":"http"},{"name":"https","port":443}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := v.Process(schema.Request{Object: obj})
		if err != nil || len(res.Errors) > 0 {
			b.Fatal(err, res.Errors)
		}
	}
}

// BenchmarkFromCRD reads and compiles a CRD.
func BenchmarkFromCRD(b *testing.B) {
	obj := mustObject(widgetCRD)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.FromCRD(obj); err != nil {
			b.Fatal(err)
		}
	}
}
