package cluster_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/cluster"
)

// deepCRDBody is testdata/schema/realcluster/deep/gen.py: a CRD whose spec schema nests depth
// levels of properties (or of items), byte for byte the body recorded.
func deepCRDBody(depth int, items bool, name string) string {
	var b strings.Builder
	open, close := `{"type":"object","properties":{"a":`, `}}`
	if items {
		open, close = `{"type":"array","items":`, `}`
	}
	b.WriteString(strings.Repeat(open, depth))
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat(close, depth))
	plural, kind := name+"s", strings.ToUpper(name[:1])+name[1:]
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural +
		`.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"` + plural + `","singular":"` + name +
		`","kind":"` + kind + `","listKind":"` + kind + `List"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":` +
		b.String() + `}}}}]}}`
}

// TestDeepCRDsAsRecorded replays testdata/schema/realcluster/deep: CRDs nested past 1000 levels
// are accepted up to the decoder's 10000 nested values and refused past it with the
// apiserver's words. Where kube-apiserver ran into its 60 s request timeout (504: thousands of
// levels of items take it that long) writepath, which has no request timeout, stores the CRD.
func TestDeepCRDsAsRecorded(t *testing.T) {
	b, err := os.ReadFile("../testdata/schema/realcluster/deep/answers.txt")
	require.NoError(t, err)
	c := start(t, cluster.Options{})
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 5)
		require.Len(t, f, 5, line)
		depth, err := strconv.Atoi(f[2])
		require.NoError(t, err)
		recorded, err := strconv.Atoi(f[3])
		require.NoError(t, err)
		t.Run(f[0], func(t *testing.T) {
			code, st, _ := c.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", deepCRDBody(depth, f[1] == "items", f[0]))
			switch recorded {
			case 504:
				assert.Equal(t, 201, code, "%s %d: %v", f[1], depth, st["message"])
			case 201:
				assert.Equal(t, 201, code, "%s %d: %v", f[1], depth, st["message"])
			default:
				assert.Equal(t, recorded, code, "%s %d", f[1], depth)
				assert.Equal(t, f[4], st["message"], "%s %d", f[1], depth)
			}
		})
	}
}

// TestBodyParseErrorsAsRecorded replays testdata/schema/realcluster/deep/parse-errors.txt: a
// body that is not JSON is refused with the JSON decoder's own words, no line number.
func TestBodyParseErrorsAsRecorded(t *testing.T) {
	b, err := os.ReadFile("../testdata/schema/realcluster/deep/parse-errors.txt")
	require.NoError(t, err)
	c := start(t, cluster.Options{})
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 4, line)
		var body, want string
		require.NoError(t, json.Unmarshal([]byte(f[2]), &body))
		require.NoError(t, json.Unmarshal([]byte(f[3]), &want))
		code, st, _ := c.do(f[0], f[1], "application/json", body)
		assert.Equal(t, 400, code, "case %d %q", i, body)
		assert.Equal(t, want, st["message"], "case %d %q", i, body)
	}
}
