package cluster

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/writepath/writepath/internal/value"
)

// MemoryOptions configures NewMemoryStore. The zero value takes the defaults.
type MemoryOptions struct {
	// History is how many revisions a read or a watch may reach back at least (the span etcd keeps before
	// compaction, the watch cache's capacity). A watch from further back is a *TooOldError, which
	// the HTTP layer answers with 410 Gone. Default 10,000.
	History int
	// WatchBuffer is how many events a watcher may hold undelivered beyond the backlog it started
	// with; a watcher past it is closed (ErrWatcherTooSlow) so that writers never wait on a
	// reader. Default 1,000.
	WatchBuffer int
}

const (
	defaultHistory     = 10000
	defaultWatchBuffer = 1000
)

// NewMemoryStore returns an empty in-memory Store: a multi-version map of keys with one revision
// counter, a bounded event history for watches, and per-resource sorted indexes for lists.
// Memory grows with the objects stored plus at most History superseded versions.
func NewMemoryStore(opts MemoryOptions) Store {
	if opts.History <= 0 {
		opts.History = defaultHistory
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = defaultWatchBuffer
	}
	return &memoryStore{
		opts:     opts,
		keys:     map[Key]versions{},
		indexes:  map[resourceKey]*index{},
		watchers: map[*memoryWatcher]struct{}{},
	}
}

type memoryStore struct {
	opts MemoryOptions

	mu        sync.Mutex
	rev       int64
	compacted int64 // reads and watches at revisions below it are too old
	keys      map[Key]versions
	indexes   map[resourceKey]*index
	events    []Event // the events with revisions in (compacted, rev], oldest first
	watchers  map[*memoryWatcher]struct{}
}

type resourceKey struct{ group, resource string }

// versions is one key's history, oldest first; a nil value is a deletion (a tombstone).
type versions []version

type version struct {
	rev   int64
	value map[string]any
}

// at returns the key's version as of revision r, if any.
func (vs versions) at(r int64) (version, bool) {
	i := sort.Search(len(vs), func(i int) bool { return vs[i].rev > r })
	if i == 0 {
		return version{}, false
	}
	return vs[i-1], true
}

func (s *memoryStore) Revision(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev, nil
}

func (s *memoryStore) Get(_ context.Context, key Key) (Object, error) {
	o, err := s.current(key)
	if err != nil {
		return Object{}, err
	}
	o.Value = copyObject(o.Value)
	return o, nil
}

// current is the object stored under key now, its value the stored map itself.
func (s *memoryStore) current(key Key) (Object, error) {
	s.mu.Lock()
	vs := s.keys[key]
	var v version
	if len(vs) > 0 {
		v = vs[len(vs)-1]
	}
	s.mu.Unlock()
	if v.value == nil {
		return Object{}, &NotFoundError{Key: key}
	}
	return Object{Key: key, Value: v.value, ModRevision: v.rev}, nil
}

func (s *memoryStore) List(_ context.Context, req ListRequest) (ListResult, error) {
	s.mu.Lock()
	at := req.Revision
	if at == 0 {
		at = s.rev
	}
	if at < s.compacted {
		s.mu.Unlock()
		return ListResult{}, &TooOldError{Revision: at, Oldest: s.compacted}
	}
	if at > s.rev {
		current := s.rev
		s.mu.Unlock()
		return ListResult{}, &FutureRevisionError{Revision: at, Current: current}
	}
	var found []version
	var keys []Key
	res := ListResult{Revision: at}
	if ix := s.indexes[resourceKey{req.Prefix.Group, req.Prefix.Resource}]; ix != nil {
		sorted := ix.sorted()
		start, stop := 0, len(sorted)
		if ns := req.Prefix.Namespace; ns != "" {
			start = sort.SearchStrings(sorted, ns+"/")
			stop = start + sort.Search(len(sorted)-start, func(i int) bool { return !strings.HasPrefix(sorted[start+i], ns+"/") })
		}
		if req.After != nil {
			after := sortKey(*req.After)
			start += sort.Search(stop-start, func(i int) bool { return sorted[start+i] > after })
		}
		for _, sk := range sorted[start:stop] {
			key := ix.key(sk)
			v, ok := s.keys[key].at(at)
			if !ok || v.value == nil {
				continue
			}
			if req.Limit > 0 && len(found) == req.Limit {
				res.More = true
				res.Remaining++
				continue
			}
			found = append(found, v)
			keys = append(keys, key)
		}
	}
	s.mu.Unlock()
	res.Items = make([]Object, len(found))
	for i, v := range found {
		res.Items[i] = Object{Key: keys[i], Value: copyObject(v.value), ModRevision: v.rev}
	}
	return res, nil
}

