package value

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

const goldenDir = "../../testdata/codec/value"

type goldenOp struct {
	Op    string `json:"op"`
	Path  []any  `json:"path"`
	Value any    `json:"value"`
}

// TestOpsGolden runs the operations of testdata/codec/value/ops.yaml; UPDATE_GOLDEN=1 rewrites
// ops.golden.
func TestOpsGolden(t *testing.T) {
	raw, err := os.ReadFile(goldenDir + "/ops.yaml")
	require.NoError(t, err)
	j, err := yaml.YAMLToJSON(raw)
	require.NoError(t, err)
	var spec struct {
		Object map[string]any `json:"object"`
		Ops    []goldenOp     `json:"ops"`
	}
	require.NoError(t, kjson.UnmarshalCaseSensitivePreserveInts(j, &spec))
	before, err := json.Marshal(spec.Object)
	require.NoError(t, err)

	var b strings.Builder
	for _, op := range spec.Ops {
		var p Path
		for _, e := range op.Path {
			switch e := e.(type) {
			case string:
				p = append(p, Key(e))
			case int64:
				p = append(p, Index(int(e)))
			default:
				t.Fatalf("bad path element %#v", e)
			}
		}
		fmt.Fprintf(&b, "%s %q", op.Op, p.String())
		switch op.Op {
		case "get":
			v, found, err := Get(spec.Object, p)
			fmt.Fprintf(&b, " => %s found=%v err=%v\n", render(v), found, err)
		case "set":
			v, err := Set(spec.Object, p, op.Value)
			fmt.Fprintf(&b, " %s => %s err=%v\n", render(op.Value), render(v), err)
		case "remove":
			v, removed, err := Remove(spec.Object, p)
			fmt.Fprintf(&b, " => %s removed=%v err=%v\n", render(v), removed, err)
		case "equal", "equal-float":
			// YAML cannot spell a float64 with an integral value (3.0 decodes as int64 3), so
			// equal-float converts the op's value to float64 first.
			want := op.Value
			if i, ok := want.(int64); ok && op.Op == "equal-float" {
				want = float64(i)
			}
			v, _, err := Get(spec.Object, p)
			require.NoError(t, err)
			fmt.Fprintf(&b, " %s (%T) vs %s (%T) => %v\n", render(v), v, render(want), want, Equal(v, want))
		default:
			t.Fatalf("unknown op %q", op.Op)
		}
	}
	after, err := json.Marshal(spec.Object)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "an operation modified its input")

	got := b.String()
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, os.WriteFile(goldenDir+"/ops.golden", []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(goldenDir + "/ops.golden")
	require.NoError(t, err, "missing golden; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), got)
}

func render(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
