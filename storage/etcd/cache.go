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
)

// cache is the store's watch-fed copy of every key under its prefix, as kube-apiserver's watch
// cache: one range read, then etcd's watch from the revision it was read at. It is filled on the
// first Cached call and refilled after its watch ends (a compaction, a lost leader).
type cache struct {
	s     *Store
	start sync.Once
	ctx   context.Context
	stop  context.CancelFunc
	done  chan struct{}

	mu    sync.RWMutex
	ready bool
	rev   int64
	kvs   map[string]*mvccpb.KeyValue // by etcd key
}

func newCache(s *Store) *cache {
	ctx, stop := context.WithCancel(context.Background())
	return &cache{s: s, ctx: ctx, stop: stop, done: make(chan struct{})}
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
		c.ready, c.kvs = false, nil
		c.mu.Unlock()
		select {
		case <-c.ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// follow fills the cache and applies its watch's events until the watch ends.
func (c *cache) follow() {
	root := c.s.prefix + "/"
	resp, err := c.s.client.Get(c.ctx, root, clientv3.WithPrefix())
	if err != nil {
		return
	}
	kvs := make(map[string]*mvccpb.KeyValue, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		kvs[string(kv.Key)] = kv
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(c.ctx))
	defer cancel()
	ch := c.s.client.Watch(wctx, root, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
	c.mu.Lock()
	c.kvs, c.rev, c.ready = kvs, resp.Header.Revision, true
	c.mu.Unlock()
	for wr := range ch {
		if wr.CompactRevision > 0 || wr.Err() != nil || wr.Canceled {
			return
		}
		c.mu.Lock()
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				delete(c.kvs, string(ev.Kv.Key))
			} else {
				c.kvs[string(ev.Kv.Key)] = ev.Kv
			}
			c.rev = max(c.rev, ev.Kv.ModRevision)
		}
		c.mu.Unlock()
	}
}

// cacheReads reads the cache as it stands; each read decodes fresh values.
type cacheReads struct{ c *cache }

func (r cacheReads) Revision(context.Context) (int64, error) {
	r.c.mu.RLock()
	defer r.c.mu.RUnlock()
	return r.c.rev, nil
}

func (r cacheReads) Get(ctx context.Context, key cluster.Key) (cluster.Object, error) {
	r.c.mu.RLock()
	kv, ok := r.c.kvs[r.c.s.Key(key)]
	ready := r.c.ready
	r.c.mu.RUnlock()
	if !ready {
		return r.c.s.Get(ctx, key)
	}
	if !ok {
		return cluster.Object{}, &cluster.NotFoundError{Key: key}
	}
	obj, err := r.c.s.decode(kv, kv.ModRevision)
	if err != nil {
		return cluster.Object{}, err
	}
	return cluster.Object{Key: key, Value: obj, ModRevision: kv.ModRevision}, nil
}

// List serves req.Prefix from the cache; a request with a revision, a start or a limit reads
// etcd.
func (r cacheReads) List(ctx context.Context, req cluster.ListRequest) (cluster.ListResult, error) {
	if req.Revision != 0 || req.After != nil || req.Limit != 0 {
		return r.c.s.List(ctx, req)
	}
	rng := rangeOf(r.c.s.prefix, req.Prefix)
	var kvs []*mvccpb.KeyValue
	r.c.mu.RLock()
	ready, rev := r.c.ready, r.c.rev
	for k, kv := range r.c.kvs {
		if strings.HasPrefix(k, rng) {
			kvs = append(kvs, kv)
		}
	}
	r.c.mu.RUnlock()
	if !ready {
		return r.c.s.List(ctx, req)
	}
	sort.Slice(kvs, func(i, j int) bool { return string(kvs[i].Key) < string(kvs[j].Key) })
	res := cluster.ListResult{Revision: rev, Items: make([]cluster.Object, 0, len(kvs))}
	for _, kv := range kvs {
		k, ok := keyFrom(r.c.s.prefix, req.Prefix, string(kv.Key))
		if !ok {
			continue
		}
		obj, err := r.c.s.decode(kv, kv.ModRevision)
		if err != nil {
			return cluster.ListResult{}, err
		}
		res.Items = append(res.Items, cluster.Object{Key: k, Value: obj, ModRevision: kv.ModRevision})
	}
	return res, nil
}
