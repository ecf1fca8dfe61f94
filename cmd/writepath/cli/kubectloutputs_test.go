package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
)

// kubectlOutputs is testdata/cli/kubectl/outputs.json: kubectl 1.37's flags and printers
// (python3 testdata/cli/kubectl/record_outputs.py).
type kubectlOutputs struct {
	Kubectl string `json:"kubectl"`
	Flags   map[string][]struct {
		Name      string `json:"name"`
		Shorthand string `json:"shorthand"`
	} `json:"flags"`
	Objects map[string]json.RawMessage `json:"objects"`
	Diff    []struct {
		File string `json:"file"`
		Exit int    `json:"exit"`
	} `json:"diff"`
	Printers []struct {
		Object string   `json:"object"`
		Args   []string `json:"args"`
		Exit   int      `json:"exit"`
		Stdout string   `json:"stdout"`
		Stderr string   `json:"stderr"`
	} `json:"printers"`
}

func readKubectlOutputs(t *testing.T) kubectlOutputs {
	data, err := os.ReadFile(repoRoot + "/testdata/cli/kubectl/outputs.json")
	require.NoError(t, err)
	var rec kubectlOutputs
	require.NoError(t, json.Unmarshal(data, &rec))
	require.Equal(t, "v1.37.2", rec.Kubectl)
	return rec
}

// TestKubectlPrintersRecorded prints the objects kubectl built (kubectl create ...
// --dry-run=client -o json) with the -o arguments kubectl was given, through the flags and
// printer every writepath verb uses: the same output (JSON compared by meaning: kubectl orders a
// typed object's fields as its Go struct, writepath sorts them), and where kubectl refuses, a
// refusal with the same error line. Exit status: kubectl's 1 for a bad -o is writepath's usage
// status 2 (doc.go); a template that fails while printing is 1 in both.
func TestKubectlPrintersRecorded(t *testing.T) {
	rec := readKubectlOutputs(t)
	require.NotEmpty(t, rec.Printers)
	for _, c := range rec.Printers {
		obj, err := codec.DecodeValue(rec.Objects[c.Object])
		require.NoError(t, err)
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, verb: "validate"}
		f := e.flags("validate", "", "")
		var o output
		f.Var(&o, "o", "output format")
		code, ok := f.parse(c.Args)
		if ok {
			if err := e.printValue(o, obj); err != nil {
				code = e.fail(err)
			}
		}
		name := c.Object + " " + strings.Join(c.Args, " ")
		if c.Exit == 0 {
			require.Equal(t, exitOK, code, "%s: %s", name, stderr.String())
			if o == "json" {
				assert.JSONEq(t, c.Stdout, stdout.String(), name)
			} else {
				assert.Equal(t, c.Stdout, stdout.String(), name)
			}
			continue
		}
		assert.NotEqual(t, exitOK, code, name)
		if strings.HasPrefix(c.Stderr, "error: error executing") {
			assert.Equal(t, exitNegative, code, name)
		} else {
			assert.Equal(t, exitUsage, code, name)
		}
		// kubectl 1.37 lists kyaml among its formats; writepath has no kyaml printer (doc.go).
		want, _, _ := strings.Cut(strings.Replace(c.Stderr, "kyaml,", "", 1), "\n")
		got, _, _ := strings.Cut(stderr.String(), "\n")
		assert.Equal(t, want, got, name)
	}
}

