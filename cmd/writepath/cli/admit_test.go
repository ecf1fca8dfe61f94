package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
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
		// --namespace-object is the file of Namespace objects; --namespace FILE (above) its old spelling.
		{"admit-namespace-object", []string{"admit", "-f", recordedDir + "missing-namespace/object.yaml", "--namespace-object", recordedDir + "denied/config.yaml"}, "", exitNegative},
		// -n is the request namespace: an object without one is in it, one in another is refused.
		{"admit-namespace-flag", []string{"admit", "-f", "-", "-ndemo"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\n", exitOK},
		{"admit-namespace-default", []string{"admit", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\n", exitOK},
		// a kind admit cannot place (no --crd) is left without a namespace unless -n names one
		{"admit-namespace-unknown-kind", []string{"admit", "-f", "-"}, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", exitOK},
		{"admit-namespace-conflict", append(sc("denied"), "--namespace", "other"), "", exitUsage},
		{"admit-update-stdin", []string{"admit", "-f", "-", "--old", recordedDir + "denied/object.yaml", "--policy", recordedDir + "denied/config.yaml"},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: wp-adm-denied}\ndata: {a: '1'}\n", exitOK},
		{"admit-equivalent-crd", []string{"admit", "-f", "testdata/admission/realcluster-equivalent/object.yaml", "--crd", admitCLI + "equivalent-crd.yaml",
			"--policy", admitCLI + "equivalent-policy.yaml"}, "", exitOK},
		{"admit-equivalent-hpa", []string{"admit", "-f", "testdata/admission/realcluster-equivalent/hpa/object.yaml",
			"--policy", admitCLI + "equivalent-hpa-policy.yaml"}, "", exitOK},
		// The typed round trip before admission: the ConfigMap's data: null is gone when the
		// policy reads the object, so has(object.data) is false and the create is admitted.
		{"admit-typed-roundtrip", []string{"admit", "-f", "-", "--policy", admitCLI + "typed-roundtrip-policy.yaml"},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: default}\ndata: null\n", exitOK},
		{"admit-typed-roundtrip-denied", []string{"admit", "-f", "-", "--policy", admitCLI + "typed-roundtrip-policy.yaml"},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: default}\ndata: {a: \"1\"}\n", exitNegative},
		{"admit-invalid-metadata", []string{"admit", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name, namespace: default}\n", exitNegative},
	}
}

// TestAdmitNamespaceAmbiguous: a --namespace value that names an existing file and is a valid
// namespace name could be either spelling; admit refuses it (exit 2) and names both.
func TestAdmitNamespaceAmbiguous(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("demo", []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n"), 0o600))
	var stdout, stderr bytes.Buffer
	code := run([]string{"admit", "-f", "-", "--namespace", "demo"}, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\n"), &stdout, &stderr)
	assert.Equal(t, exitUsage, code, stderr.String())
	assert.Contains(t, stderr.String(), `"demo" is both a namespace name and a file: give the namespace with -n demo or the file of Namespace objects with --namespace-object demo`)
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"admit", "-f", "-", "--namespace-object", "demo", "-n", "demo"}, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\n"), &stdout, &stderr)
	assert.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stdout.String(), "namespace: demo")
}

func TestAdmitCLI(t *testing.T) {
	t.Chdir(repoRoot)
	for _, c := range admitCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.exit != exitUsage && c.args[len(c.args)-1] != "--help" {
				// The server's draws, fixed: the clock and the created object's uid.
				c.args = append(append([]string(nil), c.args...), "--now", "2026-01-02T03:04:05Z", "--uid", "0f1e2d3c-4b5a-4678-9abc-def012345678")
			}
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

// TestAdmitWebhookURL runs admit with --webhook-url against an HTTPS test
// webhook whose certificate the configuration's caBundle trusts.
func TestAdmitWebhookURL(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&review))
		req := review["request"].(map[string]any)
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"response": map[string]any{"uid": req["uid"], "allowed": false, "status": map[string]any{"code": 403, "message": "not today"}}})
	}))
	defer srv.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	dir := t.TempDir()
	cfg := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: gate}
webhooks:
- name: gate.example.com
  clientConfig: {service: {namespace: default, name: gate}, caBundle: %s}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`, ca)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gate.yaml"), []byte(cfg), 0o644))
	var stdout, stderr bytes.Buffer
	code := run([]string{"admit", "-f", "-", "--policy", filepath.Join(dir, "gate.yaml"), "--webhook-url", srv.URL + "/validate"},
		strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: default}\n"), &stdout, &stderr)
	assert.Equal(t, exitNegative, code, stderr.String())
	assert.Equal(t, "Error from server: admission webhook \"gate.example.com\" denied the request: not today\n", stderr.String())
}

// TestAdmitConversionWebhook: a policy registered for v1 of a CRD whose strategy is Webhook sees a
// request made through v2 as the CRD's conversion webhook converts it (matchPolicy Equivalent):
// the webhook moves spec.knob to spec.level, which the policy reads.
func TestAdmitConversionWebhook(t *testing.T) {
	calls := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		var review map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&review))
		req := review["request"].(map[string]any)
		var out []any
		for _, o := range req["objects"].([]any) {
			obj := o.(map[string]any)
			obj["apiVersion"] = req["desiredAPIVersion"]
			if spec, ok := obj["spec"].(map[string]any); ok && req["desiredAPIVersion"] == "ex.com/v1" {
				spec["level"] = spec["knob"]
				delete(spec, "knob")
			} else if ok {
				spec["knob"] = spec["level"]
				delete(spec, "level")
			}
			out = append(out, obj)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
			"response": map[string]any{"uid": req["uid"], "result": map[string]any{"status": "Success"}, "convertedObjects": out}})
	}))
	defer srv.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	dir := t.TempDir()
	crd := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: dials.ex.com}
spec:
  group: ex.com
  scope: Namespaced
  names: {plural: dials, singular: dial, kind: Dial, listKind: DialList}
  conversion:
    strategy: Webhook
    webhook:
      clientConfig: {url: %q, caBundle: %s}
      conversionReviewVersions: [v1]
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {level: {type: string}}}}}}
  - name: v2
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {knob: {type: string}}}}}}
`, srv.URL+"/convert", ca)
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: level}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [ex.com], apiVersions: [v1], operations: [CREATE], resources: [dials]}]
  validations: [{expression: "object.spec.level == 'high'", message: level must be high}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: level-binding}
spec: {policyName: level, validationActions: [Deny]}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(crd), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o644))
	admit := func(knob string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run([]string{"admit", "-f", "-", "--crd", filepath.Join(dir, "crd.yaml"), "--policy", filepath.Join(dir, "policy.yaml")},
			strings.NewReader("apiVersion: ex.com/v2\nkind: Dial\nmetadata: {name: d, namespace: default}\nspec: {knob: "+knob+"}\n"), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, _, stderr := admit("low")
	assert.Equal(t, exitNegative, code, stderr)
	assert.Equal(t, "The dials \"d\" is invalid: : ValidatingAdmissionPolicy 'level' with binding 'level-binding' denied request: level must be high\n", stderr)
	code, stdout, stderr := admit("high")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "apiVersion: ex.com/v2")
	assert.Contains(t, stdout, "knob: high")
	// The denied write: one conversion to v1 for the policy. The admitted one: that one, then
	// the object converted to the storage version (v1) and read back through v2, as the
	// apiserver's storage codec converts it (a dry run too).
	assert.Equal(t, 4, calls, "one conversion to v1 per admission, two for storage")
}
