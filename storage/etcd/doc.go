// Package etcd is a cluster.Store on etcd v3 that lays objects out as kube-apiserver 1.37 does,
// so that one writepath server, several of them, or writepath next to a kube-apiserver can share
// one etcd.
//
// Keys are <prefix>/<resource prefix>/<namespace>/<name> (cluster-scoped objects without the
// namespace): the prefix is --etcd-prefix ("/registry" by default), the resource prefix the
// apiserver's storage factory's (ResourcePrefix: "pods", "deployments", "services/specs",
// "minions", "apiextensions.k8s.io/customresourcedefinitions", "example.com/widgets"). Values are
// the objects' JSON without metadata.resourceVersion; an object's resourceVersion is its key's mod
// revision, so there is one revision across all resources, exactly etcd's. Writes are etcd
// transactions comparing the key's mod revision (compare-and-swap); reads are linearizable. A
// list of the current state is served from the store's watch-fed cache as kube-apiserver 1.37's
// consistent lists are: etcd's current revision is read, and the cache is awaited until it has
// reached it (a progress notification on its watch moves it past writes under other prefixes;
// after 3 s the list reads etcd). A list at a revision (a continue token's, an Exact
// resourceVersion) is one range request at that revision with etcd's limit, a continue position
// being the last key returned; watches are etcd watches from a revision with the previous values, and a watch
// or read at a compacted revision is a *cluster.TooOldError (410 Gone with the apiserver's words
// through cluster's HTTP layer).
//
// # Usage
//
//	store, err := etcd.New(etcd.Options{Endpoints: []string{"http://127.0.0.1:2379"}})
//	if err != nil { ... }
//	defer store.Close()
//	c, err := cluster.New(cluster.Options{Store: store})
//
// cmd/writepath in this module is the writepath CLI whose serve verb takes kube-apiserver's
// --etcd-servers, --etcd-prefix, --etcd-cafile, --etcd-certfile and --etcd-keyfile.
//
// # Invariants
//
// A Store is safe for concurrent use by any number of goroutines and processes: every write is
// checked against the stored mod revision by etcd itself. Write never modifies its value; reads
// return fresh values (decoded, or deep copies of the cache's decoded ones). Stored values are decoded with a bound (Options.MaxValueBytes).
//
// # Errors
//
// The cluster.Store error types (NotFoundError, ConflictError, TooOldError, FutureRevisionError);
// anything else is etcd's or the network's, wrapped with an "etcd: " prefix.
package etcd
