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

// TestOutputFormats: -o takes kubectl's formats in every verb that prints objects (templates
// too), wide where the verb prints a table, and refuses the others with kubectl's words.
func TestOutputFormats(t *testing.T) {
	t.Chdir(repoRoot)
	dir := t.TempDir()
	tmplFile := filepath.Join(dir, "name.jsonpath")
	require.NoError(t, os.WriteFile(tmplFile, []byte(`{.metadata.name}`), 0o600))
	gtFile := filepath.Join(dir, "name.tmpl")
	require.NoError(t, os.WriteFile(gtFile, []byte(`{{.metadata.name}}`), 0o600))
	dep := ex + "deployment.yaml"
	for _, c := range []struct {
		args   []string
		exit   int
		stdout string // equal, when exit is not 2
		stderr string // contained
	}{
		{[]string{"validate", "-f", dep, "-o", `jsonpath={.metadata.name}{"\n"}`}, exitOK, "web\n", ""},
		{[]string{"validate", "-f", dep, "-ojsonpath={.spec.template.spec.containers[*].name}"}, exitOK, "web", ""},
		{[]string{"validate", "-f", dep, "--output=jsonpath-file=" + tmplFile}, exitOK, "web", ""},
		{[]string{"validate", "-f", dep, "-o", "jsonpath-as-json={.metadata.name}"}, exitOK, "[\n    \"web\"\n]\n", ""},
		{[]string{"validate", "-f", dep, "-o", "jsonpath", "--template", "{.kind}"}, exitOK, "Deployment", ""},
		{[]string{"validate", "-f", dep, "-o", `go-template={{.metadata.name}} {{.spec.replicas}}`}, exitOK, "web 3", ""},
		{[]string{"validate", "-f", dep, "-o", "go-template-file=" + gtFile}, exitOK, "web", ""},
		{[]string{"validate", "-f", dep, "--template", `{{.kind}}`}, exitOK, "Deployment", ""},
		{[]string{"validate", "-f", dep, "-o", `go-template={{.nope}}`}, exitOK, "<no value>", ""},
		{[]string{"validate", "-f", dep, "-o", `go-template={{if exists . "metadata" "name"}}yes{{end}}`}, exitOK, "yes", ""},
		{[]string{"validate", "-f", dep, "-o", "name"}, exitOK, "deployment.apps/web\n", ""},
		{[]string{"validate", "-f", dep, "-o", "jsonpath={.metadata.name"}, exitUsage, "", "error: error parsing jsonpath {.metadata.name, unclosed action\n"},
		{[]string{"validate", "-f", dep, "-o", "go-template={{.a"}, exitUsage, "", "error: error parsing template {{.a, template: output:1: unclosed action\n"},
		{[]string{"validate", "-f", dep, "-o", "jsonpath"}, exitUsage, "", "error: template format specified but no template given\n"},
		{[]string{"validate", "-f", dep, "-o", "jsonpath={.nope}", "--allow-missing-template-keys=false"}, exitNegative, "",
			"error: error executing jsonpath \"{.nope}\": Error executing template: nope is not found. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.nope}\n"},
		{[]string{"validate", "-f", dep, "-o", "wide"}, exitUsage, "", `error: unable to match a printer suitable for the output format "wide", allowed formats are: ` + objectFormats + "\n"},
		{[]string{"validate", "-f", dep, "-o", "bogus"}, exitUsage, "", `error: unable to match a printer suitable for the output format "bogus", allowed formats are: ` + objectFormats + "\n"},
		{[]string{"owners", "-f", "testdata/apply/cli/web-live.yaml", "-o", "bogus"}, exitUsage, "", `allowed formats are: ` + objectFormats + ",wide\n"},
		{[]string{"owners", "-f", "testdata/apply/cli/web-live.yaml", "-o", "name"}, exitOK, "deployment.apps/web\n", ""},
		{[]string{"owners", "-f", "testdata/apply/cli/web-live.yaml", "--field", ".spec.replicas", "-o", `jsonpath={.fields[*].owners[*].manager} {.fields[*].owners[*].subresource}`}, exitOK, "horizontal-pod-autoscaler scale", ""},
		{[]string{"owners", "-f", "testdata/apply/cli/web-live.yaml", "--field", ".spec.replicas", "-o", "json"}, exitOK, `{
    "fields": [
        {
            "owners": [
                {
                    "apiVersion": "apps/v1",
                    "manager": "horizontal-pod-autoscaler",
                    "operation": "Update",
                    "subresource": "scale",
                    "time": "2026-01-01T06:00:00Z"
                }
            ],
            "path": ".spec.replicas"
        }
    ],
    "object": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "web",
        "namespace": "default"
    }
}
`, ""},
		{[]string{"generation", "-f", dep, "-f", ex + "deployment-scaled.yaml", "-o", "wide"}, exitUsage, "", "error: -o wide goes with --rules"},
		{[]string{"rv", "check", "-f", dep, "-f", ex + "deployment-scaled.yaml", "-o", "jsonpath={.accepted} {.resourceVersion}"}, exitOK, "true 1535", ""},
		{[]string{"rv", "compare", "9", "10", "-o", "jsonpath={.result}"}, exitOK, "-1", ""},
		{[]string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deployment/web", "-n", "demo", "-o", "name"}, exitOK, "deployment.apps/web\n", ""},
		{[]string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deployment/web", "-n", "demo", "-o", "jsonpath={.removed[*].name}"}, exitOK, "web web-7d4b9c web-7d4b9c-a web-config", ""},
		{[]string{"why-stuck", "-f", "testdata/gc/cli/stuck-namespace.yaml", "namespace/team-a", "-o", "jsonpath={.blockers[*].ref.name}"}, exitNegative, "orders", ""},
		{[]string{"rollout", "-f", ex + "rollout.yaml", "--to", ex + "rollout-new-image.yaml", "-o", "jsonpath={.items[0].status.updatedReplicas}/{.items[0].spec.replicas} {.items[*].kind}"}, exitOK,
			"4/4 Deployment ReplicaSet ReplicaSet Pod Pod Pod Pod", ""},
		{[]string{"why-stuck", "-f", "testdata/gc/cli/stuck-namespace.yaml", "namespace/team-a", "-o", "name"}, exitNegative, "database.example.com/orders\n", ""},
		{[]string{"diff", "-f", dep, "-f", ex + "deployment-scaled.yaml", "-o", "jsonpath={.spec.replicas}"}, exitNegative, "5", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, c.exit, code, "%v: %s", c.args, stderr.String())
		if c.exit != exitUsage {
			assert.Equal(t, c.stdout, stdout.String(), "%v", c.args)
		}
		assert.Contains(t, stderr.String(), c.stderr, "%v", c.args)
	}
}

// TestOutputWideTables: -o wide adds columns to the tables: owners' SHARED WITH, generation
// --rules' KIND and RULE.
func TestOutputWideTables(t *testing.T) {
	t.Chdir(repoRoot)
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"owners", "-f", "testdata/apply/cli/web-live.yaml", "-o", "wide"}, nil, &stdout, &stderr), stderr.String())
	header, _, _ := strings.Cut(stdout.String(), "\n")
	assert.Regexp(t, `^MANAGER +OPERATION +APIVERSION +TIME +SUBRESOURCE +FIELDS +SHARED WITH$`, header)
	stdout.Reset()
	require.Equal(t, exitOK, run([]string{"generation", "--rules", "-o", "wide"}, nil, &stdout, &stderr), stderr.String())
	header, rest, _ := strings.Cut(stdout.String(), "\n")
	assert.Regexp(t, `GENERATION BUMPED BY +KIND +RULE$`, header)
	assert.Regexp(t, `(?m)^deployments\.apps .* Deployment +\S`, rest)
}
