package cluster

import (
	"context"
	"fmt"
	"strconv"
)

// Key names one stored object: the group and resource (plural) it is stored under, its namespace
// ("" for cluster-scoped resources) and its name. Objects of one resource are stored once, in their
// storage version, whatever version a client asks for; the version is not part of the key. The zero
// value names nothing.
type Key struct {
	Group     string
	Resource  string
	Namespace string
	Name      string
}

// String prints the key in the order kube-apiserver lays keys out in etcd, group first:
// "apps/deployments/demo/web", "/namespaces//demo".
func (k Key) String() string {
	return k.Group + "/" + k.Resource + "/" + k.Namespace + "/" + k.Name
}

// Prefix selects the objects of one resource, in one namespace or in all of them (Namespace "").
type Prefix struct {
	Group     string
	Resource  string
	Namespace string
}

// Matches reports whether key lies under the prefix.
func (p Prefix) Matches(k Key) bool {
	return k.Group == p.Group && k.Resource == p.Resource && (p.Namespace == "" || k.Namespace == p.Namespace)
}

// Object is one stored object with the revision of the write that stored it (its mod revision,
// which is its metadata.resourceVersion).
type Object struct {
	Key         Key
	Value       map[string]any
	ModRevision int64
}

// Write is one write: Value stored under Key, or the key deleted when Value is nil.
//
// ModRevision is the write's precondition, the compare of etcd's compare-and-swap: the key's
// current mod revision must equal it; 0 means the key must not exist (a create); AnyRevision skips
// the check.
type Write struct {
	Key         Key
	Value       map[string]any
	ModRevision int64
}

// AnyRevision, as a Write's ModRevision, writes whatever the key's current revision is.
const AnyRevision int64 = -1

// EventType is a watch event's type, as the apiserver's watch stream names it.
type EventType string

// The event types a store emits.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change of the store. For Deleted, Value is the object as last stored, with
// metadata.resourceVersion set to the revision of the delete, as kube-apiserver's watch cache
// delivers it.
type Event struct {
	Type     EventType
	Key      Key
	Value    map[string]any
	Revision int64
}

// ListRequest asks for the objects under Prefix as of a revision.
type ListRequest struct {
	Prefix Prefix
	// Revision is the revision to read at; 0 reads the current state.
	Revision int64
	// After, when set, starts the list after this key (a continue token's position).
	After *Key
	// Limit bounds the number of items; 0 is no limit.
	Limit int
}

// ListResult holds the objects under a prefix in key order, the revision they were read at, and
// whether items beyond Limit remain (More).
type ListResult struct {
	Items    []Object
	Revision int64
	More     bool
	// Remaining counts the items after the last one returned when More is set (the list's
	// remainingItemCount).
	Remaining int64
}

// Store is where cluster keeps objects: one revision counter shared by all resources (as etcd's
// revision is), compare-and-swap writes, reads at a revision and watches from one. The in-memory
// store (NewMemoryStore) is the default; another storage implements the same interface and passes
// the same suite (storetest).
//
// A Store never mutates the maps it is given and never hands out maps another caller can reach:
// Write copies its value in, reads return fresh copies. Every method is safe for concurrent use.
type Store interface {
	// Revision returns the store's current revision (0 before any write).
	Revision(ctx context.Context) (int64, error)
	// Get returns the object stored under key. A missing key is a *NotFoundError.
	Get(ctx context.Context, key Key) (Object, error)
	// List returns the objects under a prefix in key order (namespace, then name, bytewise).
	// A revision older than the store keeps is a *TooOldError; one newer than its current
	// revision is a *FutureRevisionError.
	List(ctx context.Context, req ListRequest) (ListResult, error)
	// Write performs one write atomically and returns its revision. The stored value's
	// metadata.resourceVersion is set to that revision. A failed precondition is a
	// *ConflictError (the key exists for a create: Exists is set); a delete of a missing key is a
	// *NotFoundError.
	Write(ctx context.Context, w Write) (int64, error)
	// Watch streams the events under a prefix after revision from (0: from now on). A revision
	// older than the store keeps is a *TooOldError.
	Watch(ctx context.Context, prefix Prefix, from int64) (Watcher, error)
}

// Reads is the read side of a Store.
type Reads interface {
	Revision(ctx context.Context) (int64, error)
	Get(ctx context.Context, key Key) (Object, error)
	List(ctx context.Context, req ListRequest) (ListResult, error)
}

// CachedReader is a Store with a watch-fed cache, as kube-apiserver's watch cache: reads from it
// cost no round trip and may lag the store (never by writes a later compare-and-swap would not
// catch: a write's precondition is the mod revision it read). A Cluster on such a store does not
// serialise requests (another server may write the same store anyway): a write request's first
// answer reads the cache, and reads and every answer given again read the store.
type CachedReader interface {
	Store
	// Cached returns the cache's reads, ok false while there is none (not yet filled, or its
	// watch ended and it is being refilled). Its List serves Prefix only (no Revision, After or
	// Limit).
	Cached() (r Reads, ok bool)
}

// Watcher is an open watch. Events arrive on Events in revision order; the channel is closed
// when the watch ends (Stop, its context done, the store closing a watcher that fell too far
// behind). Err says why it ended.
type Watcher interface {
	Events() <-chan Event
	Stop()
	// Err is nil while the watch is open and after Stop; ErrWatcherTooSlow when the store closed
	// a watcher whose reader did not keep up.
	Err() error
}

// NotFoundError is a read or delete of a key that holds nothing.
type NotFoundError struct{ Key Key }

func (e *NotFoundError) Error() string { return "not found: " + e.Key.String() }

// ConflictError is a write whose precondition failed: the key's current mod revision (0 when it
// does not exist) differs from the one the write expected.
type ConflictError struct {
	Key         Key
	Expected    int64
	ModRevision int64
}

// Exists reports whether the conflict is a create of a key that exists.
func (e *ConflictError) Exists() bool { return e.Expected == 0 && e.ModRevision != 0 }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("conflict on %s: expected revision %d, stored %d", e.Key, e.Expected, e.ModRevision)
}

// TooOldError is a read or watch at a revision the store no longer keeps (etcd's "required
// revision has been compacted"); kube-apiserver answers it with 410 Gone.
type TooOldError struct {
	Revision int64
	// Oldest is the oldest revision still readable.
	Oldest int64
}

func (e *TooOldError) Error() string {
	return "too old resource version: " + strconv.FormatInt(e.Revision, 10) + " (" + strconv.FormatInt(e.Oldest, 10) + ")"
}

// FutureRevisionError is a read at a revision the store has not reached yet.
type FutureRevisionError struct{ Revision, Current int64 }

func (e *FutureRevisionError) Error() string {
	return fmt.Sprintf("revision %d is newer than the store's current revision %d", e.Revision, e.Current)
}

// ErrWatcherTooSlow ends a watch whose reader fell more than the watcher's buffer behind: the
// store closes it rather than block writers, as kube-apiserver closes an unresponsive watcher.
var ErrWatcherTooSlow = fmt.Errorf("watcher closed: its reader did not keep up")
