package cli

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCRDRepeatable: --crd is repeatable (the CRD of the object's kind is the one used), and a
// CRD among the -f objects that defines another -f object's kind counts as one, in every verb
// that takes --crd.
func TestCRDRepeatable(t *testing.T) {
	t.Chdir(repoRoot)
	crontab, err := os.ReadFile(ex + "crontab.yaml")
	require.NoError(t, err)
	crd, err := os.ReadFile(ex + "crontab-crd.yaml")
	require.NoError(t, err)
	const widgets = "testdata/conversion/widgets-crd.yaml"
	crAndCRD := string(crd) + "\n---\n" + string(crontab)
	checkArgvCases(t, []argvCase{
		{[]string{"generation", "--crd", widgets, "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitOK,
			"custom resources with a status subresource"},
		{[]string{"generation", "-f", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitOK,
			"custom resources with a status subresource"},
		{[]string{"generation", "--crd", widgets, "--crd", widgets, "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitUsage,
			`no CustomResourceDefinition among the 2 given (--crd, -f) defines CronTab in group "stable.example.com"`},
		{[]string{"schema", "explain", "--crd", widgets, "--crd", ex + "crontab-crd.yaml", "crontabs", "spec"}, "", exitOK, "VERSION:        stable.example.com/v1"},
		{[]string{"validate", "--crd", widgets, "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml"}, "", exitOK, "kind: CronTab"},
		{[]string{"apply", "--server-side", "-f", "-", "--live", ex + "crontab.yaml", "--now", "2026-01-01T00:00:00Z"}, crAndCRD, exitOK, "kind: CronTab"},
		{[]string{"apply", "--server-side", "--crd", widgets, "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "--live", ex + "crontab.yaml", "--now", "2026-01-01T00:00:00Z"}, "", exitOK, "kind: CronTab"},
		{[]string{"patch", "-f", "-", "--type", "merge", "-p", `{"spec":{"cronSpec":"1 2 * * *"}}`}, crAndCRD, exitOK, "cronSpec: 1 2 * * *"},
		{[]string{"rv", "check", "--crd", widgets, "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "-f", ex + "crontab.yaml"}, "", exitOK, "update accepted"},
	})
}

// TestTakeCRDs: a CRD is taken out of the objects only when another object is of its kind.
func TestTakeCRDs(t *testing.T) {
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget", "plural": "widgets"}}}
	w := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}
	rest, crds := takeCRDs([]map[string]any{crd, w}, nil)
	assert.Equal(t, []map[string]any{w}, rest)
	assert.Equal(t, []map[string]any{crd}, crds)
	rest, crds = takeCRDs([]map[string]any{crd, crd}, nil)
	assert.Len(t, rest, 2, "a CRD asked about itself stays an object")
	assert.Empty(t, crds)
}
