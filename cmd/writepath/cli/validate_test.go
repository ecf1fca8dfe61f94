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

// TestValidateCLI runs `writepath validate` cases against testdata/schema/cli/<name>.golden
// (UPDATE_GOLDEN=1 rewrites them).
func TestValidateCLI(t *testing.T) {
	t.Chdir(repoRoot)
	const d = "testdata/schema/cli/"
	const now, uid = "2026-01-02T00:00:00Z", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90"
	cases := []cliCase{
		{"validate-help", []string{"validate", "--help"}, "", exitOK},
		{"validate-builtin", []string{"validate", "--now", now, "--uid", uid, "-f", "testdata/examples/deployment.yaml"}, "", exitOK},
		{"validate-builtin-invalid", []string{"validate", "--now", now, "--uid", uid, "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata: {generateName: p-, finalizers: [bad]}\nspec: {containers: [{name: Bad_Name, image: nginx, x: 1}]}\n", exitNegative},
		{"validate-builtin-generate-name", []string{"validate", "--now", now, "--uid", uid, "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: c-}\ndata: {a: b}\nbogus: 1\n", exitOK},
		{"validate-builtin-bad-level", []string{"validate", "--field-validation", "Loose", "-f", "testdata/examples/configmap.yaml"}, "", exitNegative},
		{"validate-missing-flags", []string{"validate", "-f", d + "widget.yaml"}, "", exitUsage},
		{"validate-create", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget.yaml"}, "", exitOK},
		{"validate-create-json", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget.yaml", "-o", "json"}, "", exitOK},
		{"validate-strict", []string{"validate", "--now", now, "--uid", uid, "--field-validation", "Strict", "--crd", d + "widget-crd.yaml", "-f", d + "widget-invalid.yaml"}, "", exitNegative},
		{"validate-warn", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget-invalid.yaml", "--field-validation", "Warn"}, "", exitNegative},
		{"validate-ignore", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget-invalid.yaml", "--field-validation", "Ignore"}, "", exitNegative},
		{"validate-update-ratcheting", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget-update.yaml", "--old", d + "widget-old.yaml"}, "", exitNegative},
		{"validate-status", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget-update.yaml", "--old", d + "widget-old.yaml", "--subresource", "status"}, "", exitOK},
		{"validate-status-no-old", []string{"validate", "--crd", d + "widget-crd.yaml", "-f", d + "widget-update.yaml", "--subresource", "status"}, "", exitUsage},
		{"validate-crontab", []string{"validate", "--now", now, "--uid", uid, "--crd", "testdata/examples/crontab-crd.yaml", "-f", "testdata/examples/crontab.yaml"}, "", exitOK},
		{"validate-wrong-kind", []string{"validate", "--crd", d + "widget-crd.yaml", "-f", "testdata/examples/crontab.yaml"}, "", exitUsage},
		{"validate-bad-level", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", d + "widget.yaml", "--field-validation", "Loose"}, "", exitNegative},
		{"validate-bad-crd", []string{"validate", "--crd", d + "widget.yaml", "-f", d + "widget.yaml"}, "", exitNegative},
		{"validate-bad-rule", []string{"validate", "--crd", d + "widget-bad-rule-crd.yaml", "-f", d + "widget.yaml"}, "", exitNegative},
		{"validate-old-crd", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-includes-crd.yaml", "--old-crd", d + "widget-includes-crd.yaml", "-f", d + "widget.yaml"}, "", exitOK},
		{"validate-old-crd-new-rule", []string{"validate", "--crd", d + "widget-includes-crd.yaml", "--old-crd", d + "widget-crd.yaml", "-f", d + "widget.yaml"}, "", exitNegative},
		{"validate-old-crd-missing", []string{"validate", "--crd", d + "widget-crd.yaml", "--old-crd", d + "nothing.yaml", "-f", d + "widget.yaml"}, "", exitUsage},
		{"validate-stdin", []string{"validate", "--now", now, "--uid", uid, "--crd", d + "widget-crd.yaml", "-f", "-"}, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\"},\"spec\":{\"size\":1}}", exitOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, c.exit, code, "exit code of %v; stderr: %s", c.args, stderr.String())
			got := fmt.Sprintf("$ writepath %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", quoteArgs(c.args), code, stdout.String(), stderr.String())
			golden := filepath.Join(d, c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}
