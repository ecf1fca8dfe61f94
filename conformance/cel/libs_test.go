package cel

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	wcel "github.com/writepath/writepath/cel"
)

// outcome is what one expression does in one environment.
type outcome struct {
	compileErr string
	value      string
	evalErr    string
	cost       uint64
	estMin     uint64
	estMax     uint64
}

func (o outcome) String() string {
	return fmt.Sprintf("compile=%q value=%s err=%q cost=%d est=[%d,%d]", o.compileErr, o.value, o.evalErr, o.cost, o.estMin, o.estMax)
}

// render prints a result value independently of the implementation's Go types.
func render(v ref.Val) string {
	switch x := v.(type) {
	case types.String, types.Int, types.Uint, types.Double, types.Bool, types.Bytes, types.Duration, types.Timestamp, types.Null:
		return fmt.Sprintf("%T(%v)", x, x.Value())
	case *types.Optional:
		if !x.HasValue() {
			return "optional.none()"
		}
		return "optional(" + render(x.GetValue()) + ")"
	case traits.Lister:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, render(it.Next()))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case traits.Mapper:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			parts = append(parts, render(k)+": "+render(x.Get(k)))
		}
		sortStrings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if t := v.Type(); t != nil {
		return "opaque:" + t.TypeName()
	}
	return fmt.Sprintf("%T", v)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func evaluate(env *celgo.Env, estimator any, expr string) outcome {
	return evalWith(env, estimator, expr, map[string]any{})
}

func TestLibrariesAgree(t *testing.T) {
	for _, minor := range []int{36, 37} {
		t.Run(fmt.Sprintf("1.%d", minor), func(t *testing.T) {
			kenv := environment.MustBaseEnvSet(version.MajorMinor(1, uint(minor))).NewExpressionsEnv()
			wenv, err := wcel.BaseEnv(wcel.Version{Minor: minor})
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(uint64(minor), 5))
			n := sampleSize(3000, 100000)
			disagreements := 0
			kinds := map[string]int{}
			for i := 0; i < n; i++ {
				expr := expression(r)
				start := time.Now()
				want := evaluate(kenv, &library.CostEstimator{}, expr)
				mid := time.Now()
				got := evaluate(wenv, &wcel.CostEstimator{}, expr)
				if d1, d2 := mid.Sub(start), time.Since(mid); d1 > time.Second || d2 > time.Second {
					t.Logf("slow: %s (apiserver %v, writepath %v)", expr, d1, d2)
				}
				switch {
				case want.compileErr != "":
					kinds["compile error"]++
				case want.evalErr != "":
					kinds["evaluation error"]++
				default:
					kinds["value"]++
				}
				if !assert.Equal(t, want.String(), got.String(), "expression %s", expr) {
					disagreements++
					if disagreements > 20 {
						t.Fatalf("too many disagreements")
					}
				}
			}
			t.Logf("%d expressions compared (%v), %d disagreements", n, kinds, disagreements)
			require.Positive(t, kinds["value"])
			require.Positive(t, kinds["evaluation error"])
		})
	}
}

// TestCostBombsAgree runs expressions that hit the per-call cost limit through both: same error,
// same cost at the point of cancellation.
func TestCostBombsAgree(t *testing.T) {
	kenv := environment.MustBaseEnvSet(version.MajorMinor(1, 37)).NewExpressionsEnv()
	wenv, err := wcel.BaseEnv(wcel.V1_37)
	require.NoError(t, err)
	for _, c := range []struct {
		expr  string
		limit bool // runs into the per-call limit
	}{
		{"lists.range(300).all(i, lists.range(300).all(j, lists.range(300).all(k, true)))", true},
		{"lists.range(3000).map(x, lists.range(3000).filter(y, y == x)).size() > 0", true},
		{"lists.range(2000).map(x, 'abcdefghij' + string(x)).size() > 0", false},
		// a regex bomb for backtracking engines; RE2 is linear and cheap
		{"'" + strings.Repeat("a", 5000) + "'.matches('(a+)+b')", false},
	} {
		want := evaluate(kenv, &library.CostEstimator{}, c.expr)
		got := evaluate(wenv, &wcel.CostEstimator{}, c.expr)
		assert.Equal(t, want.String(), got.String(), "expression %.80s", c.expr)
		if c.limit {
			assert.Contains(t, want.evalErr, "actual cost limit exceeded", "expression %.80s", c.expr)
		} else {
			assert.Empty(t, want.evalErr, "expression %.80s", c.expr)
		}
	}
}
