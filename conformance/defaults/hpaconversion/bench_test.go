package hpaconversion

import (
	"os"
	"testing"

	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/internal/codec"
)

// The recorded hpa scenario's object (three metrics and a behavior) converted
// v2 -> v1 -> v2, side by side: the reference decodes the JSON into the Go
// type, converts through the internal version and encodes (as the apiserver
// would between the wire and admission), writepath converts the object model.
func benchObject(b *testing.B) map[string]any {
	data, err := os.ReadFile("../../../testdata/admission/realcluster-equivalent/hpa/object.yaml")
	if err != nil {
		b.Fatal(err)
	}
	obj, err := codec.DecodeObject(data)
	if err != nil {
		b.Fatal(err)
	}
	return obj
}

func BenchmarkHPARoundTripReference(b *testing.B) {
	obj := mustJSON(benchObject(b))
	b.ReportAllocs()
	for b.Loop() {
		v1, err, _ := reference(obj, nil, gvk2, gvk1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err, _ := reference(mustJSON(v1), obj, gvk1, gvk2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHPARoundTripWritepath(b *testing.B) {
	obj := benchObject(b)
	conv := conversion.Builtin{}
	b.ReportAllocs()
	for b.Loop() {
		v1, err := conv.Convert(obj, gvk2, gvk1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conv.ConvertOnto(v1, obj, gvk1, gvk2); err != nil {
			b.Fatal(err)
		}
	}
}
