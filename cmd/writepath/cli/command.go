package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// verb is one subcommand: `writepath <name> ...`.
type verb struct {
	// name is the word on the command line.
	name string
	// short is the one-line summary shown by `writepath --help`.
	short string
	// run executes the verb with the arguments after its name and returns the
	// exit code (see exitOK, exitNegative, exitUsage in cli.go).
	run func(e *env, args []string) int
}

// verbs is the table of subcommands, in the order `writepath --help` lists them.
//
// To add a verb: write cmd/writepath/cli/<verb>.go with a func run<Verb>(e *env,
// args []string) int that builds its flags with e.flags (which gives it
// --help, kubectl-style errors and exit code 2 on bad usage), reads objects
// with e.readObjects (-f FILE|-, multi-document YAML/JSON), prints with
// e.printValue (-o yaml|json) and ends with e.fail(err) on errors, then add
// one line below. Tests go in <verb>_test.go as golden cases (see main_test.go);
// adding a verb changes `writepath --help`: refresh testdata/cli/help.golden and
// no-args.golden with UPDATE_GOLDEN=1 go test ./cmd/writepath/... -run TestCLI.
func verbs() []verb {
	return []verb{
		{"version", "Print the writepath version and the Kubernetes version it models", runVersion},
		{"rv", "Compare resourceVersions and check updates for optimistic concurrency", runRV},
		{"generation", "Predict metadata.generation after a write", runGeneration},
		{"apply", "Predict an apply (--server-side: result with managedFields, or the conflicts and who owns them)", runApply},
		{"patch", "Apply a JSON, merge or strategic merge patch to an object as kube-apiserver does (kubectl patch)", runPatch},
		{"diff", "Print the JSON, merge or strategic merge patch that turns one object into another", runDiff},
		{"owners", "Show who owns which fields of an object (metadata.managedFields as a table)", runOwners},
		{"schema", "Explain list types, keys and patch strategies of a kind's fields (built-in or --crd)", runSchema},
		{"validate", "Prune, default and validate a custom object against its CRD", runValidate},
		{"admit", "Run a write through admission: policies (VAP, MAP), webhooks, built-in checks", runAdmit},
		{"convert", "Convert custom objects between CRD versions (None or Webhook strategy); check round trips", runConvert},
		{"delete", "Simulate a DELETE and the garbage collector and namespace controller to their fixpoint", runDelete},
		{"request", "Answer one HTTP request (METHOD URL, body) as kube-apiserver answers it, over objects from files", runRequest},
		{"why-stuck", "Explain why an object or a namespace stays Terminating", runWhyStuck},
		{"serve", "Serve an in-memory Kubernetes API server (HTTPS, kubeconfig) with the garbage collector and namespace controller", runServe},
		{"rollout", "Print a Deployment's rollout step by step as the controllers drive it; rollout undo: what a rollback writes", runRollout},
	}
}

// Main is the whole command: it parses args (without the program name), runs the
// verb over the given streams and returns the exit code (0, 1 or 2; see the
// package documentation). opts plugs in what a binary built in another module
// adds; the zero Options is the writepath command itself.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, opts Options) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, opts: opts}
	return e.run(args)
}

// run is Main with the default Options; tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Main(args, stdin, stdout, stderr, Options{})
}

func (e *env) run(args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" {
			return e.run([]string{args[1], "--help"})
		}
		usage(stdout)
		return exitOK
	}
	if args[0] == "completion" || strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		return e.execute(args)
	}
	for _, v := range verbs() {
		if v.name == args[0] {
			return e.execute(args)
		}
	}
	fmt.Fprintf(stderr, "error: unknown command %q for \"writepath\"\nRun 'writepath --help' for usage.\n", args[0])
	return exitUsage
}

// execute runs args through the cobra command tree: one command per verb, and cobra's
// completion command (writepath completion bash|zsh|fish|powershell) with its hidden
// __complete, which the scripts call. A verb parses its own flags (with pflag, see flags), so
// that its errors, help and exit codes are the verb's; while completing, each verb's command
// carries the flags the verb declares, so that the shell completes flag names too.
func (e *env) execute(args []string) int {
	completing := strings.HasPrefix(args[0], cobra.ShellCompRequestCmd)
	root := &cobra.Command{
		Use:           "writepath",
		Short:         "writepath predicts what kube-apiserver " + kubernetesMinor + " does with a write, without a cluster",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	code := exitOK
	for _, v := range verbs() {
		cmd := &cobra.Command{
			Use:                v.name,
			Short:              v.short,
			DisableFlagParsing: !completing,
			RunE: func(_ *cobra.Command, args []string) error {
				e.verb = v.name
				code = v.run(e, args)
				return nil
			},
		}
		if completing {
			cmd.Flags().AddFlagSet(e.declaredFlags(v))
		}
		root.AddCommand(cmd)
	}
	if err := root.Execute(); err != nil {
		fmt.Fprintf(e.stderr, "error: %v\nSee 'writepath --help' for usage.\n", err)
		return exitUsage
	}
	return code
}

// declaredFlags returns the flags verb v declares: v runs with no arguments in a mode where
// parsing stops it before it reads or writes anything (flags.parse).
func (e *env) declaredFlags(v verb) *pflag.FlagSet {
	d := &env{stdout: io.Discard, stderr: io.Discard, verb: v.name, opts: e.opts, declaring: true}
	v.run(d, nil)
	if d.declared == nil {
		return pflag.NewFlagSet(v.name, pflag.ContinueOnError)
	}
	return d.declared
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "writepath predicts what kube-apiserver %s does with a write, without a cluster.\n\n", kubernetesMinor)
	fmt.Fprintln(w, "Usage:\n  writepath <command> [flags]\n\nCommands:")
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-12s %s\n", v.name, v.short)
	}
	fmt.Fprintln(w, "\nUse \"writepath <command> --help\" for more information about a command.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 the answer is negative (conflict, invalid, denied), 2 bad usage or unreadable input.")
}
