// Command writepath is the writepath CLI (github.com/writepath/writepath/cmd/writepath) whose
// serve verb can keep its objects in etcd, as kube-apiserver does, with kube-apiserver's flags:
//
//	writepath serve --etcd-servers http://127.0.0.1:2379 [--etcd-prefix /registry]
//	    [--etcd-cafile CA --etcd-certfile CERT --etcd-keyfile KEY]
//	    [--leader-elect=true --leader-elect-identity ID]
//
// Several servers on one etcd serve the same objects; the controllers run in the one holding the
// kube-system/kube-controller-manager Lease (--leader-elect, kube-controller-manager's flags).
// Without --etcd-servers it serves from memory, as the library's binary.
package main

import (
	"os"

	"github.com/writepath/writepath/cmd/writepath/cli"
	"github.com/writepath/writepath/storage/etcd/serveflags"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{ServeStore: serveflags.New().Hook()}))
}
