package main

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

const admitCLI = "testdata/admission/cli/"
const recordedDir = "testdata/admission/realcluster/"

// admitCases are the admit runs, compared with testdata/admission/cli/<name>.golden
// (UPDATE_GOLDEN=1 rewrites them).
func admitCases() []cliCase {
	sc := func(name string) []string {
		return []string{"admit", "-f", recordedDir + name + "/object.yaml", "--policy", recordedDir + name + "/config.yaml"}
	}
	return []cliCase{
		{"admit-help", []string{"admit", "--help"}, "", exitOK},
		{"admit-no-file", []string{"admit"}, "", exitUsage},
		{"admit-bad-operation", []string{"admit", "-f", recordedDir + "denied/object.yaml", "--operation", "PATCH"}, "", exitUsage},
		{"admit-denied", sc("denied"), "", exitNegative},
		{"admit-warned", sc("warned"), "", exitOK},
		{"admit-audited", sc("audited"), "", exitOK},
		{"admit-param-missing", sc("param-missing-deny"), "", exitNegative},
		{"admit-param-used-json", append(sc("param-used"), "-o", "json"), "", exitNegative},
		{"admit-mutated-apply", sc("mutated-apply"), "", exitOK},
		{"admit-mutated-jsonpatch", sc("mutated-jsonpatch"), "", exitOK},
		{"admit-missing-namespace", []string{"admit", "-f", recordedDir + "missing-namespace/object.yaml", "--namespace", recordedDir + "denied/config.yaml"}, "", exitNegative},
		{"admit-update-stdin", []string{"admit", "-f", "-", "--old", recordedDir + "denied/object.yaml", "--policy", recordedDir + "denied/config.yaml"},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: wp-adm-denied}\ndata: {a: '1'}\n", exitOK},
		{"admit-invalid-metadata", []string{"admit", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name, namespace: default}\n", exitNegative},
	}
}

func TestAdmitCLI(t *testing.T) {
	t.Chdir("../..")
	for _, c := range admitCases() {
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
				require.NoError(t, os.MkdirAll(admitCLI, 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}