// sharedReader is a Store's read path without copies, for the cluster's own readers that never
// modify what they read (the controllers' informer, the garbage collector's snapshot): the
// stored maps themselves, which the store never modifies either.
type sharedReader interface {
	// listShared returns the current objects under a prefix, in key order.
	listShared(p Prefix) []Object
	// getShared returns the current objects stored under keys (nil for a missing one).
	getShared(keys []Key) []map[string]any
	// sharedReads is Reads over the stored maps themselves.
	sharedReads() Reads
	// writeOwned is Write of a value the store may keep as it is: the caller hands it over and
	// neither it nor anyone else modifies it afterwards (its maps may be shared with stored
	// values, which nobody modifies either).
	writeOwned(w Write) (int64, error)
}

func (s *memoryStore) listShared(p Prefix) []Object {
	out, _ := s.listSharedAt(p)
	return out
}

// listSharedAt is listShared and the revision it read at.
func (s *memoryStore) listSharedAt(p Prefix) ([]Object, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.indexes[resourceKey{p.Group, p.Resource}]
	if ix == nil {
		return nil, s.rev
	}
	sorted := ix.sorted()
	start, stop := 0, len(sorted)
	if ns := p.Namespace; ns != "" {
		start = sort.SearchStrings(sorted, ns+"/")
		stop = start + sort.Search(len(sorted)-start, func(i int) bool { return !strings.HasPrefix(sorted[start+i], ns+"/") })
	}
	out := make([]Object, 0, stop-start)
	for _, sk := range sorted[start:stop] {
		k := ix.key(sk)
		if vs := s.keys[k]; len(vs) > 0 && vs[len(vs)-1].value != nil {
			out = append(out, Object{Key: k, Value: vs[len(vs)-1].value, ModRevision: vs[len(vs)-1].rev})
		}
	}
	return out, s.rev
}

func (s *memoryStore) getShared(keys []Key) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		if vs := s.keys[k]; len(vs) > 0 {
			out[i] = vs[len(vs)-1].value
		}
	}
	return out
}

// sharedReads is Reads over the stored maps, for the cluster's own requests (registry.Handle
// never modifies what its World returns): the current revision only, as the cluster reads
// with c.mu held.
func (s *memoryStore) sharedReads() Reads { return memoryShared{s} }

type memoryShared struct{ s *memoryStore }

func (m memoryShared) Revision(ctx context.Context) (int64, error) { return m.s.Revision(ctx) }

func (m memoryShared) Get(_ context.Context, key Key) (Object, error) { return m.s.current(key) }

func (m memoryShared) List(ctx context.Context, req ListRequest) (ListResult, error) {
	if req.Revision != 0 || req.After != nil || req.Limit != 0 {
		return m.s.List(ctx, req) // not the cluster's own reads: copies
	}
	items, rev := m.s.listSharedAt(req.Prefix)
	return ListResult{Items: items, Revision: rev}, nil
}

func (s *memoryStore) Write(_ context.Context, w Write) (int64, error) {
	var stored map[string]any
	if w.Value != nil {
		c, err := value.DeepCopyMap(w.Value)
		if err != nil {
			return 0, err
		}
		stored = c
	}
	return s.write(w, stored)
}

