package etcd

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/value"
)

// cache is the store's watch-fed copy of every key under its prefix, as kube-apiserver's watch
// cache: one range read, then etcd's watch from the revision it was read at. It is filled on the
// first Cached or List call and refilled after its watch ends (a compaction, a lost leader).
//
// Entries are grouped by the first segment of their key below the prefix (the resource name, or
// a custom resource's group), so a list scans its resource's bucket, not the whole store. An
// entry's value is decoded once, when it is first read, and every read gets a deep copy of it.
type cache struct {
	s     *Store
	start sync.Once
	ctx   context.Context
	stop  context.CancelFunc
	done  chan struct{}

	mu      sync.RWMutex
	ready   bool
	rev     int64
	buckets map[string]map[string]*entry // first key segment -> etcd key -> entry
	// moved is closed (and replaced) whenever rev moves or the cache stops being ready.
	moved chan struct{}
	// watchCtx is the context of the current watch, for RequestProgress on its stream.
	watchCtx context.Context
}

// entry is one cached key: its etcd value and, once read, the value decoded.
type entry struct {
	kv      *mvccpb.KeyValue
	once    sync.Once
	decoded map[string]any
	err     error
}

func (e *entry) value(s *Store) (map[string]any, error) {
	e.once.Do(func() { e.decoded, e.err = s.decode(e.kv, e.kv.ModRevision) })
	if e.err != nil {
		return nil, e.err
	}
	return value.DeepCopyMap(e.decoded)
}

// consistentWait bounds how long a consistent list waits for the cache to reach etcd's current
// revision before it reads etcd instead (kube-apiserver's cacher waits up to 3 s too).
const consistentWait = 3 * time.Second

func newCache(s *Store) *cache {
	ctx, stop := context.WithCancel(context.Background())
	return &cache{s: s, ctx: ctx, stop: stop, done: make(chan struct{}), moved: make(chan struct{})}
}

// close ends the cache's watch (if it was started) and waits for it.
func (c *cache) close() {
	c.stop()
	started := true
	c.start.Do(func() { started = false })
	if started {
		<-c.done
	}
}

// bucketOf is the bucket of an etcd key below root ("<prefix>/"): its first segment.
func bucketOf(root, key string) string {
	rest := strings.TrimPrefix(key, root)
	seg, _, _ := strings.Cut(rest, "/")
	return seg
}

// Cached implements cluster.CachedReader: the cache's reads once it is filled.
func (s *Store) Cached() (cluster.Reads, bool) {
	c := s.cache
	c.start.Do(func() { go c.run() })
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.ready {
		return nil, false
	}
	return cacheReads{c}, true
}

var _ cluster.CachedReader = (*Store)(nil)