// writepathOnlyFlags are the flags of writepath verbs that the kubectl verb they mirror does not
// have, each for a reason doc.go gives: the state kubectl reads from a server comes from files
// (--live, --crd, --crd-status-subresource), the server's inputs are flags (--now, --uid), modes
// kubectl has no words for (--client-side, --type on diff, --controllers, --max-state-bytes),
// --field-validation (the query parameter's name; kubectl spells it --validate, which apply
// --server-side and validate take too, and patch lacks), and -o's template flags on verbs whose kubectl twin has no templated -o (diff, delete,
// explain, version).
var writepathOnlyFlags = map[string][]string{
	"apply":        {"client-side", "live", "now", "uid", "field-validation"},
	"apply ss":     {"client-side", "live", "now", "crd", "crd-status-subresource", "uid", "field-validation"},
	"patch":        {"crd", "field-validation", "now"},
	"diff":         {"type", "template", "allow-missing-template-keys"},
	"delete":       {"controllers", "max-state-bytes", "template", "allow-missing-template-keys"},
	"rollout undo": {},
	"explain":      {"crd", "template", "allow-missing-template-keys"},
	"version":      {"template", "allow-missing-template-keys"},
}

// TestKubectlFlagsRecorded compares the flags of the writepath verbs that mirror kubectl verbs
// with kubectl 1.37's (their --help and kubectl options): a flag both have has the same
// shorthand, and a flag kubectl lacks is one of writepathOnlyFlags.
func TestKubectlFlagsRecorded(t *testing.T) {
	rec := readKubectlOutputs(t)
	global := map[string]string{}
	for _, fl := range rec.Flags["(global)"] {
		global[fl.Name] = fl.Shorthand
	}
	usage := regexp.MustCompile(`(?m)^  (?:-(\w), )?    ?--([\w-]+)`)
	for _, m := range []struct {
		key, kubectl string
		page         []string
	}{
		{"apply", "apply", []string{"apply", "--help"}},
		{"apply ss", "apply", []string{"apply", "--server-side", "--help"}},
		{"patch", "patch", []string{"patch", "--help"}},
		{"diff", "diff", []string{"diff", "--help"}},
		{"delete", "delete", []string{"delete", "--help"}},
		{"rollout undo", "rollout undo", []string{"rollout", "undo", "--help"}},
		{"explain", "explain", []string{"schema", "explain", "--help"}},
		{"version", "version", []string{"version", "--help"}},
	} {
		kubectl := map[string]string{}
		for _, fl := range rec.Flags[m.kubectl] {
			kubectl[fl.Name] = fl.Shorthand
		}
		require.NotEmpty(t, kubectl, m.kubectl)
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitOK, run(m.page, nil, &stdout, &stderr), "%v", m.page)
		_, flagsPart, _ := strings.Cut(stdout.String(), "\nFlags:\n")
		var only []string
		for _, u := range usage.FindAllStringSubmatch(flagsPart, -1) {
			short, name := u[1], u[2]
			if name == "help" {
				continue
			}
			ks, ok := kubectl[name]
			if !ok {
				ks, ok = global[name]
			}
			if !ok {
				only = append(only, name)
				continue
			}
			assert.Equal(t, ks, short, "writepath %v --%s: kubectl %s's shorthand", m.page, name, m.kubectl)
		}
		want := append([]string(nil), writepathOnlyFlags[m.key]...)
		sort.Strings(want)
		sort.Strings(only)
		assert.Equal(t, want, only, "writepath %v flags kubectl %s lacks", m.page, m.kubectl)
	}
}

// TestKubectlDiffRecorded: kubectl diff -f FILE against a writepath serve holding
// testdata/cli/kubectl/diff/web.yaml exited 0 (same), 1 (differs) or 2 (unreadable file);
// writepath diff -f web.yaml -f FILE exits the same.
func TestKubectlDiffRecorded(t *testing.T) {
	rec := readKubectlOutputs(t)
	t.Chdir(repoRoot)
	require.Len(t, rec.Diff, 3)
	for _, c := range rec.Diff {
		var stdout, stderr bytes.Buffer
		code := run([]string{"diff", "-f", "testdata/cli/kubectl/diff/web.yaml", "-f", c.File}, nil, &stdout, &stderr)
		assert.Equal(t, c.Exit, code, "writepath diff against %s (kubectl diff: %d): %s", c.File, c.Exit, stderr.String())
	}
}
