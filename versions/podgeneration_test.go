package versions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"

	"github.com/writepath/writepath/schema"
	"github.com/writepath/writepath/versions"
)

// TestRecordedPodGeneration replays the Pod writes recorded from the real apiserver
// (testdata/apply/recorded/pod{resize,ephemeral,generation}: main resource, /resize,
// /ephemeralcontainers, /status, dry runs): the generation each successful write stores is
// NextGeneration of the stored pod and the pod the strategy wrote.
func TestRecordedPodGeneration(t *testing.T) {
	s, ok := versions.Builtin(schema.GroupVersionKind{Kind: "Pod"})
	require.True(t, ok)
	checked := 0
	for _, dir := range []string{"podresize", "podephemeral", "podgeneration"} {
		files, err := filepath.Glob(filepath.Join("../testdata/apply/recorded", dir, "*.json"))
		require.NoError(t, err)
		sort.Strings(files)
		lives := map[string]map[string]any{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var st struct {
				Method      string          `json:"method"`
				Path        string          `json:"path"`
				Subresource string          `json:"subresource"`
				DryRun      bool            `json:"dryRun"`
				Code        int             `json:"code"`
				Response    json.RawMessage `json:"response"`
			}
			require.NoError(t, json.Unmarshal(data, &st))
			var resp map[string]any
			require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(st.Response, &resp))
			obj := strings.TrimSuffix(st.Path, "/"+st.Subresource)
			live := lives[obj]
			if st.Code >= 300 {
				continue
			}
			if st.Method != "GET" && live != nil {
				g, err := versions.NextGeneration(s, live, resp, st.Subresource)
				require.NoError(t, err)
				md := resp["metadata"].(map[string]any)
				assert.Equal(t, md["generation"], g.New, "%s/%s: %s", dir, filepath.Base(f), g)
				checked++
			}
			if st.Method == "GET" || !st.DryRun {
				lives[obj] = resp
			}
		}
	}
	assert.Greater(t, checked, 20)
	t.Logf("%d recorded Pod writes checked", checked)
}
