package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const applyCLI = "testdata/apply/cli/"

// applyCases are the apply --server-side and owners runs, compared with
// testdata/apply/cli/<name>.golden (UPDATE_GOLDEN=1 rewrites them).
func applyCases() []cliCase {
	now := "--now=2026-01-02T00:00:00Z"
	return []cliCase{
		{"apply-ss-help", []string{"apply", "--server-side", "--help"}, "", exitOK},
		{"apply-help", []string{"apply", "--help"}, "", exitOK},
		{"apply-ss-create", []string{"apply", "--server-side", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", "-f", applyCLI + "web-config.yaml", "--field-manager", "alice", now}, "", exitOK},
		{"apply-ss-create-json", []string{"apply", "--server-side", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", "-f", applyCLI + "web-config.yaml", "--field-manager", "alice", now, "-o", "json"}, "", exitOK},
		{"apply-ss-hpa-conflict", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--live", applyCLI + "web-live.yaml", "--field-manager", "alice", now}, "", exitNegative},
		{"apply-ss-hpa-force", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--live", applyCLI + "web-live.yaml", "--field-manager", "alice", "--force-conflicts", now}, "", exitOK},
		{"apply-ss-hpa-shared", []string{"apply", "--server-side", "-f", applyCLI + "hpa-config.yaml", "--live", applyCLI + "web-live.yaml", "--field-manager", "bob", now}, "", exitNegative},
		{"apply-ss-status", []string{"apply", "--server-side", "--subresource", "status", "-f", "-", "--live", applyCLI + "web-live.yaml", "--field-manager", "ctrl", now},
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default, labels: {x: \"z\"}}\nspec: {replicas: 1}\nstatus: {replicas: 5}\n", exitOK},
		{"apply-ss-wrong-kind", []string{"apply", "--server-side", "-f", "-", "--live", applyCLI + "web-live.yaml", now},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n", exitNegative},
		{"apply-ss-duplicates", []string{"apply", "--server-side", "-f", "-", now},
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: \"x\"}, {name: a, image: \"w\"}]}\n", exitNegative},
		{"apply-ss-managedfields", []string{"apply", "--server-side", "-f", "-", now},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, managedFields: []}\n", exitNegative},
		{"apply-ss-empty-manager", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--field-manager", "", now}, "", exitNegative},
		{"apply-ss-custom-resource", []string{"apply", "--server-side", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", "-f", "-", now},
			"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {list: [1, 2], size: 3}\n", exitOK},
		{"apply-ss-crd", []string{"apply", "--server-side", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", "--crd", "testdata/apply/recorded/widget-crd.yaml", "-f", "-", "--field-manager", "alice", now},
			"apiVersion: apply.writepath.example/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {replicas: 2, args: [a], config: {k: v}}\nstatus: {phase: dropped}\n", exitOK},
		{"apply-ss-crd-wrong-kind", []string{"apply", "--server-side", "--crd", "testdata/apply/recorded/widget-crd.yaml", "-f", applyCLI + "web-config.yaml", now}, "", exitUsage},
		{"apply-ss-bad-now", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--now", "yesterday"}, "", exitUsage},
		{"apply-ss-no-file", []string{"apply", "--server-side"}, "", exitUsage},
		{"apply-ss-scale-no-live", []string{"apply", "--server-side", "--subresource", "scale", "-f", applyCLI + "web-config.yaml", now}, "", exitUsage},
		{"apply-ss-scale-self-conflict", []string{"apply", "--server-side", "--subresource", "scale", "-f", "-", "--live", applyCLI + "web-live.yaml", "--field-manager", "horizontal-pod-autoscaler", now},
			"apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: default}\nspec: {replicas: 9}\n", exitNegative},
		{"apply-ss-scale-same-value", []string{"apply", "--server-side", "--subresource", "scale", "-f", "-", "--live", applyCLI + "web-live.yaml", "--field-manager", "keda", now},
			"apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: default}\nspec: {replicas: 5}\n", exitOK},
		{"apply-ss-scale-conflict", []string{"apply", "--server-side", "--subresource", "scale", "-f", "-", "--live", applyCLI + "web-live.yaml", "--field-manager", "alice", now},
			"apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: default}\nspec: {replicas: 9}\n", exitNegative},
		{"apply-ss-dry-run-create", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--field-manager", "alice", "--dry-run", "--uid", "0b8f5a3e-3c1d-4a57-9d0e-2f4b6c8a1e90", now}, "", exitOK},
		{"apply-ss-uid-without-dry-run", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--uid", "u", now}, "", exitOK},
		{"apply-ss-dry-run-update", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--live", applyCLI + "web-live.yaml", "--field-manager", "alice", "--force-conflicts", "--dry-run=server", now}, "", exitOK},
		{"apply-ss-dry-run-conflict", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--live", applyCLI + "web-live.yaml", "--field-manager", "alice", "--dry-run=server", now}, "", exitNegative},
		{"apply-ss-dry-run-client", []string{"apply", "--server-side", "-f", applyCLI + "web-config.yaml", "--dry-run=client", now}, "", exitUsage},
		// pod-live.json is the Pending pod recorded by testdata/apply/recorded/record-pod-dryrun.sh.
		{"apply-ss-pod-resize", []string{"apply", "--server-side", "--subresource", "resize", "-f", "-", "--live", applyCLI + "pod-live.json", "--field-manager", "vpa", "--force-conflicts", "--dry-run", now},
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: z}}\nspec:\n  containers:\n  - {name: c, image: \"pause:3.9\", resources: {requests: {cpu: 120m}, limits: {cpu: 200m}}}\n", exitOK},
		{"apply-ss-pod-resize-invalid", []string{"apply", "--server-side", "--subresource", "resize", "-f", "-", "--live", applyCLI + "pod-live.json", "--field-manager", "vpa", "--force-conflicts", now},
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, resources: {requests: {cpu: 300m, ephemeral-storage: 1Gi}, limits: {cpu: 250m}}}\n", exitNegative},
		{"apply-ss-pod-ephemeral", []string{"apply", "--server-side", "--subresource", "ephemeralcontainers", "-f", "-", "--live", applyCLI + "pod-live.json", "--field-manager", "debugger", now},
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  ephemeralContainers:\n  - {name: dbg, image: busybox}\nstatus: {message: ignored}\n", exitOK},
		{"owners-help", []string{"owners", "--help"}, "", exitOK},
		{"owners-table", []string{"owners", "-f", applyCLI + "web-live.yaml"}, "", exitOK},
		{"owners-field", []string{"owners", "-f", applyCLI + "web-live.yaml", "--field", ".spec.replicas"}, "", exitOK},
		{"owners-subtree", []string{"owners", "-f", applyCLI + "web-live.yaml", "--field", "spec.template"}, "", exitOK},
		{"owners-bad-entry", []string{"owners", "-f", "-"},
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  managedFields:\n  - {manager: m, operation: Patch, apiVersion: v1, fieldsType: FieldsV1, fieldsV1: {}}\n", exitUsage},
		{"owners-rename", []string{"owners", "-f", applyCLI + "web-live.yaml", "--rename", "alice=bob", now}, "", exitOK},
		{"owners-rename-config", []string{"owners", "-f", applyCLI + "web-live.yaml", "--rename", "alice=bob", "--config", applyCLI + "web-config.yaml", now}, "", exitOK},
		{"owners-rename-new-image", []string{"owners", "-f", applyCLI + "web-live.yaml", "--rename", "alice=bob", "--config", "-", now},
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default, labels: {app: web}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: app, image: \"nginx:1.28\"}]}\n", exitOK},
		{"owners-rename-not-an-applier", []string{"owners", "-f", applyCLI + "web-live.yaml", "--rename", "horizontal-pod-autoscaler=hpa", now}, "", exitOK},
		{"owners-rename-bad", []string{"owners", "-f", applyCLI + "web-live.yaml", "--rename", "alice"}, "", exitUsage},
		{"owners-rename-flags-alone", []string{"owners", "-f", applyCLI + "web-live.yaml", "--config", applyCLI + "web-config.yaml"}, "", exitUsage},
		{"owners-none", []string{"owners", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", exitOK},
	}
}

func TestApplyCLI(t *testing.T) {
	t.Chdir(repoRoot)
	for _, c := range applyCases() {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			assert.Equal(t, c.exit, code, "exit code of %v; stderr: %s", c.args, stderr.String())
			got := fmt.Sprintf("$ writepath %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", quoteArgs(c.args), code, stdout.String(), stderr.String())
			if c.stdin != "" {
				got = "--- stdin\n" + c.stdin + "\n" + got
			}
			golden := filepath.Join(applyCLI, c.name+".golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got, "golden %s", golden)
		})
	}
}

// TestApplyDryRunRecorded runs `apply --server-side --dry-run` on the dryRun=All requests
// recorded from the real apiserver (testdata/apply/recorded/dryrun) and compares the printed
// object with the recorded answer (a create's uid, random in the apiserver, is injected with
// --uid) and, for the Deployment, the fields built-in defaulting adds (metadata and
// managedFields are compared).
func TestApplyDryRunRecorded(t *testing.T) {
	t.Chdir(repoRoot)
	dir := "testdata/apply/recorded/dryrun/"
	type rec struct {
		Path     string         `json:"path"`
		Manager  string         `json:"manager"`
		DryRun   bool           `json:"dryRun"`
		Body     string         `json:"body"`
		Code     int            `json:"code"`
		Response map[string]any `json:"response"`
	}
	read := func(name string) rec {
		data, err := os.ReadFile(dir + name)
		require.NoError(t, err)
		var r rec
		require.NoError(t, json.Unmarshal(data, &r))
		return r
	}
	cases := []struct{ step, live string }{
		{"00-create-dry.json", ""},
		{"03-update-dry.json", "02-create.json"},
		{"04-noop-dry.json", "02-create.json"},
		{"05-conflict-dry.json", "02-create.json"},
		{"07-deployment-create-dry.json", ""},
		{"10-deployment-update-dry.json", "09-get-deployment.json"},
	}
	for _, c := range cases {
		r := read(c.step)
		require.True(t, r.DryRun, c.step)
		var body map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.Body), &body))
		// kubectl sends the namespace of the request path.
		body["metadata"].(map[string]any)["namespace"] = strings.Split(r.Path, "/")[len(strings.Split(r.Path, "/"))-3]
		config, err := json.Marshal(body)
		require.NoError(t, err)
		args := []string{"apply", "--server-side", "-f", "-", "--field-manager", r.Manager, "--dry-run=server", "-o", "json"}
		if c.live != "" {
			live, err := json.Marshal(read(c.live).Response)
			require.NoError(t, err)
			f := filepath.Join(t.TempDir(), "live.json")
			require.NoError(t, os.WriteFile(f, live, 0o644))
			args = append(args, "--live", f)
		}
		var now string
		if mf, ok := r.Response["metadata"].(map[string]any)["managedFields"].([]any); ok {
			for _, e := range mf {
				if tm, _ := e.(map[string]any)["time"].(string); tm > now {
					now = tm
				}
			}
		}
		if now != "" {
			args = append(args, "--now", now)
		}
		if c.live == "" && r.Code < 300 {
			args = append(args, "--uid", r.Response["metadata"].(map[string]any)["uid"].(string))
		}
		var stdout, stderr bytes.Buffer
		code := run(args, bytes.NewReader(config), &stdout, &stderr)
		if r.Code == 409 {
			assert.Equal(t, exitNegative, code, c.step)
			assert.Contains(t, stderr.String(), "error: "+r.Response["message"].(string), c.step)
			continue
		}
		require.Equal(t, exitOK, code, "%s: %s", c.step, stderr.String())
		var got map[string]any
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), c.step)
		want := r.Response
		gmd, wmd := got["metadata"].(map[string]any), want["metadata"].(map[string]any)
		if c.live == "" {
			assert.NotEmpty(t, wmd["uid"], c.step)
			assert.Nil(t, wmd["resourceVersion"], "%s: a dry-run create has no resourceVersion", c.step)
		}
		if want["kind"] == "Deployment" {
			got, want = map[string]any{"metadata": gmd}, map[string]any{"metadata": wmd}
		}
		assert.Equal(t, want, got, c.step)
	}
}
