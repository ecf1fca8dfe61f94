package admission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
)

// rejectedItem is one "path: Invalid value: "expr": detail" of the
// apiserver's refusal.
var rejectedItem = regexp.MustCompile(`(?s)^(\S+): Invalid value: ("(?:[^"\\]|\\.)*"): (.*)$`)

// TestRealClusterRejectedPolicies replays testdata/admission/typecheck/rejected-*.json: the
// real apiserver refused these policies because their expressions do not compile against the
// declared types of request and namespaceObject (or need authorizer in a messageExpression).
// writepath compiles each expression in the same environment to the same error.
func TestRealClusterRejectedPolicies(t *testing.T) {
	dir := filepath.Join("..", "testdata", "admission", "typecheck")
	b, err := os.ReadFile(filepath.Join(dir, "rejected.yaml"))
	require.NoError(t, err)
	docs, err := codec.DecodeDocuments(b)
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	checked := 0
	for _, doc := range docs {
		name := getString(doc, "metadata", "name")
		rb, err := os.ReadFile(filepath.Join(dir, "rejected-"+name+".json"))
		require.NoError(t, err)
		var rec struct{ Stderr string }
		require.NoError(t, json.Unmarshal(rb, &rec))
		p, err := compileVAP(doc)
		require.NoError(t, err)
		msg := rec.Stderr[strings.Index(rec.Stderr, " is invalid: ")+len(" is invalid: "):]
		items := strings.Split(strings.TrimPrefix(strings.TrimSpace(msg), "\n* "), "\n* ")
		if strings.HasPrefix(strings.TrimSpace(msg), "* ") {
			items = strings.Split(strings.TrimPrefix(strings.TrimSpace(msg), "* "), "\n* ")
		}
		listed := map[string]bool{}
		for _, item := range items {
			m := rejectedItem.FindStringSubmatch(strings.TrimRight(item, "\n"))
			require.NotNil(t, m, "item %q of %s", item, name)
			expr, err := strconv.Unquote(m[2])
			require.NoError(t, err)
			var got string
			idx := func(prefix string) int {
				i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(m[1], prefix), "]."+m[1][strings.LastIndex(m[1], ".")+1:]))
				require.NoError(t, err, m[1])
				return i
			}
			switch {
			case strings.HasPrefix(m[1], "spec.validations[") && strings.HasSuffix(m[1], ".messageExpression"):
				got = p.validations[idx("spec.validations[")].msgProg.Err
			case strings.HasPrefix(m[1], "spec.validations["):
				got = p.validations[idx("spec.validations[")].prog.Err
			case strings.HasPrefix(m[1], "spec.matchConditions["):
				got = p.conditions[idx("spec.matchConditions[")].prog.Err
			case strings.HasPrefix(m[1], "spec.variables["):
				got = p.varProgs[idx("spec.variables[")].Err
			default:
				t.Fatalf("unexpected path %s", m[1])
			}
			assert.Equal(t, strings.TrimRight(m[3], "\n"), got, "%s of %s (%s)", m[1], name, expr)
			listed[m[1]] = true
			checked++
		}
		// What the apiserver did not list compiles.
		for i, v := range p.validations {
			path := "spec.validations[" + strconv.Itoa(i) + "]"
			if !listed[path+".expression"] {
				assert.Empty(t, v.prog.Err, "%s.expression of %s", path, name)
			}
			if v.msgProg != nil && !listed[path+".messageExpression"] {
				assert.Empty(t, v.msgProg.Err, "%s.messageExpression of %s", path, name)
			}
		}
		for i, c := range p.conditions {
			if !listed["spec.matchConditions["+strconv.Itoa(i)+"].expression"] {
				assert.Empty(t, c.prog.Err, "matchConditions[%d] of %s", i, name)
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 8)
}
