package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/writepath/writepath/internal/codec"
)

// TestNamespaceFlagOnEveryVerb: every verb that writes to, or picks an object in, a namespace
// takes kubectl's -n/--namespace.
func TestNamespaceFlagOnEveryVerb(t *testing.T) {
	for _, page := range [][]string{{"apply", "--help"}, {"apply", "--server-side", "--help"}, {"patch", "--help"},
		{"delete", "--help"}, {"why-stuck", "--help"}, {"validate", "--help"}, {"admit", "--help"},
		{"rollout", "--help"}, {"rollout", "undo", "--help"}} {
		var stdout, stderr bytes.Buffer
		run(page, nil, &stdout, &stderr)
		assert.Contains(t, stdout.String(), "  -n, --namespace NAMESPACE", "%v", page)
	}
}

const configMapNoNamespace = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\ndata: {a: '1'}\n"

// TestNamespaceFlag: -n puts an object without a namespace in it, and refuses one in another
// namespace with kubectl's error (exit 2), in each verb that sends a request.
func TestNamespaceFlag(t *testing.T) {
	t.Chdir(repoRoot)
	conflict := `error: the namespace from the provided object "default" does not match the namespace "other". You must pass '--namespace=default' to perform this operation.`
	checkArgvCases(t, []argvCase{
		{[]string{"apply", "--server-side", "-f", "-", "-n", "demo", "--now", "2026-01-01T00:00:00Z"}, configMapNoNamespace, exitOK, "namespace: demo"},
		{[]string{"apply", "--server-side", "-f", "testdata/apply/cli/web-config.yaml", "--namespace=other"}, "", exitUsage, conflict},
		{[]string{"apply", "--server-side", "-f", "testdata/apply/cli/web-config.yaml", "-n", "default", "--now", "2026-01-01T00:00:00Z"}, "", exitOK, "namespace: default"},
		{[]string{"apply", "-f", "-", "-ndemo"}, configMapNoNamespace, exitOK, "namespace: demo"},
		// client-side apply's -n keeps the meaning it had: another namespace is kept, not refused
		{[]string{"apply", "-f", "testdata/apply/cli/web-config.yaml", "-n", "other"}, "", exitOK, "namespace: default"},
		{[]string{"validate", "-f", "-", "-n", "demo"}, configMapNoNamespace, exitOK, "namespace: demo"},
		{[]string{"validate", "-f", "-"}, configMapNoNamespace, exitOK, "namespace: default"},
		{[]string{"validate", "-f", "testdata/apply/cli/web-config.yaml", "-n", "other"}, "", exitUsage, conflict},
		{[]string{"rollout", "undo", "-f", "testdata/examples/rollout-history.yaml", "-n", "default"}, "", exitOK, "kind: Deployment"},
		{[]string{"rollout", "undo", "-f", "testdata/examples/rollout-history.yaml", "-n", "other"}, "", exitUsage, "error: no Deployment given"},
		{[]string{"rollout", "-f", "testdata/examples/rollout.yaml", "-n", "default"}, "", exitOK, "Deployment default/web"},
	})
}

// TestRequireNamespaceCopies: requireNamespace leaves its input alone and skips cluster-scoped
// kinds.
func TestRequireNamespaceCopies(t *testing.T) {
	cm, err := codec.DecodeValue([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`))
	assert.NoError(t, err)
	ns, err := codec.DecodeValue([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}`))
	assert.NoError(t, err)
	in := []map[string]any{cm.(map[string]any), ns.(map[string]any), nil}
	out, err := requireNamespace(in, "demo", true, namespacedBuiltinOr(nil, true))
	assert.NoError(t, err)
	assert.Equal(t, "demo", out[0]["metadata"].(map[string]any)["namespace"])
	assert.NotContains(t, in[0]["metadata"].(map[string]any), "namespace", "input changed")
	assert.NotContains(t, out[1]["metadata"].(map[string]any), "namespace", "a Namespace is cluster-scoped")
	assert.Nil(t, out[2])
}

// argvCase is one command line: its stdin, its exit status, and a text its stdout holds (its
// stderr when the exit status is 2, usage).
type argvCase struct {
	args  []string
	stdin string
	exit  int
	want  string
}

// checkArgvCases runs each case and checks its exit status and output.
func checkArgvCases(t *testing.T, cases []argvCase) {
	t.Helper()
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
		assert.Equal(t, c.exit, code, "%v: %s", c.args, stderr.String())
		if c.exit == exitUsage {
			assert.Contains(t, stderr.String(), c.want, "%v", c.args)
		} else {
			assert.Contains(t, stdout.String(), c.want, "%v", c.args)
		}
	}
}
