// Package cli is the writepath command. It answers, from files and without a cluster, what
// kube-apiserver 1.37 (and kube-controller-manager after it) does with a write: the object it
// stores, the conflict or refusal it returns, the metadata.generation, who owns which fields,
// what a deletion leaves behind. A verb that answers as the server does (apply --server-side,
// patch, delete, admit, validate, request, ...) sends one request through registry.Handle over a
// world built from its files (world.go); serve runs a cluster; the others (rv, generation,
// owners, schema, diff, convert, why-stuck, rollout) print what one library package computes.
// The answers are the library's; this package only reads files, spells flags as kubectl does and
// prints.
//
// # Usage
//
//	writepath generation -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml
//	writepath apply --server-side -f deployment.yaml --live stored.yaml --field-manager me
//	writepath request --state state.yaml --data-file cm.json POST /api/v1/namespaces/demo/configmaps
//	writepath rv compare 99 100
//	writepath serve   # an in-memory API server and its kubeconfig
//
// Conventions follow kubectl 1.37's: flags are pflag's (values attached or not: -ndemo,
// -oyaml, --filename=x; flags after positional arguments; the words of its errors, such as
// "unknown flag: --bogus"), one spelling per concept in every verb that has it (-f/--filename
// repeatable, directories with -R/--recursive, - for stdin; -n/--namespace; -o/--output
// yaml|json|name, kubectl's templates jsonpath=, jsonpath-file=, jsonpath-as-json=,
// go-template=, go-template-file= (with --template and --allow-missing-template-keys; JSONPath
// is internal/jsonpath, kubectl's syntax), and wide where a verb prints a table (owners,
// generation --rules); --field-manager, --force-conflicts, --server-side, --subresource,
// --field-validation, --cascade, --grace-period, --dry-run, --crd repeatable, with the CRDs
// among the -f objects counted too), multi-document YAML and
// kind: List wherever objects are read, objects named as TYPE/NAME or TYPE NAME with the
// resource table's names (deploy/web, deployments.apps web), --help with examples that run from
// the repository root, server answers printed as "Error from server (<Reason>): <message>",
// and writepath completion bash|zsh|fish|powershell (cobra's). Spellings of Go's flag package
// that scripts used keep working (-crd FILE, --f FILE).
//
// # Embedding
//
// cmd/writepath's main is one line, Main(os.Args[1:], os.Stdin, os.Stdout,
// os.Stderr, Options{}). A binary built in another module runs the same verbs with
// hooks of its own in Options: Options.ServeStore gives `serve` a store other than
// the in-memory one and the flags that configure it (storage/etcd's
// --etcd-servers). The library itself never imports such a module.
//
// # Invariants
//
// Every verb but serve reads only the files it is given and stdin, writes only stdout and
// stderr, and is deterministic once --now fixes the time where a verb records one (the default
// is the current time); serve listens on the network and writes its kubeconfig. Verbs are
// listed in one static table (verbs in command.go); each lives in its own file.
//
// # Errors
//
// Exit status 0: success. 1: the answer is negative — the server would refuse
// the write (409 Conflict, 422 Invalid, ...), or the input fails the rule asked
// (a resourceVersion that is not well formed). 2: bad usage, or input that cannot
// be read or decoded (the error names the file and, where known, line and field).
//
// # Deliberate differences from kubectl
//
//   - Exit status 2 for bad usage and unreadable input, where kubectl exits 1 for every error
//     but diff's: writepath's 1 means "the answer is negative", which scripts test.
//   - Every usage error ends with "See 'writepath VERB --help' for usage."; kubectl adds it only
//     to pflag's own errors (TestKubectlMisuseRecorded compares the error line itself).
//   - With -o json or -o yaml a refused write also prints its metav1.Status on stdout;
//     kubectl prints only the error on stderr.
//   - -f refuses URLs (kubectl downloads them): the command reads local files only.
//   - A bare --dry-run (delete, admit, patch, apply --server-side) means server, not kubectl's
//     deprecated client; --client-side is writepath's (client-side apply is kubectl's default).
//     Verbs that answer as the server does refuse --dry-run=client (patch, apply --server-side,
//     delete, admit); client-side apply, which never reaches a server here, refuses server.
//   - admit's files of Namespace objects (the namespaces admission sees) are
//     --namespace-object FILE; its -n/--namespace is the request namespace as every verb's. The
//     spelling of earlier versions, --namespace FILE, still reads FILE as Namespace objects when
//     FILE exists and is not a namespace name (both: refused as ambiguous, exit 2).
//   - apply (client-side) -n keeps the meaning it had before the other verbs took kubectl's: an
//     object in another namespace keeps it; kubectl, like writepath's apply --server-side,
//     validate and admit, refuses it ("the namespace from the provided object ... does not
//     match"). rollout's -n, like delete's and why-stuck's, picks the objects of the namespace
//     among a cluster's state.
//   - diff prints the patch kubectl would send, not a unified diff of live and merged objects;
//     its exit status is kubectl diff's (0 equal, 1 different, 2 an error).
//   - Warnings for a stored object without metadata.managedFields (apply --server-side --live,
//     owners): kubectl get hides them, and ownership computed without them is wrong.
//   - Usage errors naming an argument with a line break show it escaped (one line each).
//   - delete --now is the clock (RFC 3339), kept from before; kubectl delete's --now is a bool
//     (--grace-period=1). Flags kubectl's twin of a verb lacks are listed, with why, in
//     TestKubectlFlagsRecorded's writepathOnlyFlags (--live, --crd, --now, --uid, --client-side,
//     diff's --type, patch's --field-validation: kubectl spells it --validate on apply).
//   - diff and delete take -o (and its templates), which kubectl diff has not and kubectl delete
//     has for name only.
//   - -o kyaml (kubectl 1.37's KYAML) is not a format; a bad template (parse error, no template)
//     is bad usage (exit 2), as every usage error here, where kubectl exits 1. JSONPath walks
//     maps in sorted key order ({.metadata.labels.*}, ..name); kubectl in Go's random map order.
//   - -o wide adds columns writepath's own tables have (owners: SHARED WITH; generation
//     --rules: KIND, RULE); verbs without a table refuse it as kubectl refuses a format.
//
// # Fidelity tests
//
// kubectl 1.37's answers are recorded (testdata/cli/kubectl, with the scripts that record them)
// and replayed without it: TestKubectlMisuseRecorded (refused command lines: error line, exit),
// TestKubectlFlagsRecorded (flag names and shorthands of apply, patch, diff, delete, rollout
// undo, explain, version), TestKubectlPrintersRecorded (every -o format and template error on
// objects kubectl built) and TestKubectlDiffRecorded (kubectl diff's exit status against
// writepath serve).
package cli
