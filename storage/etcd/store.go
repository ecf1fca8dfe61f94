package etcd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/writepath/writepath/cluster"
	"github.com/writepath/writepath/internal/codec"
)

// Options configures New.
type Options struct {
	// Endpoints are the etcd servers (kube-apiserver's --etcd-servers), e.g.
	// "http://127.0.0.1:2379".
	Endpoints []string
	// Prefix is the key prefix (--etcd-prefix); "" is DefaultPrefix, "/registry".
	Prefix string
	// TLS, when set, is the client TLS configuration (--etcd-cafile, --etcd-certfile,
	// --etcd-keyfile).
	TLS *tls.Config
	// DialTimeout bounds connecting; 0 is 20 seconds (kube-apiserver's dial timeout).
	DialTimeout time.Duration
	// MaxValueBytes bounds a stored value the store decodes; 0 is 16 MiB (etcd's own request
	// limit is 1.5 MiB by default, so a value kube-apiserver or writepath stored fits).
	MaxValueBytes int64
}

// Store is a cluster.Store on etcd v3, and a cluster.CachedReader (a watch-fed cache of its
// prefix, filled on first use). Safe for concurrent use; Close releases its client.
type Store struct {
	client   *clientv3.Client
	prefix   string
	maxValue int64
	cache    *cache
	// etcdLists counts the lists read from etcd rather than the cache (for the tests).
	etcdLists atomic.Int64
}

var _ cluster.Store = (*Store)(nil)

// New connects to etcd as opts say. It does not wait for a server to answer: the first call does.
func New(opts Options) (*Store, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcd: no endpoints")
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	prefix = "/" + strings.Trim(prefix, "/")
	if prefix == "/" {
		prefix = ""
	}
	dial := opts.DialTimeout
	if dial == 0 {
		dial = 20 * time.Second
	}
	maxValue := opts.MaxValueBytes
	if maxValue <= 0 {
		maxValue = 16 << 20
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		DialTimeout: dial,
		TLS:         opts.TLS,
		Logger:      zap.NewNop(),
		// kube-apiserver's keepalive settings (storagebackend/factory/etcd3.go).
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: %w", err)
	}
	s := &Store{client: c, prefix: prefix, maxValue: maxValue}
	s.cache = newCache(s)
	return s, nil
}

// Close closes the client; watches end.
func (s *Store) Close() error {
	s.cache.close()
	return s.client.Close()
}

// Client returns the store's etcd client (for health checks and tests).
func (s *Store) Client() *clientv3.Client { return s.client }

// Key returns the etcd key k is stored under.
func (s *Store) Key(k cluster.Key) string { return keyOf(s.prefix, k) }

// Revision returns etcd's current revision, read linearizably: the header of a read of one key
// (the prefix itself, which no object is stored under), so its cost does not grow with the
// store. A fresh etcd is at revision 1.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	resp, err := s.client.Get(ctx, s.prefix+"/", clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("etcd: %w", err)
	}
	return resp.Header.Revision, nil
}