func (c *cache) run() {
	defer close(c.done)
	for c.ctx.Err() == nil {
		c.follow()
		c.mu.Lock()
		c.ready, c.buckets, c.watchCtx = false, nil, nil
		c.signal()
		c.mu.Unlock()
		select {
		case <-c.ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// signal wakes the waiters on moved; c.mu is held.
func (c *cache) signal() {
	close(c.moved)
	c.moved = make(chan struct{})
}

// follow fills the cache and applies its watch's events until the watch ends. A progress
// notification (asked for by a consistent list) moves the cache's revision to etcd's.
func (c *cache) follow() {
	root := c.s.prefix + "/"
	resp, err := c.s.client.Get(c.ctx, root, clientv3.WithPrefix())
	if err != nil {
		return
	}
	buckets := map[string]map[string]*entry{}
	put := func(kv *mvccpb.KeyValue) {
		k := string(kv.Key)
		b := buckets[bucketOf(root, k)]
		if b == nil {
			b = map[string]*entry{}
			buckets[bucketOf(root, k)] = b
		}
		b[k] = &entry{kv: kv}
	}
	for _, kv := range resp.Kvs {
		put(kv)
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(c.ctx))
	defer cancel()
	ch := c.s.client.Watch(wctx, root, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
	c.mu.Lock()
	c.buckets, c.rev, c.ready, c.watchCtx = buckets, resp.Header.Revision, true, wctx
	c.signal()
	c.mu.Unlock()
	for wr := range ch {
		if wr.CompactRevision > 0 || wr.Err() != nil || wr.Canceled {
			return
		}
		c.mu.Lock()
		before := c.rev
		if wr.IsProgressNotify() {
			c.rev = max(c.rev, wr.Header.Revision)
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				k := string(ev.Kv.Key)
				delete(buckets[bucketOf(root, k)], k)
			} else {
				put(ev.Kv)
			}
			c.rev = max(c.rev, ev.Kv.ModRevision)
		}
		if c.rev != before {
			c.signal()
		}
		c.mu.Unlock()
	}
}

// waitFor waits until the cache holds etcd's state at rev or later; false when it is not ready
// or does not get there within consistentWait. It asks etcd for a progress notification, which
// moves the cache's revision when writes outside its prefix moved etcd's.
func (c *cache) waitFor(ctx context.Context, rev int64) bool {
	deadline := time.NewTimer(consistentWait)
	defer deadline.Stop()
	asked := false
	for {
		c.mu.RLock()
		ready, at, moved, wctx := c.ready, c.rev, c.moved, c.watchCtx
		c.mu.RUnlock()
		if !ready {
			return false
		}
		if at >= rev {
			return true
		}
		if !asked {
			asked = true
			if err := c.s.client.RequestProgress(wctx); err != nil {
				return false
			}
		}
		retry := time.NewTimer(100 * time.Millisecond)
		select {
		case <-moved:
		case <-retry.C:
			asked = false // ask again: a notification can be lost when the watch restarts
		case <-deadline.C:
			retry.Stop()
			return false
		case <-ctx.Done():
			retry.Stop()
			return false
		}
		retry.Stop()
	}
}

// list serves req from the cache as it stands: the items under req.Prefix in key order, from
// after req.After, at most req.Limit. ok is false when the cache is not ready.
func (c *cache) list(req cluster.ListRequest) (cluster.ListResult, bool, error) {
	root := c.s.prefix + "/"
	rng := rangeOf(c.s.prefix, req.Prefix)
	start := ""
	if req.After != nil {
		start = c.s.Key(*req.After) + "\x00"
	}
	type found struct {
		key string
		e   *entry
	}
	var matched []found
	c.mu.RLock()
	ready, rev := c.ready, c.rev
	for k, e := range c.buckets[bucketOf(root, rng)] {
		if strings.HasPrefix(k, rng) && k >= start {
			matched = append(matched, found{k, e})
		}
	}
	c.mu.RUnlock()
	if !ready {
		return cluster.ListResult{}, false, nil
	}
	sort.Slice(matched, func(i, j int) bool { return matched[i].key < matched[j].key })
	res := cluster.ListResult{Revision: rev}
	if req.Limit > 0 && len(matched) > req.Limit {
		res.More, res.Remaining = true, int64(len(matched)-req.Limit)
		matched = matched[:req.Limit]
	}
	res.Items = make([]cluster.Object, 0, len(matched))
	for _, m := range matched {
		k, ok := keyFrom(c.s.prefix, req.Prefix, m.key)
		if !ok {
			continue
		}
		obj, err := m.e.value(c.s)
		if err != nil {
			return cluster.ListResult{}, true, err
		}
		res.Items = append(res.Items, cluster.Object{Key: k, Value: obj, ModRevision: m.e.kv.ModRevision})
	}
	return res, true, nil
}

// cacheReads reads the cache as it stands; each read returns fresh values.
type cacheReads struct{ c *cache }

func (r cacheReads) Revision(context.Context) (int64, error) {
	r.c.mu.RLock()
	defer r.c.mu.RUnlock()
	return r.c.rev, nil
}

func (r cacheReads) Get(ctx context.Context, key cluster.Key) (cluster.Object, error) {
	k := r.c.s.Key(key)
	r.c.mu.RLock()
	e, ok := r.c.buckets[bucketOf(r.c.s.prefix+"/", k)][k]
	ready := r.c.ready
	r.c.mu.RUnlock()
	if !ready {
		return r.c.s.Get(ctx, key)
	}
	if !ok {
		return cluster.Object{}, &cluster.NotFoundError{Key: key}
	}
	obj, err := e.value(r.c.s)
	if err != nil {
		return cluster.Object{}, err
	}
	return cluster.Object{Key: key, Value: obj, ModRevision: e.kv.ModRevision}, nil
}

// List serves req.Prefix from the cache as it stands; a request with a revision reads etcd.
func (r cacheReads) List(ctx context.Context, req cluster.ListRequest) (cluster.ListResult, error) {
	if req.Revision != 0 {
		return r.c.s.List(ctx, req)
	}
	res, ok, err := r.c.list(req)
	if !ok {
		return r.c.s.etcdList(ctx, req)
	}
	return res, err
}
