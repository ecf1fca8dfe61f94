package schema_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/status"
)

// TestRealCluster replays the writes recorded from a real kube-apiserver 1.37 by
// testdata/schema/realcluster/record.sh and compares Process with what the server answered:
// the stored object (without the fields the server generates), the warnings, the error.
func TestRealCluster(t *testing.T) {
	dir := "../testdata/schema/realcluster"
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	crd, err := schema.FromCRDBytes(read("widget-crd.yaml"))
	require.NoError(t, err)
	v := crd.Version("v1")
	cases := []struct {
		name, input, old string
		level            schema.FieldValidation
	}{
		{"create-valid", "create-valid.yaml", "", schema.FieldValidationStrict},
		{"create-invalid", "create-invalid.yaml", "", schema.FieldValidationWarn},
		{"create-unknown-strict", "create-unknown.yaml", "", schema.FieldValidationStrict},
		{"create-unknown-warn", "create-unknown.yaml", "", schema.FieldValidationWarn},
		{"create-unknown-ignore", "create-unknown.yaml", "", schema.FieldValidationIgnore},
		{"update-invalid", "update-new.yaml", "update-old.out", schema.FieldValidationStrict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj, err := codec.DecodeObject(read(c.input))
			require.NoError(t, err)
			var old map[string]any
			if c.old != "" {
				old, err = codec.DecodeObject(read(c.old))
				require.NoError(t, err)
				// kubectl replace sends the stored resourceVersion.
				obj["metadata"].(map[string]any)["resourceVersion"] = old["metadata"].(map[string]any)["resourceVersion"]
			}
			res, err := v.Process(schema.Request{Object: obj, Old: old, FieldValidation: c.level})
			stderr := string(read(c.name + ".err"))
			var warnings []string
			var rest []string
			for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
				if w, ok := strings.CutPrefix(line, "Warning: "); ok {
					warnings = append(warnings, w)
				} else if line != "" {
					rest = append(rest, line)
				}
			}
			switch {
			case err != nil:
				require.Len(t, rest, 1, "recorded stderr %q", stderr)
				_, msg, ok := strings.Cut(rest[0], `": `)
				require.True(t, ok)
				assert.Equal(t, msg, err.Error())
			case len(res.Errors) > 0:
				assert.Equal(t, warnings, res.Warnings)
				require.NotEmpty(t, rest)
				// kubectl prints a 422 as `The Kind "name" is invalid: <error>` or as a list.
				var want []string
				if first, inline, _ := strings.Cut(rest[0], "is invalid: "); inline != "" {
					_ = first
					want = []string{inline}
				} else {
					for _, l := range rest[1:] {
						want = append(want, strings.TrimPrefix(l, "* "))
					}
				}
				got := errStrings(res.Errors)
				sort.Strings(want)
				sort.Strings(got)
				assert.Equal(t, want, got, "errors (in the apiserver's map order, compared sorted)")
			default:
				assert.Equal(t, warnings, res.Warnings)
				assert.Empty(t, rest)
				stored, err := codec.DecodeObject(read(c.name + ".out"))
				require.NoError(t, err)
				md := stored["metadata"].(map[string]any)
				for _, k := range []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"} {
					delete(md, k)
				}
				assert.True(t, value.Equal(stored, res.Object), "stored %v\nmine %v", stored, res.Object)
			}
		})
	}
}

// TestRealClusterCRDs compares FromCRD's 422 with the apiserver's answer to CRDs it rejects.
func TestRealClusterCRDs(t *testing.T) {
	for _, name := range []string{"bad-crd-structural", "bad-crd-defaults", "bad-crd-selectable", "bad-crd-selectable-versions"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../testdata/schema/realcluster", name+".yaml"))
			require.NoError(t, err)
			recorded, err := os.ReadFile(filepath.Join("../testdata/schema/realcluster", name+".err"))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimRight(string(recorded), "\n"), "\n")
			require.Greater(t, len(lines), 1)
			want := make([]string, 0, len(lines)-1)
			for _, l := range lines[1:] {
				want = append(want, strings.TrimPrefix(l, "* "))
			}
			_, err = schema.FromCRDBytes(data)
			var se *status.Error
			require.ErrorAs(t, err, &se)
			// kubectl prints the status message, whose aggregate drops repeated errors.
			got := make([]string, 0, len(se.Details.Causes))
			seen := map[string]bool{}
			for _, c := range se.Details.Causes {
				if e := c.Field + ": " + c.Message; !seen[e] {
					seen[e] = true
					got = append(got, e)
				}
			}
			sort.Strings(want)
			sort.Strings(got)
			assert.Equal(t, want, got)
		})
	}
}