func (s *memoryStore) writeOwned(w Write) (int64, error) {
	return s.write(w, w.Value)
}

// write stores stored (Write's value, or nil for a deletion).
func (s *memoryStore) write(w Write, stored map[string]any) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.keys[w.Key]
	var current version
	if len(vs) > 0 && vs[len(vs)-1].value != nil {
		current = vs[len(vs)-1]
	}
	if w.Value == nil && current.value == nil {
		return 0, &NotFoundError{Key: w.Key}
	}
	if w.ModRevision != AnyRevision && w.ModRevision != current.rev {
		return 0, &ConflictError{Key: w.Key, Expected: w.ModRevision, ModRevision: current.rev}
	}
	s.rev++
	rv := strconv.FormatInt(s.rev, 10)
	ev := Event{Key: w.Key, Revision: s.rev}
	switch {
	case stored == nil:
		// The watch cache delivers a deleted object as last stored, at the delete's revision.
		ev.Type, ev.Value = Deleted, withResourceVersion(current.value, rv)
	case current.value == nil:
		stored = storedAt(stored, rv)
		ev.Type, ev.Value = Added, stored
	default:
		stored = storedAt(stored, rv)
		ev.Type, ev.Value = Modified, stored
	}
	s.keys[w.Key] = append(vs, version{rev: s.rev, value: stored})
	ix := s.indexes[resourceKey{w.Key.Group, w.Key.Resource}]
	if ix == nil {
		ix = newIndex()
		s.indexes[resourceKey{w.Key.Group, w.Key.Resource}] = ix
	}
	ix.add(w.Key)
	s.events = append(s.events, ev)
	s.compact()
	s.notify(ev)
	return s.rev, nil
}

// compact drops the events beyond History and, for the keys they touched, the versions no read at
// or after the new compacted revision can see. Each version is dropped once: linear overall.
func (s *memoryStore) compact() {
	// Compact in batches (at 2×History, down to History) so that a write costs amortised O(1).
	if len(s.events) <= 2*s.opts.History {
		return
	}
	over := len(s.events) - s.opts.History
	dropped := s.events[:over]
	s.compacted = dropped[len(dropped)-1].Revision
	for _, ev := range dropped {
		vs := s.keys[ev.Key]
		// Keep the newest version at or below the compacted revision and every later one.
		i := sort.Search(len(vs), func(i int) bool { return vs[i].rev > s.compacted })
		if i > 1 {
			vs = append(versions(nil), vs[i-1:]...)
		}
		if len(vs) == 1 && vs[0].value == nil && vs[0].rev <= s.compacted {
			delete(s.keys, ev.Key)
			s.indexes[resourceKey{ev.Key.Group, ev.Key.Resource}].remove(ev.Key)
			continue
		}
		s.keys[ev.Key] = vs
	}
	s.events = append([]Event(nil), s.events[over:]...)
}

// storedAt is the store's own value (a copy, or handed over) with resourceVersion rv: itself
// when it has it already (a write through registry on one server carries the revision it
// gets), else withResourceVersion.
func storedAt(obj map[string]any, rv string) map[string]any {
	if md, _ := obj["metadata"].(map[string]any); md != nil && md["resourceVersion"] == rv {
		return obj
	}
	return withResourceVersion(obj, rv)
}

func withResourceVersion(obj map[string]any, rv string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	meta, _ := obj["metadata"].(map[string]any)
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["resourceVersion"] = rv
	out["metadata"] = m
	return out
}

// copyObject copies a stored value for a caller. Stored values are in the object model (Write
// checked them), so the copy cannot fail.
func copyObject(m map[string]any) map[string]any {
	c, _ := value.DeepCopyMap(m)
	return c
}

