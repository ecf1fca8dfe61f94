// Package ratcheting locates and reads the Gateway API CRDs and objects that
// k8s.io/apiextensions-apiserver ships for its ratcheting integration test, for the
// differential suites that replay them (schemacrd, cel).
package ratcheting

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
)

// Dir is test/integration/ratcheting_test_cases of the apiextensions-apiserver module in use,
// in the module cache; the test is skipped when it is not there.
func Dir(t testing.TB) string {
	t.Helper()
	version := "v0.37.2"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "k8s.io/apiextensions-apiserver" && d.Version != "" {
				version = d.Version
			}
		}
	}
	gomodcache := os.Getenv("GOMODCACHE")
	if gomodcache == "" {
		home, _ := os.UserHomeDir()
		gomodcache = filepath.Join(home, "go", "pkg", "mod")
	}
	dir := filepath.Join(gomodcache, "k8s.io", "apiextensions-apiserver@"+version, "test", "integration", "ratcheting_test_cases")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("ratcheting test cases not in the module cache: %v", err)
	}
	return dir
}

// LoadDocs reads every YAML document under dir, decoded as the apiserver decodes them
// (integers are int64).
func LoadDocs(t testing.TB, dir string) []map[string]any {
	t.Helper()
	var out []map[string]any
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(d.Name()) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return err
			}
			if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
				continue
			}
			var m map[string]any
			if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
				return err
			}
			if m != nil {
				out = append(out, m)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
