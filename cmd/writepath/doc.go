// Command writepath answers, from files and without a cluster, what kube-apiserver 1.37 does
// with a write; `writepath serve` is an in-memory Kubernetes API server. The command is one
// call, cli.Main: the verbs live in package cli (github.com/writepath/writepath/cmd/writepath/cli),
// importable so that a binary built in another module (storage/etcd) can run the same command
// with its own hooks (cli.Options).
//
// # Usage
//
//	go install github.com/writepath/writepath/cmd/writepath@latest
//	writepath --help
//	writepath apply --server-side -f deployment.yaml --live stored.yaml
//	writepath serve
//
// # Invariants
//
// main holds no logic of its own: what the command reads, writes and answers is package cli's
// (see its documentation).
//
// # Errors
//
// The exit status is cli.Main's: 0 success, 1 a negative answer (the server would refuse the
// write), 2 bad usage or unreadable input.
package main
