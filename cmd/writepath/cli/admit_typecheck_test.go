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

// TestAdmitTypeCheckCLI runs admit --type-check, compared with
// testdata/admission/cli/<name>.golden (UPDATE_GOLDEN=1 rewrites them).
func TestAdmitTypeCheckCLI(t *testing.T) {
	t.Chdir(repoRoot)
	cases := []cliCase{
		{"admit-type-check", []string{"admit", "--type-check", "--policy", "testdata/admission/typecheck/policies.yaml"}, "", exitNegative},
		{"admit-type-check-clean-json", []string{"admit", "--type-check", "-o", "json", "--policy", "-"},
			"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: ok}\nspec:\n  matchConstraints:\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]\n  validations: [{expression: 'object.spec.replicas <= 5'}]\n", exitOK},
		{"admit-type-check-no-policy", []string{"admit", "--type-check"}, "", exitUsage},
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
			golden := filepath.Join(admitCLI, c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}
