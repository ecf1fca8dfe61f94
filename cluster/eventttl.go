package cluster

import (
	"container/heap"
	"context"
	"errors"
	"time"
)

// DefaultEventTTL is how long kube-apiserver keeps an Event after its last write
// (--event-ttl, 1h by default): its storage writes every Event with an etcd lease of that
// TTL, so an Event expires one TTL after it was last created, updated or patched.
const DefaultEventTTL = time.Hour

// eventTTL is the leases of the Events this cluster wrote: when each expires, and the expiry
// order. An expired Event is deleted from the store as etcd deletes a key whose lease expired:
// no request, no admission, finalizers or not; watchers see it DELETED.
type eventTTL struct {
	ttl    time.Duration // <= 0: Events never expire
	expiry map[Key]lease
	queue  expiryQueue // may hold stale entries (an Event written again): expiry decides
}

// lease is when an Event expires, and the revision of the write that set it: the expiry
// deletes the Event only if no one (another server on the store) has written it since.
type lease struct {
	at  time.Time
	rev int64
}

func newEventTTL(ttl time.Duration) *eventTTL {
	return &eventTTL{ttl: ttl, expiry: map[Key]lease{}}
}

// isEvent reports whether k is stored with the Event TTL: core/v1 Events, which
// events.k8s.io Events are stored as (schema.SharedStorage).
func isEvent(k Key) bool {
	return k.Resource == "events" && k.Group == ""
}

// written renews k's lease after a write at now stored at rev (value nil: deleted, no lease).
func (t *eventTTL) written(k Key, value map[string]any, rev int64, now time.Time) {
	if t.ttl <= 0 || !isEvent(k) {
		return
	}
	if value == nil {
		delete(t.expiry, k)
		return
	}
	at := now.Add(t.ttl)
	t.expiry[k] = lease{at: at, rev: rev}
	heap.Push(&t.queue, expiryEntry{key: k, at: at})
}

// expired pops the writes whose lease has run out at now (an etcd lease expires once its TTL
// has elapsed), earliest first: each key with the revision it was last written at.
func (t *eventTTL) expired(now time.Time) []Write {
	var out []Write
	for t.queue.Len() > 0 {
		e := t.queue[0]
		if now.Before(e.at) {
			break
		}
		heap.Pop(&t.queue)
		if l, ok := t.expiry[e.key]; ok && l.at.Equal(e.at) {
			delete(t.expiry, e.key)
			out = append(out, Write{Key: e.key, ModRevision: l.rev})
		}
	}
	return out
}

type expiryEntry struct {
	key Key
	at  time.Time
}

// expiryQueue is a min-heap of expiry times (container/heap).
type expiryQueue []expiryEntry

func (q expiryQueue) Len() int { return len(q) }
func (q expiryQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].key.String() < q[j].key.String()
}
func (q expiryQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *expiryQueue) Push(x any)   { *q = append(*q, x.(expiryEntry)) }
func (q *expiryQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// expireEvents deletes the Events whose TTL has run out at now, each as a compare-and-swap on
// the revision this cluster last wrote it at: one gone already, or written since by another
// server (whose lease it is then), is left alone. Called with c.mu held.
func (c *Cluster) expireEvents(ctx context.Context, now time.Time) error {
	for _, w := range c.eventTTL.expired(now) {
		_, err := c.write(ctx, w)
		var nf *NotFoundError
		if err != nil && !errors.As(err, &nf) && !isConflict(err) {
			return err
		}
	}
	return nil
}
