package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompletion checks `writepath completion SHELL` prints cobra's script for each shell and
// that the hidden __complete the scripts call knows the verbs and each verb's flags.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "# bash completion V2 for writepath", "zsh": "#compdef writepath", "fish": "# fish completion for writepath"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"completion", shell}, nil, &stdout, &stderr)
		assert.Equal(t, exitOK, code, shell)
		assert.True(t, strings.HasPrefix(stdout.String(), marker), "completion %s starts with %q: %.80s", shell, marker, stdout.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "gen"}, "generation\t"},
		{[]string{"__complete", "delete", "--casc"}, "--cascade\t"},
		{[]string{"__complete", "delete", "-"}, "--filename\t"},
		{[]string{"__complete", "apply", "--force"}, "--force-conflicts\t"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, nil, &stdout, &stderr)
		assert.Equal(t, exitOK, code, "%v", c.args)
		assert.Contains(t, stdout.String(), c.want, "%v", c.args)
	}
}
