package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
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
	// recursive is -R: -f directories are read with every level below.
	recursive bool
	// declaring stops a verb at its flag parsing, which records the declared flags in
	// declared (for shell completion).
	declaring bool
	declared  *pflag.FlagSet
	// output is the verb's -o once its flags are parsed: with json or yaml, a refused write
	// prints its metav1.Status on stdout too (fail).
	output output
	// printer is -o's template printer once parsed (jsonpath, go-template), nil for the others.
	printer *templatePrinter
	// template and allowMissing are --template and --allow-missing-template-keys, declared
	// with -o.
	template     string
	allowMissing bool
	// opts are the hooks Main was given.
	opts Options
	// testServe, set by tests only, adjusts serve's configuration before it starts and returns
	// the context serve runs under: the help-examples and argv fuzz tests run serve until it
	// answers, then stop it (with its port and kubeconfig moved out of the way).
	testServe func(ctx context.Context, cfg *serveConfig) context.Context
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

// flags is a verb's flag set (pflag, as kubectl's): --help prints the usage to stdout (exit 0);
// a bad flag prints a kubectl-style error (exit 2). Flags may follow positional arguments, a
// one-letter flag takes its value attached (-ndemo, -oyaml) and every verb spells a concept the
// same way: a verb declares -f, -o, -n, -p, -d, -H or -v by its letter and gets kubectl's long
// name beside it (--filename, --output, --namespace, --patch, --data, --header, --verbose; see
// longName). Spellings Go's flag package accepted before the move to pflag keep working: a long
// flag with one dash (-crd FILE) and a one-letter flag with two (--f FILE).
type flags struct {
	*pflag.FlagSet
	e        *env
	synopsis string
	long     string
	examples string
	// wide: -o wide is one of the verb's formats (tables).
	wide bool
	// after are checks of flag values run once the flags are parsed (their errors are usage).
	after []func() error
}

// flags returns a flag set for the verb. synopsis is the usage line after
// "writepath", long the description, examples a block of example commands.
func (e *env) flags(synopsis, long, examples string) *flags {
	fs := pflag.NewFlagSet(e.verb, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return &flags{FlagSet: fs, e: e, synopsis: synopsis, long: long, examples: examples}
}

// longName is kubectl's long name of a one-letter flag, "" for a letter kubectl does not use
// (the flag keeps its one-letter name).
func longName(letter string) string {
	switch letter {
	case "f":
		return "filename"
	case "o":
		return "output"
	case "n":
		return "namespace"
	case "p":
		return "patch"
	case "d":
		return "data"
	case "H":
		return "header"
	case "v":
		return "verbose"
	case "R":
		return "recursive"
	}
	return ""
}

// names turns a verb's flag name into pflag's long name and shorthand.
func (f *flags) names(name string) (long, short string) {
	if l := longName(name); l != "" {
		if f.FlagSet.Lookup(l) == nil {
			return l, name
		}
	}
	return name, ""
}

// Var defines a flag with a custom value; a -f file list also gets -R/--recursive.
func (f *flags) Var(v pflag.Value, name, usage string) {
	long, short := f.names(name)
	fl := f.FlagSet.VarPF(v, long, short, usage)
	if b, ok := v.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		fl.NoOptDefVal = "true"
	}
	if _, ok := v.(*fileList); ok && long == "filename" {
		f.FlagSet.BoolVarP(&f.e.recursive, "recursive", "R", false, "process the directories given with -f recursively (kubectl's -R)")
	}
	if _, ok := v.(*output); ok && long == "output" && f.e.verb != "request" {
		f.FlagSet.StringVar(&f.e.template, "template", "", "template string or path to template file to use when -o=go-template, -o=go-template-file, -o=jsonpath or -o=jsonpath-file (kubectl's; the template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview])")
		f.FlagSet.BoolVar(&f.e.allowMissing, "allow-missing-template-keys", true, "if true, ignore any errors in templates when a field or map key is missing in the template (golang and jsonpath output formats)")
	}
}

// tables lets the verb's -o take wide: the verb prints a table, and -o wide adds columns.
func (f *flags) tables() { f.wide = true }

// String defines a string flag.
func (f *flags) String(name, value, usage string) *string {
	long, short := f.names(name)
	return f.FlagSet.StringP(long, short, value, usage)
}

// StringVar defines a string flag stored in p.
func (f *flags) StringVar(p *string, name, value, usage string) {
	long, short := f.names(name)
	f.FlagSet.StringVarP(p, long, short, value, usage)
}

// Bool defines a boolean flag.
func (f *flags) Bool(name string, value bool, usage string) *bool {
	long, short := f.names(name)
	return f.FlagSet.BoolP(long, short, value, usage)
}

// BoolVar defines a boolean flag stored in p.
func (f *flags) BoolVar(p *bool, name string, value bool, usage string) {
	long, short := f.names(name)
	f.FlagSet.BoolVarP(p, long, short, value, usage)
}

