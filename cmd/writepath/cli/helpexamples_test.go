package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helpPages are the --help invocations: every verb's, and its subcommands' and modes'.
func helpPages() [][]string {
	var pages [][]string
	for _, v := range verbs() {
		pages = append(pages, []string{v.name, "--help"})
	}
	return append(pages, []string{"rv", "compare", "--help"}, []string{"rv", "check", "--help"},
		[]string{"schema", "explain", "--help"}, []string{"rollout", "undo", "--help"}, []string{"apply", "--server-side", "--help"})
}

// TestHelpExamplesRun runs every example command shown by --help, from the repository root, as
// the help shows it: each must run (exit 0, or 1 where the example shows a refusal), never be
// refused as bad usage or unreadable input (2). serve's examples start a server that runs
// until interrupted: they run until it answers (on a free port, its kubeconfig in a temporary
// directory: runServeOnce).
func TestHelpExamplesRun(t *testing.T) {
	t.Chdir(repoRoot)
	ran := 0
	for _, page := range helpPages() {
		var help, stderr bytes.Buffer
		require.Equal(t, exitOK, run(page, nil, &help, &stderr), "%v", page)
		examples := examplesOf(help.String())
		assert.NotEmpty(t, examples, "%v shows no example", page)
		for _, line := range examples {
			args, err := shellWords(line)
			require.NoError(t, err, line)
			if args[0] != "writepath" {
				continue // another program (kubectl) talking to the served cluster
			}
			var stdout, stderr bytes.Buffer
			code := runServeOnce(t.TempDir(), args[1:], strings.NewReader(""), &stdout, &stderr)
			assert.Contains(t, []int{exitOK, exitNegative}, code, "%v example %q: %s", page, line, stderr.String())
			ran++
		}
	}
	assert.Greater(t, ran, 25)
}

// examplesOf returns the command lines of a help page's Examples section.
func examplesOf(help string) []string {
	_, rest, ok := strings.Cut(help, "\nExamples:\n")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "\nFlags:\n")
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(l), " &"))
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell does for the quoting the examples use:
// words separated by blanks, '...' literal, "..." with \" and \\ escapes.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errUnterminatedQuote
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errUnterminatedQuote
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnterminatedQuote = errors.New("unterminated quote")
