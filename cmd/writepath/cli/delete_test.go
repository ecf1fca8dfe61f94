package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteAndWhyStuck runs the gc verbs against testdata/gc/cli/*.golden (UPDATE_GOLDEN=1
// rewrites them).
func TestDeleteAndWhyStuck(t *testing.T) {
	t.Chdir(repoRoot)
	const dir = "testdata/gc/cli/"
	now := "--now=2026-11-29T12:00:00Z"
	cases := []cliCase{
		{"delete-help", []string{"delete", "--help"}, "", exitOK},
		{"delete-foreground", []string{"delete", "-f", dir + "deployment.yaml", "deployment/web", "-n", "demo", "--cascade=foreground", now}, "", exitOK},
		{"delete-background", []string{"delete", "-f", dir + "deployment.yaml", "deployments/web", now}, "", exitOK},
		{"delete-orphan-yaml", []string{"delete", "-f", dir + "deployment.yaml", "Deployment/web", "--cascade=orphan", "-o", "yaml", now}, "", exitOK},
		{"delete-pod-dry-run", []string{"delete", "-f", dir + "deployment.yaml", "pod/web-7d4b9c-a", "--dry-run", now}, "", exitOK},
		{"delete-no-gc", []string{"delete", "-f", dir + "deployment.yaml", "deployment/web", "--controllers=", now}, "", exitOK},
		{"delete-namespace-json", []string{"delete", "-f", dir + "stuck-namespace.yaml", "namespace/team-a", "-o", "json", now}, "", exitOK},
		{"delete-not-found", []string{"delete", "-f", dir + "deployment.yaml", "deployment/nope", now}, "", exitNegative},
		{"delete-bad-cascade", []string{"delete", "-f", dir + "deployment.yaml", "deployment/web", "--cascade=sideways"}, "", exitUsage},
		{"delete-bad-target", []string{"delete", "-f", dir + "deployment.yaml", "web"}, "", exitUsage},
		{"delete-no-uid", []string{"delete", "-f", "-", "configmap/a", now}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n", exitOK},
		{"delete-owner-without-uid", []string{"delete", "-f", "-", "configmap/a", now}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x, uid: u}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x, ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: a}]}\n", exitUsage},
		// The DELETE goes through the request path: a ValidatingAdmissionPolicy on DELETE refuses it
		// (the policy reads oldObject, the object being deleted), and a uid precondition that does
		// not match is the 409.
		{"delete-denied-by-policy", []string{"delete", "-f", dir + "delete-guarded.yaml", "configmap/keep", now}, "", exitNegative},
		{"delete-allowed-by-policy", []string{"delete", "-f", dir + "delete-guarded.yaml", "configmap/scratch", now}, "", exitOK},
		{"why-stuck-help", []string{"why-stuck", "--help"}, "", exitOK},
		{"why-stuck-namespace", []string{"why-stuck", "-f", dir + "stuck-namespace.yaml", "namespace/team-a", now}, "", exitNegative},
		{"why-stuck-namespace-known", []string{"why-stuck", "-f", dir + "stuck-namespace.yaml", "namespace/team-a", "--known=example.com", "-o", "yaml", now}, "", exitNegative},
		{"why-stuck-not-deleting", []string{"why-stuck", "-f", dir + "deployment.yaml", "replicaset/web-7d4b9c", now}, "", exitNegative},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, c.exit, code, "exit code of %v; stderr: %s", c.args, stderr.String())
			got := fmt.Sprintf("$ writepath %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", quoteArgs(c.args), code, stdout.String(), stderr.String())
			if c.stdin != "" {
				got = "--- stdin\n" + c.stdin + "\n" + got
			}
			golden := filepath.Join(dir, c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}