// parse parses args. It returns ok=false with the exit code to return when the
// verb must stop (help shown, or bad usage).
func (f *flags) parse(args []string) (code int, ok bool) {
	if f.e.declaring {
		if f.e.declared == nil {
			f.e.declared = f.FlagSet
		}
		return exitOK, false
	}
	err := f.Parse(f.compatArgs(args))
	if errors.Is(err, pflag.ErrHelp) {
		f.printHelp(f.e.stdout)
		return exitOK, false
	}
	if err != nil {
		return f.e.fail(usagef("%v", err)), false
	}
	for _, check := range f.after {
		if err := check(); err != nil {
			return f.e.fail(err), false
		}
	}
	if fl := f.FlagSet.Lookup("output"); fl != nil && f.e.verb != "request" {
		// request prints every answer, refusals too, as the HTTP response it is.
		o := fl.Value.(*output)
		if err := f.resolveOutput(o); err != nil {
			return f.e.fail(err), false
		}
		f.e.output = *o
	}
	return 0, true
}

// compatArgs rewrites the spellings Go's flag package accepted into pflag's: -name (one dash,
// a long flag's name) becomes --name, --x (two dashes, a one-letter flag) becomes --long-name.
// -ndemo stays shorthand n with value demo, since "ndemo" names no flag. Flag values and
// everything after "--" are left alone.
func (f *flags) compatArgs(args []string) []string {
	out := make([]string, 0, len(args))
	takesValue := func(fl *pflag.Flag) bool { return fl != nil && fl.NoOptDefVal == "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var fl *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--"):
			fl = f.FlagSet.Lookup(name)
			if fl == nil && len(name) == 1 {
				if fl = f.FlagSet.ShorthandLookup(name); fl != nil {
					a = "--" + fl.Name + strings.TrimPrefix(a, "--"+name)
				}
			}
		case len(name) > 1 && f.FlagSet.Lookup(name) != nil:
			fl = f.FlagSet.Lookup(name)
			a = "-" + a
		case len(a) == 2:
			fl = f.FlagSet.ShorthandLookup(a[1:])
		}
		out = append(out, a)
		if !hasValue && takesValue(fl) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

func (f *flags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  writepath %s\n", strings.TrimSpace(f.long), f.synopsis)
	if f.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(f.examples, "\n"))
	}
	f.FlagSet.BoolP("help", "h", false, "help for "+f.e.verb)
	fmt.Fprintf(w, "\nFlags:\n%s", f.FlagSet.FlagUsages())
}

// fileList is a repeatable string flag; as -f, its values are files, directories (their .json,
// .yaml and .yml files; every level below with -R) and - for stdin.
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, ",") }
func (l *fileList) Type() string   { return "strings" }
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
	paths, err := e.expandPaths(files)
	if err != nil {
		return nil, err
	}
	for _, f := range paths {
		if f == "-" {
			if stdinUsed {
				return nil, usagef("-f - (standard input) can be given only once")
			}
			stdinUsed = true
		}
		docs, err := codec.Options{MaxBytes: limit}.ReadDocuments(f, e.stdin)
		if err == nil {
			docs, err = codec.FlattenLists(docs)
		}
		if err != nil {
			return nil, &inputError{err: err}
		}
		out = append(out, docs...)
	}
	return out, nil
}

// expandPaths replaces each -f directory by its files as kubectl's -f reads them: the .json,
// .yaml and .yml files in lexical order, the directory's own only unless -R. A URL is refused:
// the command reads only local files.
func (e *env) expandPaths(files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			return nil, usagef("%s: -f takes files, directories or - (stdin); writepath reads no URLs (download the file first)", f)
		}
		if f == "-" {
			out = append(out, f)
			continue
		}
		info, err := os.Stat(f)
		if err != nil || !info.IsDir() {
			out = append(out, f) // reading it reports what is wrong
			continue
		}
		found := 0
		err = filepath.WalkDir(f, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != f && !e.recursive {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(path) {
			case ".json", ".yaml", ".yml":
				out = append(out, path)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, &inputError{err: err}
		}
		if found == 0 {
			return nil, &inputError{err: fmt.Errorf("error reading [%s]: recognized file extensions are [.json .yaml .yml]", f)}
		}
	}
	return out, nil
}

