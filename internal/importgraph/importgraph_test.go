package importgraph

import (
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/writepath/writepath"

// floors places every package tree of ours on its floor of shared/DESIGN.md's "Layers": a
// package imports only packages of lower floors, never a sibling on its own floor. A key is a
// tree, as DESIGN.md's table names them: "internal" is every package below internal/,
// "cmd/writepath" covers cmd/writepath/cli, "cluster" covers cluster/storetest, "conversion" its
// conversion/internal/..., "controllers" each controller package (deployment, replicaset,
// policystatus: kube-controller-manager's loops, each a floor-2 sibling of apply, admission,
// conversion and gc). A package takes the floor of its longest key (floorOf); one under no key
// fails TestEveryPackageHasAFloor until it is placed. Floor 0 is the foundation, ordered within
// itself: field (the error vocabulary everything speaks), then internal/... (label selectors
// report field errors), status, schema; floor 0.1 may import 0.0, and so on.
var floors = map[string]float64{
	"field":    0.0,
	"internal": 0.1,
	"status":   0.2, // Invalid carries a field.ErrorList
	"schema":   0.3,
	// schema's parts above the catalogue and the CRD schemas: the Go types of the built-in kinds
	// (the decoder's errors, the serializer's order), then, siblings, their defaulting (the Go
	// types' decoding, SetDefaults_*, encoding) and their REST strategies' validation.
	"schema/gotypes":    0.35,
	"schema/defaults":   0.4,
	"schema/validation": 0.4,

	"patch":         1,
	"merge":         1,
	"managedfields": 1,
	"cel":           1,
	"versions":      1,
	// The RBAC authorizer's rule evaluation: a mechanism over stored objects that imports none of
	// ours, below registry (which answers the access reviews with it) and any floor-2 package.
	"rbac": 1,

	"apply":       2,
	"admission":   2,
	"conversion":  2,
	"gc":          2,
	"controllers": 2,
	// controllers/internal/... holds what the controllers share: below them, above floor 1.
	"controllers/internal": 1.5,

	"registry":      3,
	"cluster":       4,
	"cmd/writepath": 5,
}

// floorOf returns the floors key of a package (its path below the module) and its floor: the
// longest key that is the package or one of its parents.
func floorOf(rel string) (key string, floor float64, ok bool) {
	for p := rel; p != "."; p = path.Dir(p) {
		if f, found := floors[p]; found {
			return p, f, true
		}
	}
	return "", 0, false
}

// mayImport reports whether package unit from may import unit to (units as unit() names them).
func mayImport(from, to string) (ok, known bool) {
	kf, ff, knownFrom := floorOf(from)
	kt, ft, knownTo := floorOf(to)
	if !knownFrom || !knownTo {
		return false, false
	}
	if kf == "internal" && kt == "internal" {
		return true, true // internal/... packages build on each other (leaves aside)
	}
	return ft < ff, true
}

// floorKey is the floors key of a unit: "controllers/deployment" sits on the controllers floor,
// "controllers/internal" and "schema/defaults" on their own.
func floorKey(u string) string {
	k, _, _ := floorOf(u)
	return k
}

// leaves are packages of ours that import none of ours; every package may import them.
var leaves = []string{"internal/quantity"}

// thirdParty restricts where the heavier dependencies may be imported (STYLE.md rule 1).
var thirdParty = map[string][]string{
	"github.com/evanphx/json-patch":     {"patch"},
	"github.com/google/cel-go":          {"cel", "admission"},
	"sigs.k8s.io/structured-merge-diff": {"schema", "managedfields", "apply", "admission"},
	// protowire: the Kubernetes protobuf codec (internal/codec/protobuf), and cluster's own
	// protobuf documents (aggregated discovery, the OpenAPI v2 document), which are not objects
	// of the codec's catalogue.
	"google.golang.org/protobuf": {"internal", "cluster"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// unit names the part of the tree a package belongs to, for the sibling rule: its floors key,
// or "controllers/X" for the packages below controllers/X (each controller is a unit of its
// own); "" for a package outside the module or under no key (TestEveryPackageHasAFloor reports
// those).
func unit(importPath string) string {
	rest := strings.TrimPrefix(importPath, module+"/")
	if rest == importPath {
		return ""
	}
	key, _, ok := floorOf(rest)
	if !ok {
		return ""
	}
	if key == "controllers" {
		if parts := strings.SplitN(rest, "/", 3); len(parts) > 1 {
			return parts[0] + "/" + parts[1]
		}
	}
	return key
}

// packages lists the module's packages as `go list -json` prints them.
func packages(t *testing.T) []pkg {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var all []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		all = append(all, p)
	}
	require.NotEmpty(t, all)
	return all
}

// TestEveryPackageHasAFloor: every package `go list ./...` prints is under a floors key, so a new
// package fails here until DESIGN.md's table (and floors with it) places it.
func TestEveryPackageHasAFloor(t *testing.T) {
	for _, p := range packages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if rel == p.ImportPath {
			continue // the module's root, if it ever has a package, is no tree of the table
		}
		_, _, ok := floorOf(rel)
		assert.True(t, ok, "%s has no floor: place its tree in floors as shared/DESIGN.md's table does", p.ImportPath)
	}
}

func TestImportGraph(t *testing.T) {
	for _, p := range packages(t) {
		from := unit(p.ImportPath)
		if from == "" {
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
				if strings.HasPrefix(imp, dep) && !contains(users, floorKey(from)) {
					t.Errorf("%s imports %s; only %v may", p.ImportPath, imp, users)
				}
			}
			to := unit(imp)
			if to == "" || to == from {
				continue
			}
			ok, known := mayImport(from, to)
			if !known {
				t.Errorf("%s imports %s: a package DESIGN.md does not place; add it to the floors", p.ImportPath, imp)
				continue
			}
			if !ok {
				t.Errorf("%s imports %s: DESIGN.md forbids %s (floor %v) -> %s (floor %v)", p.ImportPath, imp,
					from, floors[floorKey(from)], to, floors[floorKey(to)])
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The floors say what DESIGN.md says, arrow by arrow.
func TestFloors(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		ok       bool
	}{
		{"status", "field", true}, {"field", "status", false}, {"internal", "field", true}, {"field", "internal", false}, {"schema", "status", true}, {"schema", "internal", true},
		{"internal", "schema", false}, {"versions", "schema", true}, {"schema", "versions", false},
		{"patch", "merge", false}, {"cel", "versions", false}, {"apply", "merge", true},
		{"apply", "gc", false}, {"admission", "conversion", false}, {"gc", "controllers/deployment", false},
		{"controllers/deployment", "controllers/replicaset", false}, {"controllers/deployment", "versions", true},
		{"controllers/replicaset", "controllers/internal", true}, {"controllers/internal", "controllers/replicaset", false},
		{"controllers/internal", "schema", true}, // only controllers/... can import it: Go's internal rule
		// schema's parts: the catalogue below, defaulting and validation beside each other.
		{"schema/defaults", "schema", true}, {"schema", "schema/defaults", false},
		{"schema/validation", "schema", true}, {"schema", "schema/validation", false},
		{"schema/defaults", "schema/validation", false}, {"schema/validation", "schema/defaults", false},
		{"versions", "schema/defaults", true}, {"schema/defaults", "versions", false},
		{"schema/validation", "schema/gotypes", true}, {"schema/gotypes", "schema/validation", false},
		{"schema/gotypes", "schema", true}, {"schema", "schema/gotypes", false}, {"schema/gotypes", "schema/defaults", false},
		// The type checking of policies is kube-controller-manager's, beside admission: what both
		// compile against (environments, declared types, the built-in kinds' OpenAPI) is cel's.
		{"controllers/policystatus", "admission", false}, {"admission", "controllers/policystatus", false},
		{"controllers/policystatus", "cel", true}, {"cel", "controllers/policystatus", false},
		{"registry", "apply", true}, {"registry", "controllers/replicaset", true}, {"apply", "registry", false},
		{"cluster", "registry", true}, {"registry", "cluster", false}, {"cmd/writepath", "cluster", true}, {"cluster", "cmd/writepath", false},
	} {
		ok, known := mayImport(tt.from, tt.to)
		require.True(t, known, "%s -> %s", tt.from, tt.to)
		require.Equal(t, tt.ok, ok, "%s -> %s", tt.from, tt.to)
	}
	_, known := mayImport("nowhere", "schema")
	require.False(t, known)
}

// Every tree `go list ./...` prints takes its floor from DESIGN.md's table, the deeper packages
// from their tree's row; a package outside every row has none.
func TestFloorOf(t *testing.T) {
	for rel, want := range map[string]float64{
		"schema": 0.3, "schema/defaults": 0.4, "schema/gotypes": 0.35, "schema/validation": 0.4,
		"cluster/storetest": 4, "cmd/writepath": 5, "cmd/writepath/cli": 5,
		"controllers/deployment": 2, "controllers/policystatus": 2, "controllers/internal/object": 1.5,
		"internal/codec/protobuf": 0.1, "internal/replaydiff": 0.1, "internal/importgraph": 0.1,
		"conversion/internal/wire/v1": 2, "patch/internal/jsonpatch": 1, "registry": 3,
	} {
		_, got, ok := floorOf(rel)
		require.True(t, ok, rel)
		assert.Equal(t, want, got, rel)
	}
	for _, rel := range []string{"nowhere", "cmd/other", "schemas", "storage/etcd"} {
		_, _, ok := floorOf(rel)
		assert.False(t, ok, "%s has no row in DESIGN.md's table", rel)
	}
	assert.Equal(t, "controllers/deployment", unit(module+"/controllers/deployment"))
	assert.Equal(t, "controllers/internal", unit(module+"/controllers/internal/object"))
	assert.Equal(t, "cmd/writepath", unit(module+"/cmd/writepath/cli"))
	assert.Equal(t, "schema/defaults", unit(module+"/schema/defaults"))
	assert.Equal(t, "", unit(module+"/nowhere"))
}
