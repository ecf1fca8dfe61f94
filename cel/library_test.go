package cel_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	celgo "github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cel"
)

// TestLibraryGolden evaluates every library function (and the extension libraries 1.37
// enables) on the cases in testdata/cel/library_cases.txt: value or error text, runtime cost
// and estimated cost. The same expressions agree with k8s.io/apiserver (conformance/cel).
func TestLibraryGolden(t *testing.T) {
	f, err := os.Open("../testdata/cel/library_cases.txt")
	require.NoError(t, err)
	defer f.Close()
	env, err := cel.BaseEnv(cel.V1_37)
	require.NoError(t, err)
	var out strings.Builder
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		n++
		fmt.Fprintf(&out, "%s\n  => %s\n", line, evalLine(env, line))
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 100)
	golden(t, "../testdata/cel/library.golden", out.String())
}

func evalLine(env *celgo.Env, expr string) string {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return "compile error: " + iss.Err().Error()
	}
	est, err := env.EstimateCost(ast, &cel.CostEstimator{})
	if err != nil {
		return "estimate error: " + err.Error()
	}
	prog, err := env.Program(ast)
	if err != nil {
		return "program error: " + err.Error()
	}
	val, det, err := prog.Eval(map[string]any{})
	res := ""
	if err != nil {
		res = "error: " + err.Error()
	} else {
		res = fmt.Sprintf("%v (%s)", val, val.Type().TypeName())
	}
	return fmt.Sprintf("%s; cost %d; estimated [%d, %d]", res, *det.ActualCost(), est.Min, est.Max)
}

// golden compares got with the file at path, rewriting it with UPDATE_GOLDEN=1.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with UPDATE_GOLDEN=1 to create %s", path)
	assert.Equal(t, string(want), got, "golden %s", path)
}
