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

// TestSchemaExplainGolden runs `writepath schema explain` cases and compares stdout, stderr and
// the exit code with testdata/schema-explain/<case>.txt (UPDATE_GOLDEN=1 rewrites them).
func TestSchemaExplainGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"deployment-containers", []string{"explain", "deployments.apps", "spec.template.spec.containers"}},
		{"deployment-ports", []string{"explain", "deploy", "spec.template.spec.containers.ports"}},
		{"pod-volumes-yaml", []string{"explain", "pod", "spec.volumes", "-o", "yaml"}},
		{"pod-tolerations", []string{"explain", "Pod", "spec.tolerations"}},
		{"service-ports-json", []string{"explain", "svc", "spec.ports", "-o", "json"}},
		{"pod-topology-spread", []string{"explain", "pods", "spec.topologySpreadConstraints"}},
		{"deployment-strategy", []string{"explain", "deployments.v1.apps", ".spec.strategy"}},
		{"labels-value", []string{"explain", "configmap", "metadata.labels.app"}},
		{"root", []string{"explain", "namespaces"}},
		{"events-core-first", []string{"explain", "events", "involvedObject"}},
		{"events-api-version", []string{"explain", "events", "regarding", "--api-version", "events.k8s.io/v1"}},
		{"crd-versions", []string{"explain", "customresourcedefinitions.apiextensions.k8s.io", "spec.versions"}},
		{"scale", []string{"explain", "Scale", "spec.replicas"}},
		{"unknown-kind", []string{"explain", "widgets"}},
		{"unknown-field", []string{"explain", "deployments.apps", "spec.replica"}},
		{"no-kind", []string{"explain"}},
		{"no-subcommand", nil},
		{"bad-api-version", []string{"explain", "pods", "--api-version", "a/b/c"}},
		{"help", []string{"explain", "--help"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, verb: "schema"}
			code := runSchema(e, tc.args)
			got := "$ writepath schema " + strings.Join(tc.args, " ") + "\n" +
				"exit: " + string(rune('0'+code)) + "\n--- stdout\n" + stdout.String() + "--- stderr\n" + stderr.String()
			path := filepath.Join("testdata", "schema-explain", tc.name+".txt")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "writepath schema %v", tc.args)
		})
	}
}

// TestSchemaExplainCRDCLI runs `writepath schema explain --crd` cases against
// testdata/schema/cli/<name>.golden (UPDATE_GOLDEN=1 rewrites them).
func TestSchemaExplainCRDCLI(t *testing.T) {
	t.Chdir(repoRoot)
	const d = "testdata/schema/cli/"
	gadget := d + "gadget-crd.yaml"
	cases := []cliCase{
		{"explain-crd-root", []string{"schema", "explain", "--crd", gadget, "gadgets"}, "", exitOK},
		{"explain-crd-set", []string{"schema", "explain", "--crd", gadget, "gd", "spec.tags"}, "", exitOK},
		{"explain-crd-atomic-list", []string{"schema", "explain", "gadget", "spec.args", "--crd", gadget}, "", exitOK},
		{"explain-crd-list-map", []string{"schema", "explain", "--crd", gadget, "Gadget", ".spec.ports"}, "", exitOK},
		{"explain-crd-list-map-yaml", []string{"schema", "explain", "--crd", gadget, "gadgets.example.com", "spec.ports", "-o", "yaml"}, "", exitOK},
		{"explain-crd-default", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.ports.protocol"}, "", exitOK},
		{"explain-crd-atomic-map", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.selector"}, "", exitOK},
		{"explain-crd-map-key", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.selector.matchLabels.app"}, "", exitOK},
		{"explain-crd-int-or-string", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.limits.cpu", "-o", "json"}, "", exitOK},
		{"explain-crd-nullable-default", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.window"}, "", exitOK},
		{"explain-crd-format", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.window.start"}, "", exitOK},
		{"explain-crd-embedded", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.template"}, "", exitOK},
		{"explain-crd-embedded-metadata", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.template.metadata.labels"}, "", exitOK},
		{"explain-crd-preserved", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.template.spec"}, "", exitNegative},
		{"explain-crd-metadata", []string{"schema", "explain", "--crd", gadget, "gadgets", "metadata.ownerReferences"}, "", exitOK},
		{"explain-crd-api-version", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec", "--api-version", "example.com/v2alpha1"}, "", exitOK},
		{"explain-crd-unserved-version", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.old", "--api-version", "v1beta1"}, "", exitOK},
		{"explain-crd-missing-version", []string{"schema", "explain", "--crd", gadget, "gadgets", "--api-version", "v3"}, "", exitNegative},
		{"explain-crd-wrong-group", []string{"schema", "explain", "--crd", gadget, "gadgets", "--api-version", "other.com/v1"}, "", exitUsage},
		{"explain-crd-unknown-field", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.nope"}, "", exitNegative},
		{"explain-crd-scalar", []string{"schema", "explain", "--crd", gadget, "gadgets", "spec.ports.port.x"}, "", exitNegative},
		{"explain-crd-wrong-kind", []string{"schema", "explain", "--crd", gadget, "widgets"}, "", exitNegative},
		{"explain-crd-other-group", []string{"schema", "explain", "--crd", gadget, "gadgets.other.com"}, "", exitNegative},
		{"explain-crd-widget-status", []string{"schema", "explain", "--crd", d + "widget-crd.yaml", "widgets", "status"}, "", exitOK},
		{"explain-crd-invalid-crd", []string{"schema", "explain", "--crd", d + "widget-bad-rule-crd.yaml", "widgets"}, "", exitNegative},
		{"explain-crd-missing-file", []string{"schema", "explain", "--crd", d + "nope.yaml", "widgets"}, "", exitUsage},
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
