package envtest_test

import (
	"testing"

	"github.com/writepath/writepath/envtest"
)

// BenchmarkEnvironmentStart is Start (a fresh server, its system namespaces, the test CRD
// installed and seen in discovery) and Stop, as a suite pays once per package.
func BenchmarkEnvironmentStart(b *testing.B) {
	for b.Loop() {
		env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}}
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}
