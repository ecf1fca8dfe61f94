package cel

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	_ "cel.dev/expr/conformance/proto2"
	_ "cel.dev/expr/conformance/proto3"
	"cel.dev/expr/conformance/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/prototext"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	wcel "github.com/writepath/writepath/cel"
)

// celSpecDir is the CEL conformance data (cel.dev/expr tests/simple/testdata) in the module
// cache.
func celSpecDir(t *testing.T) string {
	v := "v0.25.1"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "cel.dev/expr" && d.Version != "" {
				v = d.Version
			}
		}
	}
	gomodcache := os.Getenv("GOMODCACHE")
	if gomodcache == "" {
		home, _ := os.UserHomeDir()
		gomodcache = filepath.Join(home, "go", "pkg", "mod")
	}
	dir := filepath.Join(gomodcache, "cel.dev", "expr@"+v, "tests", "simple", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("CEL conformance data not in the module cache: %v", err)
	}
	return dir
}

// TestCELSpecAgrees runs the base-language expressions of the CEL conformance data (those
// without variables, type environments or containers) through the apiserver's 1.37 environment
// and writepath's: the same options make the same values, errors and costs.
func TestCELSpecAgrees(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(celSpecDir(t), "*.textproto"))
	require.NoError(t, err)
	kenv := environment.MustBaseEnvSet(version.MajorMinor(1, 37)).NewExpressionsEnv()
	wenv, err := wcel.BaseEnv(wcel.V1_37)
	require.NoError(t, err)
	stats := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var file test.SimpleTestFile
		if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &file); err != nil {
			stats["files not parsed"]++
			continue
		}
		for _, sec := range file.GetSection() {
			for _, tc := range sec.GetTest() {
				if len(tc.GetTypeEnv()) > 0 || len(tc.GetBindings()) > 0 || tc.GetContainer() != "" || tc.GetDisableCheck() || tc.GetDisableMacros() || tc.GetLocale() != "" {
					stats["skipped (needs variables, containers or unchecked mode)"]++
					continue
				}
				want := evaluate(kenv, &library.CostEstimator{}, tc.GetExpr())
				got := evaluate(wenv, &wcel.CostEstimator{}, tc.GetExpr())
				stats["compared"]++
				if want.compileErr == "" && want.evalErr == "" {
					stats["values"]++
				}
				// Map literals iterate in Go map order in both (cel-go's maps): where an early
				// exit depends on it, the cost varies between runs.
				for try := 0; try < 30 && want.String() != got.String(); try++ {
					want = evaluate(kenv, &library.CostEstimator{}, tc.GetExpr())
				}
				if !assert.Equal(t, want.String(), got.String(), "%s/%s/%s: %s", filepath.Base(f), sec.GetName(), tc.GetName(), tc.GetExpr()) {
					stats["disagreements"]++
				}
			}
		}
	}
	t.Logf("cel-spec simple tests: %v", stats)
	require.Positive(t, stats["values"])
}
