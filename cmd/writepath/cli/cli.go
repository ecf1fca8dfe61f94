package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/writepath/writepath/internal/bounded"
	"github.com/writepath/writepath/internal/codec"
	"github.com/writepath/writepath/status"
)

// Exit codes.
const (
	// exitOK: the command ran and its answer is positive.
	exitOK = 0
	// exitNegative: the semantic answer is negative — the server would refuse
	// the write (conflict, invalid, denied) or the input fails the rule asked.
	exitNegative = 1
	// exitUsage: bad usage, or input that cannot be read or decoded.
	exitUsage = 2
)

// env carries the streams of one run and the verb's name.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	verb           string
	// opts are the hooks Main was given.
	opts Options
}

// usageError is bad usage: printed as "error: ..." with a pointer to --help,
// exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// inputError is input that cannot be read or decoded: exit code 2.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// flags is a verb's flag set: --help prints the usage to stdout (exit 0); a bad
// flag prints a kubectl-style error (exit 2).
type flags struct {
	*flag.FlagSet
	e        *env
	synopsis string
	long     string
	examples string
}

// flags returns a flag set for the verb. synopsis is the usage line after
// "writepath", long the description, examples a block of example commands.
func (e *env) flags(synopsis, long, examples string) *flags {
	fs := flag.NewFlagSet(e.verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, e: e, synopsis: synopsis, long: long, examples: examples}
}

// parse parses args. It returns ok=false with the exit code to return when the
// verb must stop (help shown, or bad usage).
func (f *flags) parse(args []string) (code int, ok bool) {
	err := f.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		f.printHelp(f.e.stdout)
		return exitOK, false
	}
	if err != nil {
		return f.e.fail(usagef("%v", err)), false
	}
	return 0, true
}

func (f *flags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  writepath %s\n", strings.TrimSpace(f.long), f.synopsis)
	if f.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(f.examples, "\n"))
	}
	var b strings.Builder
	f.VisitAll(func(fl *flag.Flag) {
		name, help := flag.UnquoteUsage(fl)
		dash := "--"
		if len(fl.Name) == 1 {
			dash = "-"
		}
		arg := dash + fl.Name
		if name != "" {
			arg += " " + name
		}
		fmt.Fprintf(&b, "  %s\n      %s", arg, help)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "[]" {
			fmt.Fprintf(&b, " (default %q)", fl.DefValue)
		}
		b.WriteString("\n")
	})
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", b.String())
	}
	fmt.Fprintln(w, "  -h, --help\n      help for "+f.e.verb)
}

// fileList is a repeatable -f flag.
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, ",") }
func (l *fileList) Set(s string) error {
	if s == "" {
		return errors.New("empty file name")
	}
	*l = append(*l, s)
	return nil
}

// readObjects decodes every document of every file, in order ("-" is stdin,
// which may be given once). Each file is bounded as a request body (3 MiB).
func (e *env) readObjects(files []string) ([]map[string]any, error) {
	return e.readBounded(files, bounded.RequestBodyBytes)
}

// readState is readObjects for files holding a cluster's state (many objects, no single
// request), bounded by --max-state-bytes.
func (e *env) readState(files []string, limit int64) ([]map[string]any, error) {
	return e.readBounded(files, limit)
}

// readInput reads one file, or stdin for "-", bounded as a request body.
func (e *env) readInput(path string) ([]byte, error) {
	return bounded.ReadInput(path, e.stdin, bounded.RequestBodyBytes)
}

// readFile reads the file at path (no "-" for stdin), bounded as a request body.
func (e *env) readFile(path string) ([]byte, error) {
	return bounded.ReadFile(path, bounded.RequestBodyBytes)
}

func (e *env) readBounded(files []string, limit int64) ([]map[string]any, error) {
	var out []map[string]any
	stdinUsed := false
	for _, f := range files {
		if f == "-" {
			if stdinUsed {
				return nil, usagef("-f - (standard input) can be given only once")
			}
			stdinUsed = true
		}
		docs, err := codec.Options{MaxBytes: limit}.ReadDocuments(f, e.stdin)
		if err != nil {
			return nil, &inputError{err: err}
		}
		out = append(out, docs...)
	}
	return out, nil
}

// requireStored checks that the first object carries what a stored object
// always has: a resourceVersion.
func requireStored(obj map[string]any) error {
	md, _ := obj["metadata"].(map[string]any)
	if rv, _ := md["resourceVersion"].(string); rv == "" {
		return &inputError{err: errors.New("the first object is the stored one and has no metadata.resourceVersion: give it as the server returns it (kubectl get -o yaml)")}
	}
	return nil
}

// output is the -o flag.
type output string

func (o *output) String() string { return string(*o) }
func (o *output) Set(s string) error {
	switch s {
	case "", "yaml", "json":
		*o = output(s)
		return nil
	}
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json,yaml", s)
}

// printValue writes v as -o asks: JSON (kubectl's four-space indent) or YAML.
func (e *env) printValue(o output, v any) error {
	if o == "json" {
		// Written as it is encoded: indented JSON grows with the square of the depth.
		return codec.WriteJSONIndent(e.stdout, v)
	}
	data, err := codec.EncodeYAML(v)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(data)
	return err
}

// kubectlInvalid is how kubectl prints a 422 (cmdutil's checkErr): "The <Kind> "<name>" is
// invalid: " and the causes ("<field>: <message>", duplicates dropped), one on the line or, when
// there are several, each on its own "* " line.
func kubectlInvalid(se *status.Error) string {
	d := se.Details
	s := "The request is invalid"
	if d == nil {
		if se.Message != "" {
			s += ": " + se.Message
		}
		return s + "\n"
	}
	if d.Kind != "" || d.Name != "" {
		s = fmt.Sprintf("The %s %q is invalid", d.Kind, d.Name)
	} else if se.Message != "" && len(d.Causes) == 0 {
		s += ": " + se.Message
	}
	if len(d.Causes) == 0 {
		return s + "\n"
	}
	var msgs []string
	seen := map[string]bool{}
	for _, c := range d.Causes {
		m := c.Field + ": " + c.Message
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return s + ": " + msgs[0] + "\n"
	}
	var b strings.Builder
	b.WriteString(s + ": \n")
	for _, m := range msgs {
		b.WriteString("* " + m + "\n")
	}
	return b.String()
}

// fail prints err the way kubectl does and returns its exit code: a server
// answer as "Error from server (<Reason>): <message>" (a 422 as "The <Kind> "<name>" is
// invalid: <causes>", exit 1), bad usage and
// unreadable input as "error: <message>" (exit 2), and any other error of the
// semantics as "error: <message>" (exit 1).
func (e *env) fail(err error) int {
	var ue *usageError
	var ie *inputError
	var se *status.Error
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "error: %s\nSee 'writepath %s --help' for usage.\n", ue.msg, e.verb)
		return exitUsage
	case errors.As(err, &ie):
		fmt.Fprintf(e.stderr, "error: %s\n", ie.err)
		return exitUsage
	case errors.As(err, &se):
		if se.Reason == status.ReasonInvalid {
			fmt.Fprint(e.stderr, kubectlInvalid(se))
			return exitNegative
		}
		if se.Reason == status.ReasonUnknown {
			fmt.Fprintf(e.stderr, "Error from server: %s\n", se.Message)
		} else {
			fmt.Fprintf(e.stderr, "Error from server (%s): %s\n", se.Reason, se.Message)
		}
		return exitNegative
	}
	fmt.Fprintf(e.stderr, "error: %s\n", err)
	return exitNegative
}
