// Package cli is the writepath command. It answers, from files and without a cluster, what
// kube-apiserver 1.37 does with a write: the metadata.generation it stores, the
// conflict it returns, how it orders resourceVersions. Each verb is a thin layer
// over one library package (versions for rv and generation); the answers are the
// library's.
//
// # Usage
//
//	writepath generation -f testdata/examples/deployment.yaml -f testdata/examples/deployment-scaled.yaml
//	writepath rv compare 99 100
//	writepath rv check -f stored.yaml -f new.yaml
//	writepath version -o json
//
// Conventions follow kubectl: -f FILE or -f - (repeatable, multi-document YAML or
// JSON), -o yaml|json, --help on every verb, server answers printed as
// "Error from server (<Reason>): <message>".
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
// The command reads only the files it is given and stdin, writes only stdout and
// stderr, and is deterministic. Verbs are listed in one static table (verbs in
// main.go); each lives in its own file.
//
// # Errors
//
// Exit status 0: success. 1: the answer is negative — the server would refuse
// the write (409 Conflict, 422 Invalid, ...), or the input fails the rule asked
// (a resourceVersion that is not well formed). 2: bad usage, or input that cannot
// be read or decoded (the error names the file and, where known, line and field).
package cli
