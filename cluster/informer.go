package cluster

import (
	"container/heap"
	"context"
	"sort"
)

// The workload controllers read the store as kube-controller-manager's controllers read their
// informers: through an index that knows each Pod's, ReplicaSet's and Deployment's controller,
// so that a sync reads only the objects that can concern it, and through queues of the keys the
// controllers' event handlers enqueue, so that a write costs the syncs it can change and not a
// sync of every object.
//
// The index follows the cluster's own writes (observe); any write it did not see (another writer
// of the same store) shows as a revision it does not know, and the index is rebuilt from a
// listing with every key queued.

var (
	podsPrefix        = Prefix{Resource: "pods"}
	replicaSetsPrefix = Prefix{Group: "apps", Resource: "replicasets"}
	deploymentsPrefix = Prefix{Group: "apps", Resource: "deployments"}
)

// indexEntry is what the index keeps of one object: its uid and its controller's.
type indexEntry struct {
	uid, controller string
	// unready: a Pod neither Running and Ready nor being deleted (the kubelet's work).
	unready bool
}

type workloadIndex struct {
	// rev is the store revision the index reflects; -1 until it is built.
	rev  int64
	objs map[Key]indexEntry
	// byUID finds a ReplicaSet or Deployment by uid.
	byUID map[string]Key
	// controlled holds, by controller uid, the keys of the objects it controls.
	controlled map[string]map[Key]struct{}
	// orphans holds, by resource and namespace, the objects with no controller.
	orphans map[Prefix]map[Key]struct{}
	// members holds, by resource and namespace, every object.
	members map[Prefix]map[Key]struct{}
	// unready holds the Pods the kubelet stand-in has to start.
	unready map[Key]struct{}

	// The queues: the Deployments and ReplicaSets to sync, and the phase being drained (its
	// resource, the last key synced, the keys still to sync in this pass).
	queued  map[Prefix]map[Key]struct{}
	phase   Prefix
	cursor  string
	pending *keyHeap
}

func newWorkloadIndex() *workloadIndex {
	return &workloadIndex{rev: -1}
}

func (ix *workloadIndex) reset(rev int64) {
	*ix = workloadIndex{rev: rev, objs: map[Key]indexEntry{}, byUID: map[string]Key{}, controlled: map[string]map[Key]struct{}{},
		orphans: map[Prefix]map[Key]struct{}{}, members: map[Prefix]map[Key]struct{}{}, unready: map[Key]struct{}{},
		queued: map[Prefix]map[Key]struct{}{deploymentsPrefix: {}, replicaSetsPrefix: {}}}
}

func resourcePrefix(k Key) Prefix { return Prefix{Group: k.Group, Resource: k.Resource} }

func nsPrefix(k Key) Prefix {
	return Prefix{Group: k.Group, Resource: k.Resource, Namespace: k.Namespace}
}

func indexed(k Key) bool {
	p := resourcePrefix(k)
	return p == podsPrefix || p == replicaSetsPrefix || p == deploymentsPrefix
}

// controllerUID is the uid of obj's controller (the owner reference with controller true).
func controllerUID(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	refs, _ := meta["ownerReferences"].([]any)
	for _, x := range refs {
		m, _ := x.(map[string]any)
		if c, _ := m["controller"].(bool); c {
			uid, _ := m["uid"].(string)
			return uid
		}
	}
	return ""
}

func addTo(m map[Prefix]map[Key]struct{}, p Prefix, k Key) {
	s := m[p]
	if s == nil {
		s = map[Key]struct{}{}
		m[p] = s
	}
	s[k] = struct{}{}
}

func removeFrom[K comparable](m map[K]map[Key]struct{}, p K, k Key) {
	if s := m[p]; s != nil {
		delete(s, k)
		if len(s) == 0 {
			delete(m, p)
		}
	}
}

// build indexes every Pod, ReplicaSet and Deployment stored, at revision rev, and queues every
// Deployment and ReplicaSet.
func (c *Cluster) buildIndex(ctx context.Context, rev int64) error {
	ix := c.index
	ix.reset(rev)
	for _, p := range []Prefix{deploymentsPrefix, replicaSetsPrefix, podsPrefix} {
		objs, err := c.sharedValues(ctx, p)
		if err != nil {
			ix.rev = -1
			return err
		}
		for _, o := range objs {
			ix.apply(o.Key, o.Value)
		}
	}
	return nil
}

// observe is told of every write the cluster makes, with the revision the store gave it.
func (c *Cluster) observe(k Key, value map[string]any, rev int64) {
	c.eventTTL.written(k, value, rev, c.clock.Now())
	c.observeQuota(k, value)
	ix := c.index
	if ix.rev < 0 {
		return
	}
	if rev != ix.rev+1 {
		ix.rev = -1 // a write the index did not see came between: rebuild
		return
	}
	ix.rev = rev
	if indexed(k) {
		ix.apply(k, value)
	}
}

