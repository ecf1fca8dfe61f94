package main

import (
	"bytes"
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
