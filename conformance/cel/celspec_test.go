package cel

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	_ "cel.dev/expr/conformance/proto2"
	_ "cel.dev/expr/conformance/proto3"
	"cel.dev/expr/conformance/test"
	celgo "github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	alphapb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
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

// withTestEnv extends both environments alike with a test's type environment and container and
// converts its bindings into each environment's values.
func withTestEnv(kenv, wenv *celgo.Env, tc *test.SimpleTest) (*celgo.Env, *celgo.Env, map[string]any, map[string]any, error) {
	var opts []celgo.EnvOption
	if c := tc.GetContainer(); c != "" {
		opts = append(opts, celgo.Container(c))
	}
	if len(tc.GetTypeEnv()) > 0 {
		decls := make([]*alphapb.Decl, 0, len(tc.GetTypeEnv()))
		for _, d := range tc.GetTypeEnv() {
			b, err := proto.Marshal(d)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			var a alphapb.Decl
			if err := proto.Unmarshal(b, &a); err != nil {
				return nil, nil, nil, nil, err
			}
			decls = append(decls, &a)
		}
		opts = append(opts, celgo.Declarations(decls...))
	}
	k, err := kenv.Extend(opts...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	w, err := wenv.Extend(opts...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	kvars, wvars := map[string]any{}, map[string]any{}
	for name, ev := range tc.GetBindings() {
		if ev.GetValue() == nil {
			return nil, nil, nil, nil, fmt.Errorf("binding %s is not a value", name)
		}
		kv, err := celgo.ProtoAsValue(k.CELTypeAdapter(), ev.GetValue())
		if err != nil {
			return nil, nil, nil, nil, err
		}
		wv, err := celgo.ProtoAsValue(w.CELTypeAdapter(), ev.GetValue())
		if err != nil {
			return nil, nil, nil, nil, err
		}
		kvars[name], wvars[name] = kv, wv
	}
	return k, w, kvars, wvars, nil
}

// TestCELSpecAgrees runs the base-language expressions of the CEL conformance data through the
// apiserver's 1.37 environment and writepath's, each extended with the test's declared variables,
// container and bindings: the same options make the same values, errors and costs. Tests that need
// unchecked evaluation, disabled macros or a locale are skipped (the apiserver never runs so).
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
				if tc.GetDisableCheck() || tc.GetDisableMacros() || tc.GetLocale() != "" {
					stats["skipped (unchecked mode, no macros or a locale)"]++
					continue
				}
				kenvT, wenvT, kvars, wvars, err := withTestEnv(kenv, wenv, tc)
				if err != nil {
					stats["skipped (type environment or bindings not convertible)"]++
					continue
				}
				if len(tc.GetTypeEnv()) > 0 || len(tc.GetBindings()) > 0 || tc.GetContainer() != "" {
					stats["with variables or containers"]++
				}
				want := evalWith(kenvT, &library.CostEstimator{}, tc.GetExpr(), kvars)
				got := evalWith(wenvT, &wcel.CostEstimator{}, tc.GetExpr(), wvars)
				stats["compared"]++
				if want.compileErr == "" && want.evalErr == "" {
					stats["values"]++
				}
				// Map literals iterate in Go map order in both (cel-go's maps): where an early
				// exit depends on it, the cost varies between runs.
				for try := 0; try < 30 && want.String() != got.String(); try++ {
					want = evalWith(kenvT, &library.CostEstimator{}, tc.GetExpr(), kvars)
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
