// Command gen generates writepath's built-in type catalogue (schema/data) from the Kubernetes 1.37
// reference modules: the structured-merge-diff type schema of every built-in type (client-go's,
// apiextensions-apiserver's and kube-aggregator's apply-configuration schemas, plus
// autoscaling/v1 Scale derived from k8s.io/api), the strategic-merge-patch metadata of the k8s.io/api
// Go types (patchStrategy and patchMergeKey struct tags, found by reflection), and the discovery
// facts of every kind (resource, scope, verbs, subresources).
//
// It lives in its own module so that k8s.io/* never enters the library's go.mod. Run it from the
// repository root with
//
//	go generate ./schema/...
//
// or directly with `cd internal/gen && go run . -out ../../schema/data`. With -verify it regenerates
// in memory and fails if the committed files differ, which the schema package's tests use.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/writepath/writepath/internal/gen/genio"
)

// output files, all under -out.
const (
	smdFile       = "smd.json.gz"
	patchMetaFile = "patchmeta.json.gz"
	kindsFile     = "kinds.json"
)

func main() {
	out := flag.String("out", "../../schema/data", "directory the generated files are written to")
	verify := flag.Bool("verify", false, "do not write; fail if the files in -out differ from what would be generated")
	discovery := flag.String("discovery", "testdata/discovery", "directory of recorded discovery documents")
	openAPI := flag.String("openapi", "../../cluster/data/openapi/v3", "directory of recorded OpenAPI v3 documents")
	flag.Parse()
	if err := run(*out, *discovery, *openAPI, *verify); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out, discoveryDir, openAPIDir string, verify bool) error {
	files, err := generate(discoveryDir, openAPIDir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var stale []string
	for _, name := range names {
		err := genio.Write(filepath.Join(out, name), files[name], verify)
		if errors.Is(err, genio.ErrStale) || (verify && err != nil) {
			stale = append(stale, err.Error())
			continue
		}
		if err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		for _, s := range stale {
			fmt.Fprintln(os.Stderr, s)
		}
		return fmt.Errorf("%d generated file(s) are stale: run `go generate ./schema/...` and commit schema/data", len(stale))
	}
	return nil
}

// generate returns the uncompressed content of every output file.
func generate(discoveryDir, openAPIDir string) (map[string][]byte, error) {
	smd, err := buildSMD(openAPIDir)
	if err != nil {
		return nil, fmt.Errorf("smd schema: %w", err)
	}
	kinds, err := buildKinds(discoveryDir, smd)
	if err != nil {
		return nil, fmt.Errorf("kinds: %w", err)
	}
	pm, err := buildPatchMeta(kinds)
	if err != nil {
		return nil, fmt.Errorf("patch metadata: %w", err)
	}
	files := map[string][]byte{}
	for name, v := range map[string]any{smdFile: smd.dto(), patchMetaFile: pm, kindsFile: kinds.dto()} {
		// kinds.json stays readable in review; the large tables are compact (and compressed).
		var data []byte
		var err error
		if filepath.Ext(name) == ".gz" {
			data, err = json.Marshal(v)
		} else {
			data, err = json.MarshalIndent(v, "", " ")
		}
		if err != nil {
			return nil, err
		}
		files[name] = append(data, '\n')
	}
	return files, nil
}
