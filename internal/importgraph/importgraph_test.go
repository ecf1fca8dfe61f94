// Package importgraph holds the test that enforces the import rules of shared/DESIGN.md.
package importgraph

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/writepath/writepath"

// allowed lists, per top-level package of ours, which of our packages it may import.
// "internal" covers every package below internal/. A package not listed here fails the test until
// it is placed; cmd and cluster may import everything. `status` is field's sibling leaf (the Status
// error vocabulary); `cel` holds the apiserver's CEL environment shared by CRD rules and admission.
var allowed = map[string][]string{
	"internal":      {"internal", "field"},
	"field":         {},
	"status":        {"field"},
	"schema":        {"internal", "field", "status"},
	"versions":      {"internal", "field", "status"},
	"patch":         {"internal", "field", "status", "schema"},
	"merge":         {"internal", "field", "status", "schema"},
	"managedfields": {"internal", "field", "status", "schema"},
	"apply":         {"internal", "field", "status", "schema", "versions", "managedfields", "merge", "patch"},
	"cel":           {"internal", "field", "status", "schema"},
	"admission":     {"internal", "field", "status", "schema", "versions", "patch", "merge", "cel"},
	"conversion":    {"internal", "field", "status", "schema", "versions"},
	"gc":            {"internal", "field", "status", "schema", "versions"},
	"controllers":   {"internal", "field", "status", "schema", "versions"},
}

// leaves are packages of ours that import none of ours; every package may import them.
var leaves = []string{"internal/quantity"}

// thirdParty restricts where the heavier dependencies may be imported (STYLE.md rule 1).
var thirdParty = map[string][]string{
	"github.com/evanphx/json-patch":     {"patch"},
	"github.com/google/cel-go":          {"cel", "admission"},
	"sigs.k8s.io/structured-merge-diff": {"schema", "managedfields", "apply", "admission"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func top(path string) string {
	rest := strings.TrimPrefix(path, module+"/")
	if rest == path {
		return ""
	}
	return strings.SplitN(rest, "/", 2)[0]
}

func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		seen++
		from := top(p.ImportPath)
		if from == "cmd" || from == "cluster" || from == "" {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") && contains(leaves, strings.TrimPrefix(p.ImportPath, module+"/")) {
				t.Errorf("%s imports %s: it is a leaf and may import no package of ours", p.ImportPath, imp)
			}
			if strings.HasPrefix(imp, "k8s.io/") {
				t.Errorf("%s imports %s: k8s.io modules belong only in conformance/ and generators", p.ImportPath, imp)
			}
			for dep, users := range thirdParty {
				if strings.HasPrefix(imp, dep) && !contains(users, from) {
					t.Errorf("%s imports %s; only %v may", p.ImportPath, imp, users)
				}
			}
			to := top(imp)
			if to == "" || to == from {
				continue
			}
			rules, known := allowed[from]
			if !known {
				t.Errorf("%s is a package DESIGN.md does not place; add it to the import rules", p.ImportPath)
				continue
			}
			if !contains(rules, to) {
				t.Errorf("%s imports %s: DESIGN.md forbids %s -> %s", p.ImportPath, imp, from, to)
			}
		}
	}
	require.Positive(t, seen)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
