package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneObjectInputs: the verbs that write one object (validate, admit) read -f as every verb
// does: a kind: List holding it, a directory, several -f; more than one object is bad usage.
func TestOneObjectInputs(t *testing.T) {
	cm, err := os.ReadFile(repoRoot + "/" + ex + "configmap.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), cm, 0o600))
	t.Chdir(repoRoot)
	list := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
	for _, c := range []struct {
		args  []string
		stdin string
		exit  int
		want  string
	}{
		{[]string{"validate", "-f", "-"}, list, exitOK, "name: a"},
		{[]string{"validate", "-f", dir}, "", exitOK, "name: web-config"},
		{[]string{"validate", "-f", ex + "configmap.yaml", "-f", ex + "deployment.yaml"}, "", exitUsage, "want one object, got 2"},
		{[]string{"admit", "-f", "-"}, list, exitOK, "name: a"},
		{[]string{"admit", "-f", dir}, "", exitOK, "name: web-config"},
		{[]string{"admit", "-f", ex + "configmap.yaml", "-f", ex + "deployment.yaml"}, "", exitUsage, "want one object, got 2"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
		assert.Equal(t, c.exit, code, "%v: %s", c.args, stderr.String())
		assert.Contains(t, stdout.String()+stderr.String(), c.want, "%v", c.args)
	}
}

// TestPatchDryRun: patch --dry-run=server answers as the server answers dryRun=All (the
// resourceVersion stays the stored one); client is refused as apply --server-side refuses it.
func TestPatchDryRun(t *testing.T) {
	t.Chdir(repoRoot)
	args := []string{"patch", "-f", ex + "deployment.yaml", "--type", "merge", "-p", `{"spec":{"replicas":4}}`, "--now", "2026-01-01T00:00:00Z", "-o", "jsonpath={.metadata.resourceVersion} {.spec.replicas}"}
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run(args, nil, &stdout, &stderr), stderr.String())
	assert.Equal(t, "1536 4", stdout.String())
	stdout.Reset()
	require.Equal(t, exitOK, run(append(args, "--dry-run=server"), nil, &stdout, &stderr), stderr.String())
	assert.Equal(t, "1535 4", stdout.String())
	assert.Equal(t, exitUsage, run(append(args, "--dry-run=client"), nil, &stdout, &stderr))
}

// TestValidateFlag: kubectl's --validate (strict or true or bare, warn, ignore or false) sets
// the request's fieldValidation in apply --server-side and validate; another value is refused
// with kubectl's words.
func TestValidateFlag(t *testing.T) {
	t.Chdir(repoRoot)
	bad := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nbogus: 1\n"
	for _, c := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"validate", "-f", "-"}, exitOK, `Warning: unknown field "bogus"`},
		{[]string{"validate", "-f", "-", "--validate=warn"}, exitOK, `Warning: unknown field "bogus"`},
		{[]string{"validate", "-f", "-", "--validate"}, exitNegative, `strict decoding error: unknown field "bogus"`},
		{[]string{"validate", "-f", "-", "--validate=true"}, exitNegative, `strict decoding error: unknown field "bogus"`},
		{[]string{"validate", "-f", "-", "--validate=false"}, exitOK, "name: a"},
		{[]string{"validate", "-f", "-", "--validate=ignore"}, exitOK, "name: a"},
		{[]string{"apply", "--server-side", "-f", "-", "--validate=maybe"}, exitUsage,
			`error: invalid - validate option "maybe"; must be one of: strict (or true), warn, ignore (or false)`},
		{[]string{"apply", "-f", "-", "--dry-run=client"}, exitOK, "# created"},
		// Client-side apply sends its create through the request path: the server's warning, or
		// with --validate (kubectl's default, strict) the server's 400.
		{[]string{"apply", "-f", "-", "--dry-run=server"}, exitOK, `Warning: unknown field "bogus"`},
		{[]string{"apply", "-f", "-", "--validate"}, exitNegative, `strict decoding error: unknown field "bogus"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(bad), &stdout, &stderr)
		assert.Equal(t, c.exit, code, "%v: %s", c.args, stderr.String())
		assert.Contains(t, stdout.String()+stderr.String(), c.want, "%v", c.args)
		if c.want == "name: a" {
			assert.NotContains(t, stderr.String(), "Warning", "%v", c.args)
		}
	}
}
