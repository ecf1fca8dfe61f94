package codec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden files live in testdata/codec at the repository root; UPDATE_GOLDEN=1 rewrites them.
const goldenRoot = "../../testdata/codec"

func updateGolden() bool { return os.Getenv("UPDATE_GOLDEN") == "1" }

func checkGolden(t *testing.T, path string, got string) {
	t.Helper()
	if updateGolden() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), got, "golden %s", path)
}

// typed renders a decoded value with its Go types, deterministically, so goldens show
// int64 versus float64.
func typed(v any) string {
	switch t := v.(type) {
	case nil:
		return "nil"
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return "int64(" + strconv.FormatInt(t, 10) + ")"
	case float64:
		return "float64(" + strconv.FormatFloat(t, 'g', -1, 64) + ")"
	case string:
		return strconv.Quote(t)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = typed(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + typed(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

func describeError(err error) string {
	var ce *Error
	if !errors.As(err, &ce) {
		return "error (not *codec.Error): " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "error: %s\n", ce.Error())
	fmt.Fprintf(&b, "kind: %s\nstatus: %d %s\n", ce.Kind, ce.StatusCode(), ce.Reason())
	if ce.Document > 0 {
		fmt.Fprintf(&b, "document: %d\n", ce.Document)
	}
	if ce.Line > 0 {
		fmt.Fprintf(&b, "line: %d\n", ce.Line)
	}
	if ce.Path != "" {
		fmt.Fprintf(&b, "path: %s\n", ce.Path)
	}
	for _, v := range ce.Violations {
		fmt.Fprintf(&b, "violation: %s\n", v)
	}
	return b.String()
}

// TestDecodeGolden decodes every input under testdata/codec/decode. Files named stream-* go
// through DecodeStream, the others through Decode; allowdup-* set AllowDuplicates.
func TestDecodeGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(goldenRoot, "decode", "*"))
	require.NoError(t, err)
	count := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		count++
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			require.NoError(t, err)
			orig := slices.Clone(data)
			opts := Options{AllowDuplicates: strings.HasPrefix(name, "allowdup-")}
			var b strings.Builder
			if strings.HasPrefix(name, "stream-") {
				docs, err := opts.DecodeStream(data)
				if err != nil {
					b.WriteString(describeError(err))
				}
				for i, d := range docs {
					fmt.Fprintf(&b, "document %d (line %d): %s\n", i+1, d.Line, typed(d.Value))
					for _, w := range d.Warnings {
						fmt.Fprintf(&b, "warning: %s\n", w)
					}
				}
			} else {
				d, err := opts.Decode(data)
				if err != nil {
					b.WriteString(describeError(err))
				} else {
					fmt.Fprintf(&b, "value: %s\n", typed(d.Value))
					for _, w := range d.Warnings {
						fmt.Fprintf(&b, "warning: %s\n", w)
					}
					enc, err := EncodeJSON(d.Value)
					require.NoError(t, err)
					fmt.Fprintf(&b, "json: %s\n", enc)
				}
			}
			assert.Equal(t, orig, data, "input %s modified", name)
			checkGolden(t, in+".golden", b.String())
		})
	}
	require.NotZero(t, count)
}

// TestEncodeGolden encodes every input under testdata/codec/encode (decoded first) three ways.
func TestEncodeGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(goldenRoot, "encode", "*.in.*"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		name := filepath.Base(in)
		base := strings.SplitN(in, ".in.", 2)[0]
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			require.NoError(t, err)
			v, err := DecodeValue(data)
			require.NoError(t, err, "decoding %s", name)
			compact, err := EncodeJSON(v)
			require.NoError(t, err)
			indent, err := EncodeJSONIndent(v)
			require.NoError(t, err)
			y, err := EncodeYAML(v)
			require.NoError(t, err)
			checkGolden(t, base+".json.golden", string(compact)+"\n")
			checkGolden(t, base+".indent.golden", string(indent))
			checkGolden(t, base+".yaml.golden", string(y))
		})
	}
}
