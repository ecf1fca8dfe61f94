package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlRecording is testdata/cli/kubectl/recorded.json: kubectl 1.37's answers to command
// lines it refuses before it talks to a server (python3 testdata/cli/kubectl/record.py).
type kubectlRecording struct {
	Kubectl string `json:"kubectl"`
	Cases   []struct {
		Name   string   `json:"name"`
		Args   []string `json:"args"`
		Exit   int      `json:"exit"`
		Stderr string   `json:"stderr"`
	} `json:"cases"`
}

// TestKubectlMisuseRecorded replays kubectl's recorded refusals of misused command lines
// through writepath with the same arguments: the same error line (kubectl's name replaced by
// writepath's), and exit status 2 where kubectl exits non-zero (writepath's usage status; kubectl
// exits 1, see doc.go's deliberate differences). kubectl adds "See '... --help' for usage." to
// pflag's errors only; writepath adds it to every usage error.
func TestKubectlMisuseRecorded(t *testing.T) {
	t.Chdir(repoRoot)
	data, err := os.ReadFile("testdata/cli/kubectl/recorded.json")
	require.NoError(t, err)
	var rec kubectlRecording
	require.NoError(t, json.Unmarshal(data, &rec))
	require.NotEmpty(t, rec.Cases)
	for _, c := range rec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.Args, strings.NewReader(""), &stdout, &stderr)
			require.NotZero(t, c.Exit, "the recording of %v", c.Args)
			assert.Equal(t, exitUsage, code, "exit of writepath %v (kubectl: %d); stderr: %s", c.Args, c.Exit, stderr.String())
			want, _, _ := strings.Cut(strings.ReplaceAll(c.Stderr, "kubectl", "writepath"), "\n")
			got, _, _ := strings.Cut(stderr.String(), "\n")
			assert.Equal(t, want, got, "first line of stderr of writepath %v", c.Args)
		})
	}
}
