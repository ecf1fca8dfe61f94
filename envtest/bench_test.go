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

// BenchmarkEnvironmentStart is Start, as a suite pays it once per package, to a ready
// rest.Config (Stop is not timed): a fresh server with its system namespaces ("empty"), and with
// the test CRD installed and seen in discovery ("crd").
func BenchmarkEnvironmentStart(b *testing.B) {
	b.Run("empty", func(b *testing.B) { benchStart(b, func() environment { return &envtest.Environment{} }) })
	b.Run("crd", func(b *testing.B) {
		benchStart(b, func() environment { return &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd"}} })
	})
}

// BenchmarkControllerRuntimeEnvironmentStart is the same with controller-runtime's envtest: Start
// runs etcd and kube-apiserver from KUBEBUILDER_ASSETS and waits until they serve (and installs
// the test CRD, waiting for discovery to list it); Stop (not timed) stops both. Skipped without
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

// benchStart times Start, to a ready rest.Config; Stop is outside the timer.
func benchStart(b *testing.B, newEnv func() environment) {
	for i := 0; i < b.N; i++ {
		env := newEnv()
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