// warnNoManagedFields warns on stderr when a live object read from source carries no
// metadata.managedFields although the apiserver stores them on every object it writes: kubectl
// get -o yaml hides them unless --show-managed-fields, and without them every field looks
// unowned (server-side apply attributes conflicts to "before-first-apply", owners shows
// nothing). An object without a resourceVersion is not a stored one and gets no warning.
func (e *env) warnNoManagedFields(source string, obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	if rv, _ := md["resourceVersion"].(string); rv == "" {
		return
	}
	if mf, ok := md["managedFields"].([]any); ok && len(mf) > 0 {
		return
	}
	fmt.Fprintf(e.stderr, "Warning: %s has no metadata.managedFields: field ownership is computed as if no manager owned any field; get the live object with kubectl get --show-managed-fields -o yaml\n", source)
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

// output is the -o flag: yaml, json, name, wide (verbs that print tables), and kubectl's
// template formats jsonpath=T, jsonpath-file=F, jsonpath-as-json=T, go-template=T,
// go-template-file=F, template=T and templatefile=F (or the format alone, with --template).
type output string

func (o *output) String() string { return string(*o) }
func (o *output) Type() string   { return "string" }
func (o *output) Set(s string) error {
	*o = output(s)
	return nil
}

// objectFormats are the -o formats of every verb that prints objects, as kubectl lists them.
const objectFormats = "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml"

// resolveOutput checks -o as kubectl's printer flags do and parses a template: --template with
// no -o is go-template, a template format without =TEMPLATE takes --template.
func (f *flags) resolveOutput(o *output) error {
	if p := f.e.printer; p != nil && string(*o) == p.format {
		return nil // resolved by an earlier parse of the same flags (parseInterspersed)
	}
	format, tmpl, hasTmpl := strings.Cut(string(*o), "=")
	if format == "" && !hasTmpl && f.e.template != "" {
		format = "go-template"
	}
	switch format {
	case "", "yaml", "json", "name":
		if hasTmpl {
			break
		}
		return nil
	case "wide":
		if f.wide && !hasTmpl {
			return nil
		}
	case "jsonpath", "jsonpath-file", "jsonpath-as-json", "go-template", "go-template-file", "template", "templatefile":
		if !hasTmpl {
			tmpl = f.e.template
		}
		if tmpl == "" {
			return usagef("template format specified but no template given")
		}
		p, err := newTemplatePrinter(format, tmpl, f.e.allowMissing)
		if err != nil {
			return err
		}
		f.e.printer = p
		*o = output(format)
		return nil
	}
	allowed := objectFormats
	if f.wide {
		allowed += ",wide"
	}
	return usagef("unable to match a printer suitable for the output format %q, allowed formats are: %s", string(*o), allowed)
}

// printValue writes v as -o asks: JSON (kubectl's four-space indent), YAML, kubectl's -o name
// lines for an object or a List of them (kind.group/name, the kind lower-cased), or the -o
// template.
func (e *env) printValue(o output, v any) error {
	if e.printer != nil && o == e.output {
		return e.printer.print(e.stdout, v)
	}
	switch o {
	case "json":
		// Written as it is encoded: indented JSON grows with the square of the depth.
		return codec.WriteJSONIndent(e.stdout, v)
	case "name":
		return e.printNames(v)
	}
	data, err := codec.EncodeYAML(v)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(data)
	return err
}

// printNames is -o name: one line per object, as kubectl's NamePrinter writes them.
func (e *env) printNames(v any) error {
	obj, ok := v.(map[string]any)
	if !ok || stringField(obj, "kind") == "" {
		return usagef("-o name prints objects, and this verb's answer is not one: use -o yaml or -o json")
	}
	if items, isList := obj["items"].([]any); isList {
		for _, it := range items {
			if err := e.printNames(it); err != nil {
				return err
			}
		}
		return nil
	}
	kind := strings.ToLower(stringField(obj, "kind"))
	if group, _, found := strings.Cut(stringField(obj, "apiVersion"), "/"); found && group != "" {
		kind += "." + group
	}
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	_, err := fmt.Fprintf(e.stdout, "%s/%s\n", kind, name)
	return err
}

// oneLine keeps a usage error on one line: a line break that came from an argument is shown
// escaped.
func oneLine(msg string) string {
	return strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`).Replace(msg)
}

// printStatus writes a refused write's metav1.Status on stdout when -o asks for json or yaml,
// for scripts that parse the answer: JSON as the apiserver orders its fields, indented as
// kubectl indents; YAML with sorted keys, as kubectl -o yaml prints.
func (e *env) printStatus(se *status.Error) {
	if e.output != "json" && e.output != "yaml" {
		return
	}
	body, err := json.Marshal(se)
	if err != nil {
		return
	}
	if e.output == "json" {
		var b bytes.Buffer
		if json.Indent(&b, body, "", "    ") == nil {
			b.WriteByte('\n')
			e.stdout.Write(b.Bytes())
		}
		return
	}
	if v, err := codec.DecodeValue(body); err == nil {
		if data, err := codec.EncodeYAML(v); err == nil {
			e.stdout.Write(data)
		}
	}
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
		fmt.Fprintf(e.stderr, "error: %s\nSee 'writepath %s --help' for usage.\n", oneLine(ue.msg), e.verb)
		return exitUsage
	case errors.As(err, &ie):
		fmt.Fprintf(e.stderr, "error: %s\n", ie.err) // the decoders' words, as kubectl prints them (YAML's span lines)
		return exitUsage
	case errors.As(err, &se):
		e.printStatus(se)
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
