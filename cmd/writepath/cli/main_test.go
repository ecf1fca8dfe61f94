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

// cliCase is one run of the command, compared with testdata/cli/<name>.golden
// (UPDATE_GOLDEN=1 rewrites the golden files). Arguments are relative to the
// repository root, where the tests run.
type cliCase struct {
	name  string
	args  []string
	stdin string
	exit  int
}

const ex = "testdata/examples/"

// repoRoot is the repository root seen from this package's directory: the tests run
// there (t.Chdir(repoRoot)) so that arguments read as the README shows them.
const repoRoot = "../../.."

func cliCases() []cliCase {
	return []cliCase{
		// framework
		{"no-args", nil, "", exitUsage},
		{"help", []string{"--help"}, "", exitOK},
		{"help-verb", []string{"help", "rv"}, "", exitOK},
		{"unknown-verb", []string{"frobnicate"}, "", exitUsage},
		{"bad-flag", []string{"version", "--bogus"}, "", exitUsage},
		{"bad-output", []string{"version", "-o", "wide"}, "", exitUsage},
		// version
		{"version", []string{"version"}, "", exitOK},
		{"version-help", []string{"version", "--help"}, "", exitOK},
		{"version-json", []string{"version", "-o", "json"}, "", exitOK},
		// rv
		{"rv-help", []string{"rv", "--help"}, "", exitOK},
		{"rv-missing", []string{"rv"}, "", exitUsage},
		{"rv-compare", []string{"rv", "compare", "99", "100"}, "", exitOK},
		{"rv-compare-help", []string{"rv", "compare", "-h"}, "", exitOK},
		{"rv-compare-equal", []string{"rv", "compare", "123456789012345678901234567890", "123456789012345678901234567890"}, "", exitOK},
		{"rv-compare-greater-yaml", []string{"rv", "compare", "-o", "yaml", "1000", "999"}, "", exitOK},
		{"rv-compare-leading-zero", []string{"rv", "compare", "0100", "100"}, "", exitUsage},
		{"rv-compare-empty", []string{"rv", "compare", "", "1"}, "", exitUsage},
		{"rv-compare-equality", []string{"rv", "compare", "--comparator", "equality", "etag-1", "etag-2"}, "", exitOK},
		{"rv-compare-one-arg", []string{"rv", "compare", "1"}, "", exitUsage},
		{"rv-compare-bad-comparator", []string{"rv", "compare", "--comparator", "lexical", "1", "2"}, "", exitUsage},
		{"rv-check-ok", []string{"rv", "check", "-f", ex + "deployment.yaml", "-f", ex + "deployment-scaled.yaml"}, "", exitOK},
		{"rv-check-stale", []string{"rv", "check", "-f", ex + "deployment.yaml", "-f", ex + "deployment-stale.yaml"}, "", exitNegative},
		{"rv-check-crd-no-rv", []string{"rv", "check", "-f", ex + "crontab.yaml", "-f", "-"}, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec: {}\n", exitNegative},
		{"rv-check-crd-file", []string{"rv", "check", "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "-f", "-"}, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\n  resourceVersion: \"1\"\nspec: {}\n", exitNegative},
		{"rv-check-configmap-no-rv", []string{"rv", "check", "-f", ex + "configmap.yaml", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n", exitOK},
		{"rv-check-not-a-number", []string{"rv", "check", "-f", ex + "configmap.yaml", "-f", "-"}, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config","resourceVersion":"abc"}}`, exitNegative},
		{"rv-check-wrong-uid", []string{"rv", "check", "-f", ex + "configmap.yaml", "-f", "-"}, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config","uid":"x"}}`, exitNegative},
		// rollout
		{"rollout-help", []string{"rollout", "--help"}, "", exitOK},
		{"rollout-step", []string{"rollout", "-f", ex + "rollout.yaml", "--to", ex + "rollout-new-image.yaml", "--ready", "step"}, "", exitOK},
		{"rollout-now", []string{"rollout", "-f", ex + "rollout.yaml", "--to", ex + "rollout-new-image.yaml"}, "", exitOK},
		{"rollout-never", []string{"rollout", "-f", ex + "rollout.yaml", "--to", ex + "rollout-new-image.yaml", "--ready", "never"}, "", exitOK},
		{"rollout-settled", []string{"rollout", "-f", ex + "rollout.yaml"}, "", exitOK},
		{"rollout-bad-ready", []string{"rollout", "-f", ex + "rollout.yaml", "--ready", "soon"}, "", exitUsage},
		{"rollout-no-deployment", []string{"rollout", "-f", ex + "configmap.yaml"}, "", exitUsage},
		{"rollout-undo", []string{"rollout", "undo", "-f", ex + "rollout-history.yaml"}, "", exitOK},
		{"rollout-undo-same", []string{"rollout", "undo", "-f", ex + "rollout-history.yaml", "--to-revision", "2"}, "", exitNegative},
		{"rollout-undo-missing", []string{"rollout", "undo", "-f", ex + "rollout-history.yaml", "--to-revision", "9"}, "", exitNegative},
		// generation
		{"generation-help", []string{"generation", "--help"}, "", exitOK},
		{"generation-readme", []string{"generation", "-f", ex + "deployment.yaml", "-f", ex + "deployment-scaled.yaml"}, "", exitOK},
		{"generation-scale", []string{"generation", "--subresource", "scale", "-f", ex + "deployment.yaml", "-f", ex + "scale.yaml"}, "", exitOK},
		{"generation-scale-full-object", []string{"generation", "--subresource", "scale", "-f", ex + "deployment.yaml", "-f", ex + "deployment-new-image.yaml"}, "", exitOK},
		{"generation-status", []string{"generation", "--subresource", "status", "-f", ex + "deployment.yaml", "-f", ex + "deployment-scaled.yaml"}, "", exitOK},
		{"generation-history", []string{"generation", "-f", ex + "deployment.yaml", "-f", ex + "deployment-labeled.yaml", "-f", ex + "deployment-new-image.yaml"}, "", exitOK},
		{"generation-history-json", []string{"generation", "-o", "json", "-f", ex + "deployment.yaml", "-f", ex + "deployment-labeled.yaml", "-f", ex + "deployment-new-image.yaml"}, "", exitOK},
		{"generation-stale", []string{"generation", "-f", ex + "deployment.yaml", "-f", ex + "deployment-stale.yaml"}, "", exitNegative},
		{"generation-create", []string{"generation", "-f", ex + "deployment.yaml"}, "", exitOK},
		{"generation-configmap", []string{"generation", "-f", ex + "configmap.yaml", "-f", ex + "configmap-edited.yaml"}, "", exitOK},
		{"generation-crd-guess", []string{"generation", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitOK},
		{"generation-crd-file", []string{"generation", "--crd", ex + "crontab-crd.yaml", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml", "-f", ex + "crontab-rescheduled.yaml"}, "", exitOK},
		{"generation-crd-status-flag", []string{"generation", "--crd-status-subresource", "--subresource", "status", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitOK},
		{"generation-crd-no-status", []string{"generation", "--subresource", "status", "-f", ex + "crontab.yaml", "-f", ex + "crontab-status.yaml"}, "", exitUsage},
		{"generation-configmap-scale", []string{"generation", "--subresource", "scale", "-f", ex + "configmap.yaml", "-f", ex + "configmap-edited.yaml"}, "", exitUsage},
		{"generation-stdin-multidoc", []string{"generation", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, generation: 1, resourceVersion: \"5\"}\nspec: {containers: [{name: c, image: a}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, resourceVersion: \"5\"}\nspec: {containers: [{name: c, image: b}]}\n", exitOK},
		{"generation-delete", []string{"generation", "--delete", "-f", ex + "deployment.yaml"}, "", exitOK},
		{"generation-delete-configmap", []string{"generation", "--delete", "-o", "yaml", "-f", ex + "configmap.yaml"}, "", exitOK},
		{"generation-delete-two", []string{"generation", "--delete", "-f", ex + "deployment.yaml", "-f", ex + "deployment-scaled.yaml"}, "", exitUsage},
		{"generation-pod-binding", []string{"generation", "--subresource", "binding", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, generation: 1, resourceVersion: \"5\"}\nspec: {containers: [{name: c, image: a}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, resourceVersion: \"5\"}\nspec: {nodeName: n1, containers: [{name: c, image: a}]}\n", exitOK},
		{"generation-other-object", []string{"generation", "-f", ex + "deployment.yaml", "-f", ex + "configmap.yaml"}, "", exitUsage},
		{"generation-stored-without-rv", []string{"generation", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n", exitUsage},
		{"generation-rules", []string{"generation", "--rules"}, "", exitOK},
		{"generation-no-files", []string{"generation"}, "", exitUsage},
		{"generation-missing-file", []string{"generation", "-f", ex + "nope.yaml"}, "", exitUsage},
		{"generation-malformed", []string{"generation", "-f", "-"}, "apiVersion: v1\nkind: [\n", exitUsage},
		{"generation-duplicate-key", []string{"generation", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nkind: ConfigMap\nmetadata: {name: x}\n", exitUsage},
		{"generation-no-kind", []string{"generation", "-f", "-"}, "metadata: {name: x}\n", exitUsage},
		{"generation-bad-generation", []string{"generation", "-f", "-"}, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, generation: many, resourceVersion: \"1\"}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, resourceVersion: \"1\"}\n", exitUsage},
		{"generation-stdin-twice", []string{"generation", "-f", "-", "-f", "-"}, "", exitUsage},
		{"generation-extra-arg", []string{"generation", "-f", ex + "deployment.yaml", "extra"}, "", exitUsage},
		// kubectl's conventions: flag spellings, inputs, resource arguments (issue 19)
		{"kubectl-filename-long", []string{"generation", "--filename", ex + "deployment.yaml", "--filename=" + ex + "deployment-scaled.yaml", "-oyaml"}, "", exitOK},
		{"kubectl-go-flag-spellings", []string{"generation", "--f", ex + "deployment.yaml", "-f", ex + "deployment-scaled.yaml", "-subresource", "status"}, "", exitOK},
		{"kubectl-dir", []string{"generation", "-f", "testdata/cli/inputs/dir/"}, "", exitOK},
		{"kubectl-dir-recursive", []string{"generation", "-R", "-f", "testdata/cli/inputs/dir"}, "", exitOK},
		{"kubectl-dir-empty", []string{"generation", "-f", "testdata/cli/inputs/no-objects"}, "", exitUsage},
		{"kubectl-url", []string{"generation", "-f", "https://example.com/deployment.yaml"}, "", exitUsage},
		{"kubectl-flag-needs-value", []string{"generation", "-f"}, "", exitUsage},
		{"kubectl-unknown-shorthand", []string{"generation", "-x"}, "", exitUsage},
		{"kubectl-delete-list", []string{"delete", "-f", "testdata/cli/inputs/gc-list.yaml", "deploy/web", "-ndemo"}, "", exitOK},
		{"kubectl-delete-type-name", []string{"delete", "deployments.apps", "web", "--namespace=demo", "--filename", "testdata/cli/inputs/gc-list.yaml", "--cascade=orphan", "--now", "2026-12-01T10:00:00Z"}, "", exitOK},
		{"kubectl-delete-short-name", []string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "cm/web-config", "-n", "demo", "--dry-run"}, "", exitOK},
		{"kubectl-delete-wrong-group", []string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deploy.batch/web", "-n", "demo"}, "", exitNegative},
		{"kubectl-delete-three-args", []string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deploy", "web", "extra"}, "", exitUsage},
		{"kubectl-why-stuck-short-name", []string{"why-stuck", "-f", "testdata/gc/cli/deployment.yaml", "po", "web-7d4b9c-b", "-n", "demo"}, "", exitNegative},
		{"kubectl-patch-type-name", []string{"patch", "deploy/web", "--type", "merge", "-p", `{"spec":{"replicas":3}}`, "-f", "testdata/gc/cli/deployment.yaml", "-n", "demo", "-o", "name", "--now", "2026-12-01T10:00:00Z"}, "", exitOK},
		{"kubectl-apply-client-side-false", []string{"apply", "--client-side=false", "-f", "testdata/apply/cli/web-config.yaml", "--now", "2026-01-02T00:00:00Z", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", "-o", "name"}, "", exitOK},
		{"kubectl-force-conflicts-client-side", []string{"apply", "-f", "testdata/apply/cli/web-config.yaml", "--force-conflicts"}, "", exitUsage},
		{"kubectl-output-name-report", []string{"version", "-o", "name"}, "", exitUsage},
		{"kubectl-refused-status-json", []string{"apply", "--server-side", "-f", "testdata/apply/cli/web-config.yaml", "--live", "testdata/apply/cli/web-live.yaml", "--field-manager", "hpa-bot", "--now", "2026-01-02T00:00:00Z", "-o", "json"}, "", exitNegative},
		{"kubectl-refused-status-yaml", []string{"apply", "--server-side", "-f", "testdata/apply/cli/web-config.yaml", "--live", "testdata/apply/cli/web-live.yaml", "--field-manager", "hpa-bot", "--now", "2026-01-02T00:00:00Z", "-oyaml"}, "", exitNegative},
		{"kubectl-live-without-managed-fields", []string{"apply", "--server-side", "-f", ex + "deployment-scaled.yaml", "--live", ex + "deployment.yaml", "--now", "2026-12-01T10:00:00Z", "-o", "name"}, "", exitNegative},
		{"kubectl-owners-without-managed-fields", []string{"owners", "-f", ex + "deployment.yaml"}, "", exitOK},
		{"kubectl-delete-dry-run-server", []string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deploy/web", "-n", "demo", "--dry-run=server", "--now", "2026-12-01T10:00:00Z"}, "", exitOK},
		{"kubectl-delete-dry-run-client", []string{"delete", "-f", "testdata/gc/cli/deployment.yaml", "deploy/web", "-n", "demo", "--dry-run=client"}, "", exitUsage},
		{"kubectl-rv-compare-malformed", []string{"rv", "compare", "10", "abc"}, "", exitUsage},
		// request
		{"request-help", []string{"request", "--help"}, "", exitOK},
		{"request-scale", []string{"request", "--state", ex + "deployment.yaml", "-d", `{"spec":{"replicas":5}}`, "--now", "2026-12-01T10:00:00Z", "PATCH", "/apis/apps/v1/namespaces/versions-examples/deployments/web/scale?fieldManager=hpa"}, "", exitOK},
		{"request-decode-error", []string{"request", "--state", ex + "deployment.yaml", "-d", `{"spec":{"replicas":"five"}}`, "--now", "2026-12-01T10:00:00Z", "PATCH", "/apis/apps/v1/namespaces/versions-examples/deployments/web"}, "", exitNegative},
		{"request-crd-create", []string{"request", "--state", ex + "crontab-crd.yaml", "-H", "Content-Type: application/yaml", "-d", `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: hourly}, spec: {cronSpec: "0 * * * *", replicas: 2}}`, "--now", "2026-12-01T10:00:00Z", "POST", "/apis/stable.example.com/v1/namespaces/versions-examples/crontabs"}, "", exitOK},
		{"request-apply-dry-run-yaml", []string{"request", "--state", ex + "configmap.yaml", "-H", "Content-Type: application/apply-patch+yaml", "-d", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config"},"data":{"mode":"fast"}}`, "-o", "yaml", "--now", "2026-12-01T10:00:00Z", "PATCH", "/api/v1/namespaces/versions-examples/configmaps/web-config?fieldManager=me&dryRun=All"}, "", exitOK},
		{"request-create-generate-name", []string{"request", "-H", "Content-Type: application/yaml", "--data-file", "-", "--now", "2026-12-01T10:00:00Z", "--user", "jane", "--group", "devs", "POST", "/api/v1/namespaces/demo/configmaps"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: cfg-}\ndata: {a: \"1\"}\n", exitOK},
		{"request-missing-namespace", []string{"request", "--implicit-namespaces=false", "-d", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, "--now", "2026-12-01T10:00:00Z", "POST", "/api/v1/namespaces/demo/configmaps"}, "", exitNegative},
		{"request-get-not-found", []string{"request", "--state", ex + "configmap.yaml", "GET", "/api/v1/namespaces/versions-examples/configmaps/nope"}, "", exitNegative},
		{"request-no-url", []string{"request", "GET"}, "", exitUsage},
		{"request-bad-header", []string{"request", "-H", "Content-Type", "GET", "/api/v1/namespaces"}, "", exitUsage},
		{"request-data-and-file", []string{"request", "-d", "{}", "--data-file", "x.json", "POST", "/api/v1/namespaces"}, "", exitUsage},
		{"request-missing-state", []string{"request", "--state", ex + "nope.yaml", "GET", "/api/v1/namespaces"}, "", exitUsage},
	}
}

func TestCLI(t *testing.T) {
	t.Chdir(repoRoot)
	for _, c := range cliCases() {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, c.exit, code, "exit code of %v; stderr: %s", c.args, stderr.String())
			got := fmt.Sprintf("$ writepath %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", quoteArgs(c.args), code, stdout.String(), stderr.String())
			if c.stdin != "" {
				got = "--- stdin\n" + c.stdin + "\n" + got
			}
			golden := filepath.Join("testdata", "cli", c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}

// TestGoldenFilesHaveCases keeps testdata/cli free of stale files.
func TestGoldenFilesHaveCases(t *testing.T) {
	names := map[string]bool{}
	for _, c := range cliCases() {
		assert.False(t, names[c.name], "duplicate case %s", c.name)
		names[c.name] = true
	}
	files, err := filepath.Glob(repoRoot + "/testdata/cli/*.golden")
	require.NoError(t, err)
	for _, f := range files {
		assert.True(t, names[strings.TrimSuffix(filepath.Base(f), ".golden")], "golden file without a case: %s", f)
	}
}

// TestVerbsTable checks every verb answers --help with exit 0 on stdout.
func TestVerbsTable(t *testing.T) {
	for _, v := range verbs() {
		var stdout, stderr bytes.Buffer
		code := run([]string{v.name, "--help"}, nil, &stdout, &stderr)
		assert.Equal(t, exitOK, code, v.name)
		assert.Contains(t, stdout.String(), "Usage:\n  writepath "+v.name, v.name)
		assert.Empty(t, stderr.String(), v.name)
	}
}

// FuzzRun feeds arbitrary standard input to the verbs that read objects: no
// panic, and the exit code is one of the three documented.
func FuzzRun(f *testing.F) {
	f.Add("apiVersion: v1\nkind: Pod\nmetadata: {name: p, generation: 1, resourceVersion: \"5\"}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, resourceVersion: \"5\"}\nspec: {}\n", uint8(0))
	f.Add(`{"apiVersion":"x/v1","kind":"X","metadata":{"name":"a","resourceVersion":"1"}}{"apiVersion":"x/v1","kind":"X","metadata":{"name":"a"}}`, uint8(1))
	argSets := [][]string{
		{"generation", "-f", "-"},
		{"generation", "--subresource", "status", "--crd-status-subresource", "-f", "-"},
		{"generation", "--subresource", "scale", "-f", "-"},
		{"generation", "--delete", "-o", "json", "-f", "-"},
		{"rv", "check", "-f", "-"},
	}
	f.Fuzz(func(t *testing.T, stdin string, pick uint8) {
		var stdout, stderr bytes.Buffer
		code := run(argSets[int(pick)%len(argSets)], strings.NewReader(stdin), &stdout, &stderr)
		if code != exitOK && code != exitNegative && code != exitUsage {
			t.Fatalf("exit code %d", code)
		}
		if code != exitOK && stderr.Len() == 0 {
			t.Fatalf("exit code %d without a message", code)
		}
	})
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