// decode reads a stored value and sets its resourceVersion to the mod revision, as
// kube-apiserver's storage does: the stored bytes carry none.
func (s *Store) decode(kv *mvccpb.KeyValue, rev int64) (map[string]any, error) {
	obj, err := codec.Options{MaxBytes: s.maxValue, Format: codec.FormatJSON, AllowDuplicates: true}.DecodeObject(kv.Value)
	if err != nil {
		return nil, fmt.Errorf("etcd: decoding %s: %w", kv.Key, err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	meta["resourceVersion"] = strconv.FormatInt(rev, 10)
	return obj, nil
}

// encode is the stored form of a value: JSON without metadata.resourceVersion (the apiserver's
// versioner clears it before storing; the mod revision is the resourceVersion). The value is
// not modified.
func encode(v map[string]any) ([]byte, error) {
	if meta, ok := v["metadata"].(map[string]any); ok {
		if _, has := meta["resourceVersion"]; has {
			out := make(map[string]any, len(v))
			for k, x := range v {
				out[k] = x
			}
			m := make(map[string]any, len(meta))
			for k, x := range meta {
				if k != "resourceVersion" {
					m[k] = x
				}
			}
			out["metadata"] = m
			v = out
		}
	}
	return codec.EncodeJSON(v)
}

// Get reads key linearizably.
func (s *Store) Get(ctx context.Context, key cluster.Key) (cluster.Object, error) {
	resp, err := s.client.Get(ctx, s.Key(key))
	if err != nil {
		return cluster.Object{}, fmt.Errorf("etcd: %w", err)
	}
	if len(resp.Kvs) == 0 {
		return cluster.Object{}, &cluster.NotFoundError{Key: key}
	}
	kv := resp.Kvs[0]
	obj, err := s.decode(kv, kv.ModRevision)
	if err != nil {
		return cluster.Object{}, err
	}
	return cluster.Object{Key: key, Value: obj, ModRevision: kv.ModRevision}, nil
}

// List reads a prefix at a revision, from after req.After, at most req.Limit items. A read of
// the current state (Revision 0) is consistent and served from the store's watch-fed cache, as
// kube-apiserver 1.37 serves it (ConsistentListFromCache): etcd's current revision is read, the
// cache is awaited until it has reached it, and its decoded objects are copied out. A read at a
// revision, or one the cache cannot serve in time, is one etcd range request, as
// kube-apiserver's list from etcd; Remaining is then etcd's count of the rest of the range.
func (s *Store) List(ctx context.Context, req cluster.ListRequest) (cluster.ListResult, error) {
	if req.Revision == 0 {
		s.cache.start.Do(func() { go s.cache.run() })
		rev, err := s.Revision(ctx)
		if err != nil {
			return cluster.ListResult{}, err
		}
		if s.cache.waitFor(ctx, rev) {
			if res, ok, err := s.cache.list(req); ok {
				return res, err
			}
		}
	}
	return s.etcdList(ctx, req)
}

// etcdList is List as one etcd range request.
func (s *Store) etcdList(ctx context.Context, req cluster.ListRequest) (cluster.ListResult, error) {
	s.etcdLists.Add(1)
	rng := rangeOf(s.prefix, req.Prefix)
	start := rng
	if req.After != nil {
		start = s.Key(*req.After) + "\x00"
		if start < rng {
			start = rng
		}
	}
	opts := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(rng))}
	if req.Revision > 0 {
		opts = append(opts, clientv3.WithRev(req.Revision))
	}
	if req.Limit > 0 {
		opts = append(opts, clientv3.WithLimit(int64(req.Limit)))
	}
	resp, err := s.client.Get(ctx, start, opts...)
	if err != nil {
		return cluster.ListResult{}, s.revisionError(ctx, req.Revision, err)
	}
	res := cluster.ListResult{Revision: resp.Header.Revision, More: resp.More}
	if req.Revision > 0 {
		res.Revision = req.Revision
	}
	if resp.More {
		res.Remaining = resp.Count - int64(len(resp.Kvs))
	}
	res.Items = make([]cluster.Object, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		k, ok := keyFrom(s.prefix, req.Prefix, string(kv.Key))
		if !ok {
			continue // a key below the prefix that is not an object's (never written by a store)
		}
		obj, err := s.decode(kv, kv.ModRevision)
		if err != nil {
			return cluster.ListResult{}, err
		}
		res.Items = append(res.Items, cluster.Object{Key: k, Value: obj, ModRevision: kv.ModRevision})
	}
	return res, nil
}

// revisionError maps etcd's answers for a read at a compacted or future revision to the store's
// errors.
func (s *Store) revisionError(ctx context.Context, rev int64, err error) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return &cluster.TooOldError{Revision: rev, Oldest: s.compactRevision(ctx)}
	case errors.Is(err, rpctypes.ErrFutureRev):
		cur, cerr := s.Revision(ctx)
		if cerr != nil {
			return cerr
		}
		return &cluster.FutureRevisionError{Revision: rev, Current: cur}
	}
	return fmt.Errorf("etcd: %w", err)
}

// compactRevision learns etcd's compacted revision the way a client can: a watch from revision 1
// is refused with it.
func (s *Store) compactRevision(ctx context.Context) int64 {
	wctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), 5*time.Second)
	defer cancel()
	for resp := range s.client.Watch(wctx, s.prefix+"/\x00compaction-probe", clientv3.WithRev(1)) {
		if resp.CompactRevision > 0 {
			return resp.CompactRevision
		}
		if resp.Err() != nil {
			return 0
		}
		return 1 // nothing compacted
	}
	return 0
}

// Write performs w as one etcd transaction: the compare is the key's mod revision (0: absent),
// the success branch the put or delete, the failure branch a read of the key to say why.
func (s *Store) Write(ctx context.Context, w cluster.Write) (int64, error) {
	key := s.Key(w.Key)
	var op clientv3.Op
	if w.Value != nil {
		data, err := encode(w.Value)
		if err != nil {
			return 0, fmt.Errorf("etcd: encoding %s: %w", w.Key, err)
		}
		op = clientv3.OpPut(key, string(data))
	} else {
		op = clientv3.OpDelete(key)
	}
	txn := s.client.Txn(ctx)
	if w.ModRevision != cluster.AnyRevision {
		txn = txn.If(clientv3.Compare(clientv3.ModRevision(key), "=", w.ModRevision))
	} else if w.Value == nil {
		// A delete of a missing key takes no revision and is NotFound.
		txn = txn.If(clientv3.Compare(clientv3.ModRevision(key), ">", 0))
	}
	resp, err := txn.Then(op).Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).Commit()
	if err != nil {
		return 0, fmt.Errorf("etcd: %w", err)
	}
	if !resp.Succeeded {
		var current int64
		if rr := resp.Responses[0].GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			current = rr.Kvs[0].ModRevision
		}
		if w.Value == nil && current == 0 {
			return 0, &cluster.NotFoundError{Key: w.Key}
		}
		return 0, &cluster.ConflictError{Key: w.Key, Expected: w.ModRevision, ModRevision: current}
	}
	if w.Value == nil {
		if dr := resp.Responses[0].GetResponseDeleteRange(); dr != nil && dr.Deleted == 0 {
			return 0, &cluster.NotFoundError{Key: w.Key}
		}
	}
	return resp.Header.Revision, nil
}

