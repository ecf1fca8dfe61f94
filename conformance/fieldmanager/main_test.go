package fieldmanager

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain silences klog: the reference's UpdateNoErrors logs "[SHOULD NOT HAPPEN]" for the
// fallback cases this suite provokes on purpose.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}
