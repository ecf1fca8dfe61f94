// Command writepath answers, from files and without a cluster, what kube-apiserver 1.37 does
// with a write; `writepath serve` is an in-memory Kubernetes API server. The verbs live in
// package cli (github.com/writepath/writepath/cmd/writepath/cli), importable so that a binary
// built in another module (storage/etcd) can run the same command with its own hooks
// (cli.Options).
//
//	go install github.com/writepath/writepath/cmd/writepath@latest
//	writepath --help
package main

import (
	"os"

	"github.com/writepath/writepath/cmd/writepath/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{}))
}
