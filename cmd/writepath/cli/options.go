package cli

import (
	"context"

	"github.com/spf13/pflag"
	"github.com/writepath/writepath/cluster"
)

// Options is what a binary built in another module plugs into the command. The
// library's own binary (cmd/writepath) passes the zero Options; a binary that
// needs dependencies the library must not import (an etcd client, say) builds its
// own main with the same verbs and fills the hooks here:
//
//	func main() {
//		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{
//			ServeStore: &cli.ServeStore{AddFlags: addEtcdFlags, Open: openEtcd},
//		}))
//	}
//
// Every field's zero value is the library's behaviour.
type Options struct {
	// ServeStore, when set, lets `writepath serve` run over a store other than the
	// in-memory one (storage/etcd: --etcd-servers). Nil: serve always uses
	// cluster.NewMemoryStore.
	ServeStore *ServeStore
}

// ServeStore is the storage hook of `writepath serve`: it adds the backend's flags
// to serve's and opens the store once they are parsed. Serve owns the flags it
// documents (-f, --port, --kubeconfig, -v); the hook's flags must not reuse those
// names (a clash is reported as bad usage, exit 2).
type ServeStore struct {
	// AddFlags registers the backend's flags (e.g. --etcd-servers) on serve's flag
	// set; they appear in `writepath serve --help`. May be nil.
	AddFlags func(fs *pflag.FlagSet)
	// Open is called once, after the flags are parsed and before serve loads its
	// -f objects. It returns the store to serve from, or a nil store (and nil
	// error) to keep the in-memory one (e.g. --etcd-servers not given). close, if
	// not nil, is called when serve stops. An error stops serve: one made with
	// Usagef is bad usage (exit 2, "error: ..." and a pointer to --help); any
	// other is printed as "error: ..." with exit 1. ctx is done when serve is
	// interrupted.
	Open func(ctx context.Context) (store cluster.Store, close func() error, err error)
	// Configure, when set, adjusts the cluster's options once the store is open (e.g.
	// Options.LeaderElection for several servers on one etcd). With LeaderElection set, serve
	// runs Cluster.Lead until it stops.
	Configure func(opts *cluster.Options)
}

// Usagef returns an error that the command reports as bad usage (exit 2), for
// hooks that validate their own flags.
func Usagef(format string, args ...any) error { return usagef(format, args...) }