// apply updates the index for k now holding value (nil: deleted) and queues what the
// controllers' event handlers queue for it.
func (ix *workloadIndex) apply(k Key, value map[string]any) {
	old, existed := ix.objs[k]
	res := resourcePrefix(k)
	var now indexEntry
	if value != nil {
		now = indexEntry{uid: metaString(value, "uid"), controller: controllerUID(value)}
		if res == podsPrefix {
			now.unready = !podReady(value) && metaString(value, "deletionTimestamp") == ""
		}
	}
	// Queue from the old state and the new one: an object leaving its controller concerns both.
	if existed {
		ix.enqueueFor(k, old)
	}
	if value != nil {
		ix.enqueueFor(k, now)
	}
	if existed {
		delete(ix.objs, k)
		if res != podsPrefix && ix.byUID[old.uid] == k {
			delete(ix.byUID, old.uid)
		}
		if old.controller != "" {
			removeFrom(ix.controlled, old.controller, k)
		} else {
			removeFrom(ix.orphans, nsPrefix(k), k)
		}
		removeFrom(ix.members, nsPrefix(k), k)
		delete(ix.unready, k)
	}
	if value == nil {
		return
	}
	ix.objs[k] = now
	if res != podsPrefix && now.uid != "" {
		ix.byUID[now.uid] = k
	}
	if now.controller != "" {
		s := ix.controlled[now.controller]
		if s == nil {
			s = map[Key]struct{}{}
			ix.controlled[now.controller] = s
		}
		s[k] = struct{}{}
	} else {
		addTo(ix.orphans, nsPrefix(k), k)
	}
	addTo(ix.members, nsPrefix(k), k)
	if now.unready {
		ix.unready[k] = struct{}{}
	}
}

// enqueueFor queues the syncs whose input includes k in state e, as the controllers' handlers
// do: a ReplicaSet syncs when it or a Pod it controls changes, or when any orphan Pod of its
// namespace does (it may adopt it); a Deployment when it or a ReplicaSet it controls (or a Pod
// of one) changes, or when an orphan ReplicaSet of its namespace does.
func (ix *workloadIndex) enqueueFor(k Key, e indexEntry) {
	switch resourcePrefix(k) {
	case deploymentsPrefix:
		ix.enqueue(k)
	case replicaSetsPrefix:
		ix.enqueue(k)
		ix.enqueueController(k, e.controller, deploymentsPrefix)
	case podsPrefix:
		if e.controller == "" {
			ix.enqueueAll(Prefix{Group: "apps", Resource: "replicasets", Namespace: k.Namespace})
			return
		}
		if rs, ok := ix.byUID[e.controller]; ok && resourcePrefix(rs) == replicaSetsPrefix {
			ix.enqueue(rs)
			ix.enqueueController(rs, ix.objs[rs].controller, deploymentsPrefix)
		}
	}
}

// enqueueController queues the controller (of resource want) of the object at k, or every object
// of that resource in k's namespace when it has none (one of them may adopt it).
func (ix *workloadIndex) enqueueController(k Key, controller string, want Prefix) {
	if controller == "" {
		ix.enqueueAll(Prefix{Group: want.Group, Resource: want.Resource, Namespace: k.Namespace})
		return
	}
	if owner, ok := ix.byUID[controller]; ok && resourcePrefix(owner) == want {
		ix.enqueue(owner)
	}
}

// queueAll queues every Deployment and ReplicaSet.
func (ix *workloadIndex) queueAll() {
	for p, keys := range ix.members {
		if res := (Prefix{Group: p.Group, Resource: p.Resource}); res == deploymentsPrefix || res == replicaSetsPrefix {
			for k := range keys {
				addTo(ix.queued, res, k)
			}
		}
	}
}

func (ix *workloadIndex) enqueueAll(p Prefix) {
	for k := range ix.members[p] {
		ix.enqueue(k)
	}
}

// enqueue queues k; during a pass over k's resource, a key after the cursor joins this pass (as
// the loop over every object would reach it), one at or before it waits for the next.
func (ix *workloadIndex) enqueue(k Key) {
	res := resourcePrefix(k)
	if ix.pending != nil && res == ix.phase && sortKey(k) > ix.cursor {
		ix.pending.push(k)
		return
	}
	addTo(ix.queued, res, k)
}

// drain syncs the queued keys of one resource in key order (the order a listing gives), each
// once, with the keys queued during the pass after the current one included.
func (ix *workloadIndex) drain(res Prefix, sync func(Key) error) error {
	h := &keyHeap{seen: map[Key]bool{}}
	for k := range ix.queued[res] {
		h.push(k)
	}
	delete(ix.queued, res)
	ix.phase, ix.cursor, ix.pending = res, "", h
	defer func() { ix.phase, ix.cursor, ix.pending = Prefix{}, "", nil }()
	for h.Len() > 0 {
		k := heap.Pop(h).(Key)
		ix.cursor = sortKey(k)
		if err := sync(k); err != nil {
			return err
		}
	}
	return nil
}

// keyList collects keys, some perhaps more than once, for sorted: a slice where a set would
// allocate a map per sync over thousands of Pods.
type keyList []Key

// sorted returns the keys collected, each once, by sortKey.
func (l keyList) sorted() []Key {
	sort.Slice(l, func(i, j int) bool { return sortKey(l[i]) < sortKey(l[j]) })
	out := l[:0]
	for _, k := range l {
		if len(out) == 0 || k != out[len(out)-1] {
			out = append(out, k)
		}
	}
	return out
}

// keyHeap is a min-heap of keys by sortKey, each key once.
type keyHeap struct {
	keys []Key
	seen map[Key]bool
}

func (h *keyHeap) push(k Key) {
	if h.seen[k] {
		return
	}
	h.seen[k] = true
	heap.Push(h, k)
}

func (h *keyHeap) Len() int           { return len(h.keys) }
func (h *keyHeap) Less(i, j int) bool { return sortKey(h.keys[i]) < sortKey(h.keys[j]) }
func (h *keyHeap) Swap(i, j int)      { h.keys[i], h.keys[j] = h.keys[j], h.keys[i] }
func (h *keyHeap) Push(x any)         { h.keys = append(h.keys, x.(Key)) }
func (h *keyHeap) Pop() any {
	k := h.keys[len(h.keys)-1]
	h.keys = h.keys[:len(h.keys)-1]
	delete(h.seen, k)
	return k
}
