package schema

import "testing"

// First use: decoding each embedded table (what the sync.Once runs once per process). The issue's
// budget is 100 ms for all three together.
func BenchmarkBuiltinFirstUseCatalogue(b *testing.B) {
	for b.Loop() {
		if _, err := parseCatalogue(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuiltinFirstUseSMD(b *testing.B) {
	for b.Loop() {
		if _, err := parseSMD(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuiltinFirstUsePatchMeta(b *testing.B) {
	for b.Loop() {
		if _, err := parsePatchMeta(); err != nil {
			b.Fatal(err)
		}
	}
}

// Later look-ups: a map access, independent of the catalogue's size.
func BenchmarkBuiltinLookup(b *testing.B) {
	gvk := GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if _, err := Builtin(gvk); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Builtin(gvk); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuiltinPatchMetaLookup(b *testing.B) {
	k, err := Builtin(GroupVersionKind{Version: "v1", Kind: "Pod"})
	if err != nil {
		b.Fatal(err)
	}
	root, err := k.PatchMeta()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		spec, _, err := root.LookupField("spec")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := spec.LookupSlice("containers"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuiltinSMDType(b *testing.B) {
	k, err := Builtin(GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.SMDType(); err != nil {
			b.Fatal(err)
		}
	}
}
