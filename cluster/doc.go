// Package cluster is writepath's API server state: where objects live between requests, one
// revision counter as their resourceVersion, and the event history that watches read.
//
// The model is etcd's as kube-apiserver uses it. A Store holds objects by key (group, resource,
// namespace, name) in several versions each; every write takes the next value of one counter
// shared by all resources, and that revision is the object's metadata.resourceVersion. A write is
// a compare-and-swap on the key's mod revision (0 for a create), which is how optimistic
// concurrency reaches storage. Reads and watches may start at any revision the store still keeps;
// past that they are too old (410 Gone at the HTTP layer). Lists come in etcd key order, which is
// the order kube-apiserver lists in.
//
// What exists so far is the storage layer (Store, NewMemoryStore, the storetest suite); the
// request path on registry, the controllers and the REST handler are built on it.
//
// # Usage
//
//	s := cluster.NewMemoryStore(cluster.MemoryOptions{})
//	key := cluster.Key{Resource: "configmaps", Namespace: "demo", Name: "app"}
//	rev, err := s.Write(ctx, cluster.Write{Key: key, Value: obj}) // create: ModRevision 0
//	got, err := s.Get(ctx, key)                                    // got.Value's resourceVersion is rev
//	_, err = s.Write(ctx, cluster.Write{Key: key, Value: changed, ModRevision: got.ModRevision})
//	w, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, rev) // events after rev
//	for ev := range w.Events() { ... }
//
// # Invariants
//
//   - A Store copies what it is given and returns fresh copies from Get and List; a watch
//     event's Value is shared by every watcher and is read-only.
//   - Every Store method is safe for concurrent use; writes are serialised, so revisions are
//     strictly increasing and every successful write has its own revision.
//   - Writers never wait on watchers: a watcher that falls more than its buffer behind is closed
//     with ErrWatcherTooSlow.
//   - Costs: a write is amortised O(log k) for a key with k kept versions; a list is linear in the
//     keys of its resource (n log n after n creates since the last list); memory is the objects
//     plus at most 2×History superseded versions and events.
//
// # Errors
//
// *NotFoundError (a missing key), *ConflictError (a failed compare-and-swap; Exists for a create
// of an existing key), *TooOldError (a revision no longer kept), *FutureRevisionError (a revision
// not reached yet), ErrWatcherTooSlow (Watcher.Err of a closed slow watcher). The HTTP layer turns
// them into the apiserver's Status responses.
package cluster