// Watch streams a prefix's events after revision from (0: from now on) through etcd's watch,
// with the previous value of each key so that a deletion carries the object as last stored.
func (s *Store) Watch(ctx context.Context, prefix cluster.Prefix, from int64) (cluster.Watcher, error) {
	cur, err := s.Revision(ctx)
	if err != nil {
		return nil, err
	}
	if from == 0 {
		from = cur
	}
	if from > cur {
		return nil, &cluster.FutureRevisionError{Revision: from, Current: cur}
	}
	if from < cur {
		// etcd accepts a watch from a compacted revision and cancels it right after its creation;
		// a read at the first revision the watch needs refuses it before it is handed out.
		if _, err := s.client.Get(ctx, s.prefix+"/", clientv3.WithCountOnly(), clientv3.WithRev(from+1)); err != nil {
			if errors.Is(err, rpctypes.ErrCompacted) {
				return nil, &cluster.TooOldError{Revision: from, Oldest: s.compactRevision(ctx)}
			}
			return nil, fmt.Errorf("etcd: %w", err)
		}
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	rng := rangeOf(s.prefix, prefix)
	ch := s.client.Watch(wctx, rng, clientv3.WithPrefix(), clientv3.WithRev(from+1), clientv3.WithPrevKV(), clientv3.WithCreatedNotify())
	// The watch is handed out once etcd has created it, so that every write after Watch returns
	// is seen; a compaction after the check above ends it with a *cluster.TooOldError (Err).
	w := &watcher{ctx: wctx, cancel: cancel, out: make(chan cluster.Event, 100), done: make(chan struct{})}
	go w.run(s, prefix, from, ch)
	select {
	case err := <-w.startErr():
		if err != nil {
			cancel()
			<-w.done
			return nil, err
		}
	case <-ctx.Done():
		cancel()
		<-w.done
		return nil, ctx.Err()
	}
	return w, nil
}

type watcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	out    chan cluster.Event
	done   chan struct{}

	startOnce sync.Once
	start     chan error

	mu  sync.Mutex
	err error
}

func (w *watcher) startErr() chan error {
	w.startOnce.Do(func() { w.start = make(chan error, 1) })
	return w.start
}

func (w *watcher) Events() <-chan cluster.Event { return w.out }

func (w *watcher) Stop() {
	w.cancel()
	<-w.done
}

func (w *watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *watcher) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

// run turns etcd's watch responses into events until the watch ends. The first response etcd
// sends for a watch is its creation (or its refusal for a compacted revision); run reports it on
// start before delivering anything.
func (w *watcher) run(s *Store, prefix cluster.Prefix, from int64, ch clientv3.WatchChan) {
	defer close(w.done)
	defer close(w.out)
	started := false
	begin := func(err error) {
		if !started {
			started = true
			w.startErr() <- err
		}
	}
	defer begin(context.Canceled)
	for resp := range ch {
		if resp.CompactRevision > 0 {
			err := &cluster.TooOldError{Revision: from, Oldest: resp.CompactRevision}
			if started {
				w.fail(err)
			}
			begin(err)
			return
		}
		if err := resp.Err(); err != nil {
			if started && !errors.Is(err, context.Canceled) {
				w.fail(fmt.Errorf("etcd: %w", err))
			}
			begin(fmt.Errorf("etcd: %w", err))
			return
		}
		begin(nil)
		for _, ev := range resp.Events {
			e, ok, err := s.event(prefix, ev)
			if err != nil {
				w.fail(err)
				return
			}
			if !ok {
				continue
			}
			select {
			case w.out <- e:
			case <-w.ctx.Done():
				return
			}
		}
	}
}

func (s *Store) event(prefix cluster.Prefix, ev *clientv3.Event) (cluster.Event, bool, error) {
	k, ok := keyFrom(s.prefix, prefix, string(ev.Kv.Key))
	if !ok {
		return cluster.Event{}, false, nil
	}
	out := cluster.Event{Key: k, Revision: ev.Kv.ModRevision}
	var err error
	switch {
	case ev.Type == clientv3.EventTypeDelete:
		if ev.PrevKv == nil {
			return cluster.Event{}, false, nil // the previous value is compacted away: nothing to show
		}
		out.Type = cluster.Deleted
		out.Value, err = s.decode(ev.PrevKv, ev.Kv.ModRevision)
	case ev.IsCreate():
		out.Type = cluster.Added
		out.Value, err = s.decode(ev.Kv, ev.Kv.ModRevision)
	default:
		out.Type = cluster.Modified
		out.Value, err = s.decode(ev.Kv, ev.Kv.ModRevision)
	}
	if err != nil {
		return cluster.Event{}, false, err
	}
	return out, true, nil
}
