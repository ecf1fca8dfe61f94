package cli

import (
	"bytes"
	"strings"
	"testing"
)

// argvFuzzVerbs are the verbs FuzzVerbArgv drives: every verb (serve stops once it answers,
// runServeOnce).
func argvFuzzVerbs() []string {
	var out []string
	for _, v := range verbs() {
		out = append(out, v.name)
	}
	return out
}

// argvFuzzAllowed drops the arguments that would leave the sandbox of a test: the network
// (--webhook-url, --ca-bundle) and device files, which read without end.
func argvFuzzAllowed(a string) bool {
	return !strings.Contains(a, "webhook-url") && !strings.Contains(a, "ca-bundle") && !strings.Contains(a, "/dev/") && !strings.Contains(a, "/proc/")
}

// FuzzVerbArgv runs a verb (serve too, stopped once it answers) with random arguments (NUL-separated in the input; the verb picked
// by the first byte) from the repository root. Never a panic; the exit status is 0, 1 or 2;
// bad usage (2) says why on stderr in one "error: " line followed by the pointer to --help;
// unreadable input (2) in one line too, but for a decoder's error, which keeps the YAML
// parser's own line breaks as kubectl prints them (after the warnings, if any, of what it read first).
func FuzzVerbArgv(f *testing.F) {
	f.Add(uint8(0), "-o\x00wide")
	f.Add(uint8(2), "-f\x00testdata/examples/deployment.yaml\x00-f\x00testdata/examples/deployment-scaled.yaml\x00-oyaml")
	f.Add(uint8(2), "--filename=testdata/examples/\x00-R\x00--subresource\x00scale")
	f.Add(uint8(3), "--server-side\x00-f\x00testdata/apply/cli/web-config.yaml\x00--force-conflicts\x00--dry-run=maybe")
	f.Add(uint8(3), "--client-side=false\x00-f\x00-\x00-n")
	f.Add(uint8(4), "deploy/web\x00--type\x00merge\x00-p\x00{\x00-f\x00testdata/gc/cli/deployment.yaml")
	f.Add(uint8(5), "-f\x00testdata/examples/crontab.yaml\x00-f\x00testdata/examples/crontab-status.yaml\x00-o\x00name")
	f.Add(uint8(10), "--crd\x00testdata/examples/crontab-crd.yaml\x00-f\x00testdata/examples/crontab.yaml\x00--to")
	f.Add(uint8(11), "deployments.apps\x00web\x00-ndemo\x00-f\x00testdata/gc/cli/deployment.yaml\x00--cascade=sideways")
	f.Add(uint8(1), "compare\x00-crd\x00--\x0010\x00abc")
	f.Add(uint8(7), "explain\x00deploy\x00spec.template.spec.containers.ports\x00-o")
	f.Add(uint8(12), "--state\x00testdata/examples/configmap.yaml\x00GET\x00/api/v1/namespaces/versions-examples/configmaps/web-config\x00-H\x00x")
	f.Add(uint8(15), "undo\x00-f\x00testdata/examples/rollout-history.yaml\x00--to-revision\x00-3")
	f.Add(uint8(8), "-f\x00testdata/examples/deployment.yaml\x00-o\x00jsonpath={range .spec.template.spec.containers[*]}{.name}{end}")
	f.Add(uint8(6), "-f\x00testdata/apply/cli/web-live.yaml\x00-o\x00go-template={{index .fields 9}}\x00--allow-missing-template-keys=false")
	f.Add(uint8(9), "-f\x00-\x00--namespace\x00x\x00--namespace-object\x00testdata/examples/configmap.yaml\x00--validate")
	f.Add(uint8(14), "-f\x00testdata/examples/crontab-crd.yaml\x00--port\x0099999\x00-v")
	f.Add(uint8(14), "-f\x00testdata/examples/crontab.yaml\x00--kubeconfig\x00x.kubeconfig")
	names := argvFuzzVerbs()
	f.Fuzz(func(t *testing.T, pick uint8, argv string) {
		verb := names[int(pick)%len(names)]
		args := []string{verb}
		for _, a := range strings.Split(argv, "\x00") {
			if argvFuzzAllowed(a) {
				args = append(args, a)
			}
		}
		if len(args) > 24 {
			args = args[:24]
		}
		t.Chdir(repoRoot)
		var stdout, stderr bytes.Buffer
		code := runServeOnce(t.TempDir(), args, strings.NewReader(""), &stdout, &stderr)
		switch code {
		case exitOK, exitNegative:
		case exitUsage:
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			for len(lines) > 1 && strings.HasPrefix(lines[0], "Warning: ") {
				lines = lines[1:] // the warnings of what was read before the error
			}
			usage := len(lines) == 2 && strings.HasPrefix(lines[1], "See 'writepath ")
			if !strings.HasPrefix(lines[0], "error: ") || len(lines) > 1 && !usage && !strings.Contains(lines[0], "error parsing") {
				t.Fatalf("%q: exit 2 without a one-line reason: %q", args, stderr.String())
			}
		default:
			t.Fatalf("%q: exit code %d", args, code)
		}
	})
}
