package envtest_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/writepath/writepath/envtest"
)

// BenchmarkEnvironmentStart is Start and Stop, as a suite pays them once per package: a fresh
// server with its system namespaces ("empty"), and with the test CRD installed and seen in
// discovery ("crd").
func BenchmarkEnvironmentStart(b *testing.B) {
	b.Run("empty", func(b *testing.B) { benchStart(b, func() environment { return &envtest.Environment{} }) })
	b.Run("crd", func(b *testing.B) {
		benchStart(b, func() environment { return &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}} })
	})
}

// BenchmarkControllerRuntimeEnvironmentStart is the same with controller-runtime's envtest: Start
// runs etcd and kube-apiserver from KUBEBUILDER_ASSETS and waits until they serve (and installs
// the test CRD, waiting for discovery to list it), Stop stops both. Skipped without
// KUBEBUILDER_ASSETS.
func BenchmarkControllerRuntimeEnvironmentStart(b *testing.B) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		b.Skip("KUBEBUILDER_ASSETS names no kube-apiserver and etcd")
	}
	crlog.SetLogger(logr.Discard()) // its clients log that no logger was set, with a stack
	b.Run("empty", func(b *testing.B) { benchStart(b, func() environment { return &crenvtest.Environment{} }) })
	b.Run("crd", func(b *testing.B) {
		benchStart(b, func() environment { return &crenvtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}} })
	})
}

// environment is what both Environments have.
type environment interface {
	Start() (*rest.Config, error)
	Stop() error
}

func benchStart(b *testing.B, newEnv func() environment) {
	for b.Loop() {
		env := newEnv()
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}