func (s *memoryStore) Watch(ctx context.Context, prefix Prefix, from int64) (Watcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if from == 0 {
		from = s.rev
	}
	if from < s.compacted {
		return nil, &TooOldError{Revision: from, Oldest: s.compacted}
	}
	if from > s.rev {
		return nil, &FutureRevisionError{Revision: from, Current: s.rev}
	}
	var backlog []Event
	i := sort.Search(len(s.events), func(i int) bool { return s.events[i].Revision > from })
	for _, ev := range s.events[i:] {
		if prefix.Matches(ev.Key) {
			backlog = append(backlog, ev)
		}
	}
	w := &memoryWatcher{store: s, prefix: prefix, ch: make(chan Event, len(backlog)+s.opts.WatchBuffer), done: make(chan struct{})}
	for _, ev := range backlog {
		w.ch <- ev
	}
	s.watchers[w] = struct{}{}
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
				w.Stop()
			case <-w.done:
			}
		}()
	}
	return w, nil
}

// notify hands ev to every watcher of its prefix without waiting: a watcher whose buffer is full
// is closed. Called with s.mu held.
func (s *memoryStore) notify(ev Event) {
	for w := range s.watchers {
		if !w.prefix.Matches(ev.Key) {
			continue
		}
		select {
		case w.ch <- ev:
		default:
			w.err = ErrWatcherTooSlow
			s.closeLocked(w)
		}
	}
}

func (s *memoryStore) closeLocked(w *memoryWatcher) {
	if _, open := s.watchers[w]; !open {
		return
	}
	delete(s.watchers, w)
	close(w.ch)
	close(w.done)
}

type memoryWatcher struct {
	store  *memoryStore
	prefix Prefix
	ch     chan Event
	done   chan struct{}
	err    error // guarded by store.mu
}

func (w *memoryWatcher) Events() <-chan Event { return w.ch }

func (w *memoryWatcher) Stop() {
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	w.store.closeLocked(w)
}

func (w *memoryWatcher) Err() error {
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	return w.err
}

// index keeps one resource's keys in etcd's key order. New keys collect unsorted in pending and
// are merged in at the next read, so n creates between reads cost n log n, not n².
type index struct {
	keys    []string        // sorted
	pending []string        // not yet merged
	removed map[string]bool // in keys but gone
	members map[string]bool // in keys or pending and not removed
	byKey   map[string]Key  // sort key -> key
	merged  int             // keys moved by merges so far: the counted work of the scaling test
}

func newIndex() *index {
	return &index{removed: map[string]bool{}, members: map[string]bool{}, byKey: map[string]Key{}}
}

// sortKey orders keys as their etcd keys sort: "namespace/name", or "name" when cluster-scoped.
func sortKey(k Key) string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

func (ix *index) key(sk string) Key { return ix.byKey[sk] }

func (ix *index) add(k Key) {
	sk := sortKey(k)
	if ix.removed[sk] {
		delete(ix.removed, sk)
		ix.members[sk] = true
		return
	}
	if ix.members[sk] {
		return
	}
	ix.members[sk] = true
	ix.byKey[sk] = k
	ix.pending = append(ix.pending, sk)
}

func (ix *index) remove(k Key) {
	sk := sortKey(k)
	if !ix.members[sk] {
		return
	}
	delete(ix.members, sk)
	ix.removed[sk] = true
}

// sorted merges pending keys in and drops removed ones, then returns the sorted keys.
func (ix *index) sorted() []string {
	if len(ix.pending) == 0 && len(ix.removed) == 0 {
		return ix.keys
	}
	sort.Strings(ix.pending)
	ix.merged += len(ix.keys) + len(ix.pending)
	merged := make([]string, 0, len(ix.keys)+len(ix.pending))
	i, j := 0, 0
	for i < len(ix.keys) || j < len(ix.pending) {
		var next string
		if j == len(ix.pending) || (i < len(ix.keys) && ix.keys[i] < ix.pending[j]) {
			next, i = ix.keys[i], i+1
		} else {
			next, j = ix.pending[j], j+1
		}
		if ix.removed[next] {
			delete(ix.byKey, next)
			continue
		}
		merged = append(merged, next)
	}
	ix.keys, ix.pending, ix.removed = merged, nil, map[string]bool{}
	return ix.keys
}
