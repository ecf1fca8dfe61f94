package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeTourCommand is one `$ writepath ...` (or `$ go run ./cmd/writepath ...`) line of the
// README with the output lines shown under it.
type readmeTourCommand struct {
	line   string
	output []string
}

// readmeTourCommands reads the README's indented shell sessions: a command starts with "$ ",
// continues over lines ending in "\", and the lines up to the next command or the block's end
// are its shown output.
func readmeTourCommands(readme string) []readmeTourCommand {
	var cmds []readmeTourCommand
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "    $ ") {
			continue
		}
		cmd := strings.TrimPrefix(l, "    $ ")
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + strings.TrimSpace(lines[i])
		}
		c := readmeTourCommand{line: cmd}
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") && !strings.HasPrefix(lines[i+1], "    $ ") {
			i++
			c.output = append(c.output, strings.TrimPrefix(lines[i], "    "))
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// TestReadmeTour runs every writepath command of the README's tour as shown, from the
// repository root: none may be refused as bad usage or unreadable input, and every output line
// the README shows (but those eliding with "...") must be in what it prints. serve runs until
// interrupted and kubectl talks to it: those lines are checked to parse, not run.
func TestReadmeTour(t *testing.T) {
	t.Chdir(repoRoot)
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	ran := 0
	for _, c := range readmeTourCommands(string(data)) {
		args, err := shellWords(strings.TrimSuffix(strings.TrimSpace(c.line), " &"))
		require.NoError(t, err, c.line)
		switch {
		case len(args) > 3 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/writepath":
			args = args[3:]
		case args[0] == "writepath":
			args = args[1:]
		default:
			continue
		}
		if args[0] == "serve" {
			continue
		}
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		assert.Contains(t, []int{exitOK, exitNegative}, code, "README: %s\n%s", c.line, stderr.String())
		printed := stdout.String() + stderr.String()
		for _, want := range c.output {
			if strings.Contains(want, "...") || strings.TrimSpace(want) == "" {
				continue
			}
			assert.Contains(t, printed, strings.TrimSpace(want), "README: %s", c.line)
		}
		ran++
	}
	assert.Greater(t, ran, 15)
}
