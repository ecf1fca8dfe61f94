package cluster

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/writepath/writepath/registry"
)

// The Events the Deployment and ReplicaSet controllers record, stored as
// kube-controller-manager's event recorders store them (k8s.io/client-go tools/record): each
// controller has its own broadcaster, whose EventCorrelator aggregates, deduplicates and
// rate-limits what the controller records before it writes core/v1 Events with the
// controller's own credentials. KCM writes them from a goroutine; the cluster writes a sync's
// Events right after that sync's writes.

// maxEventCacheEntries is the size of each of the correlator's LRU caches (maxLruCacheEntries).
const maxEventCacheEntries = 4096

const (
	// aggregateMaxEvents similar Events (differing only by message) within
	// aggregateInterval are combined into one (defaultAggregateMaxEvents,
	// defaultAggregateIntervalInSeconds).
	aggregateMaxEvents = 10
	aggregateInterval  = 600 * time.Second
	// A source may record spamBurst Events about one object, then one every
	// 1/spamQPS seconds (defaultSpamBurst, defaultSpamQPS).
	spamBurst = 25
	spamQPS   = 1.0 / 300.0
)

// controllerEvent is one Event a controller records (EventRecorder.Eventf): on what, and what.
type controllerEvent struct {
	// involved is the object as the sync read it: kind, apiVersion and its metadata give the
	// ObjectReference (ref.GetReference).
	kind, apiVersion string
	object           map[string]any
	typ, reason      string
	message          string
}

// eventRecorder is one controller's recorder and the EventCorrelator of its broadcaster.
type eventRecorder struct {
	component string
	user      registry.User
	spam      *lru[*tokenBucket]     // EventSourceObjectSpamFilter
	aggregate *lru[aggregateRecord]  // EventAggregator
	logs      *lru[eventObservation] // eventLogger
}

func newEventRecorder(component string) *eventRecorder {
	sa := "system:serviceaccount:kube-system:" + component
	return &eventRecorder{component: component,
		user:      registry.User{Name: sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}},
		spam:      newLRU[*tokenBucket](maxEventCacheEntries),
		aggregate: newLRU[aggregateRecord](maxEventCacheEntries),
		logs:      newLRU[eventObservation](maxEventCacheEntries)}
}

// eventNames gives Events their names, <involvedObject.name>.<UnixNano in hex>
// (util.GenerateEventName) at the cluster's clock. Events recorded at one instant of a fake
// clock would all get the same name, which a real clock never gives: each further one at
// that instant takes the next nanosecond.
type eventNames struct {
	at  time.Time
	seq int64
}

func (n *eventNames) next(now time.Time) int64 {
	if !now.Equal(n.at) {
		n.at, n.seq = now, 0
	}
	ns := now.UnixNano() + n.seq
	n.seq++
	return ns
}

// event is the v1.Event the recorder makes and the correlator passes on, in the fields that
// take part.
type event struct {
	name, namespace, resourceVersion string
	involved                         map[string]any
	typ, reason, message             string
	first, last                      time.Time
	count                            int64
	// reporting is false for an aggregate Event, which the aggregator makes without
	// reportingComponent and reportingInstance.
	reporting bool
}

func (r *eventRecorder) involvedKey(e *event) string {
	o := e.involved
	s := func(k string) string { v, _ := o[k].(string); return v }
	return strings.Join([]string{r.component, "", s("kind"), s("namespace"), s("name"), s("uid"), s("apiVersion"), e.typ}, "")
}

// eventKey is getEventKey (no host, no fieldPath).
func (r *eventRecorder) eventKey(e *event) string {
	o := e.involved
	s := func(k string) string { v, _ := o[k].(string); return v }
	return strings.Join([]string{r.component, "", s("kind"), s("namespace"), s("name"), "", s("uid"), s("apiVersion"), e.typ, e.reason, e.message}, "")
}

type aggregateRecord struct {
	messages map[string]struct{}
	last     time.Time
}

type eventObservation struct {
	count           int64
	first           time.Time
	name            string
	resourceVersion string
}

// correlate is EventCorrelate: the event as it is written (a create, or a patch of an
// existing one when count > 1), or skip.
func (r *eventRecorder) correlate(e *event, now time.Time, names *eventNames) (out *event, skip bool) {
	// EventAggregator: the tenth similar Event (same object, type and reason, another
	// message) within the interval and every one after it become one aggregate Event.
	key := r.eventKey(e)
	aggKey := strings.Join([]string{r.involvedKey(e), e.reason, r.component, ""}, "")
	rec, _ := r.aggregate.get(aggKey)
	if rec.messages == nil || now.Sub(rec.last) > aggregateInterval {
		rec = aggregateRecord{messages: map[string]struct{}{}}
	}
	rec.messages[e.message] = struct{}{}
	rec.last = now
	r.aggregate.add(aggKey, rec)
	if len(rec.messages) >= aggregateMaxEvents {
		// PopAny: the reference drops an arbitrary message of the set; this one drops the
		// least, so that the same inputs give the same Events.
		least := ""
		first := true
		for m := range rec.messages {
			if first || m < least {
				least, first = m, false
			}
		}
		delete(rec.messages, least)
		name, _ := e.involved["name"].(string)
		e = &event{name: fmt.Sprintf("%s.%x", name, names.next(now)), namespace: e.namespace, involved: e.involved, typ: e.typ, reason: e.reason,
			message: "(combined from similar events): " + e.message, first: now, last: now, count: 1}
		key = aggKey
	}
	// eventLogger: an Event seen before (by key) is the same Event once more: its count goes
	// up and it is patched.
	obs := *e
	if last, ok := r.logs.get(key); ok && last.count > 0 {
		obs.name, obs.resourceVersion, obs.first, obs.count = last.name, last.resourceVersion, last.first, last.count+1
	}
	r.logs.add(key, eventObservation{count: obs.count, first: obs.first, name: obs.name, resourceVersion: obs.resourceVersion})
	// EventSourceObjectSpamFilter: a token bucket per source and object.
	spamKey := r.involvedKey(&obs)
	b, ok := r.spam.get(spamKey)
	if !ok {
		b = &tokenBucket{tokens: spamBurst, last: now}
	}
	allowed := b.allow(now)
	r.spam.add(spamKey, b)
	if !allowed {
		return nil, true
	}
	return &obs, false
}

// updateState is UpdateState: what the server answered, under the answer's own key.
func (r *eventRecorder) updateState(stored map[string]any) {
	e := eventFromObject(stored)
	r.logs.add(r.eventKey(e), eventObservation{count: e.count, first: e.first, name: e.name, resourceVersion: e.resourceVersion})
}

func eventFromObject(o map[string]any) *event {
	s := func(k string) string { v, _ := o[k].(string); return v }
	e := &event{name: metaString(o, "name"), namespace: metaString(o, "namespace"), resourceVersion: metaString(o, "resourceVersion"),
		typ: s("type"), reason: s("reason"), message: s("message")}
	e.involved, _ = o["involvedObject"].(map[string]any)
	e.count, _ = o["count"].(int64)
	e.first, _ = time.Parse(time.RFC3339, s("firstTimestamp"))
	return e
}

// tokenBucket is golang.org/x/time/rate's Limiter as flowcontrol's passive rate limiter
// uses it: it starts full; Allow takes a token when one is there.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

func (b *tokenBucket) allow(now time.Time) bool {
	last := b.last
	if now.Before(last) {
		last = now
	}
	tokens := min(spamBurst, b.tokens+now.Sub(last).Seconds()*spamQPS)
	if tokens < 1 {
		return false
	}
	b.tokens, b.last = tokens-1, now
	return true
}

// lru is k8s.io/utils/lru's cache: at most size entries, the least recently used evicted.
type lru[V any] struct {
	size  int
	order *list.List // of lruEntry, most recent first
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key string
	v   V
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, order: list.New(), items: map[string]*list.Element{}}
}

func (l *lru[V]) get(k string) (V, bool) {
	if el, ok := l.items[k]; ok {
		l.order.MoveToFront(el)
		return el.Value.(lruEntry[V]).v, true
	}
	var zero V
	return zero, false
}

func (l *lru[V]) add(k string, v V) {
	if el, ok := l.items[k]; ok {
		el.Value = lruEntry[V]{k, v}
		l.order.MoveToFront(el)
		return
	}
	l.items[k] = l.order.PushFront(lruEntry[V]{k, v})
	if l.order.Len() > l.size {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.items, last.Value.(lruEntry[V]).key)
	}
}

// recordEvents writes what a controller recorded during one sync, in order, as the
// recorder's sink does (recordToSink): a create, or for an Event seen before a strategic
// merge patch of its count, lastTimestamp and message (a create again when it is gone). An
// Event the API refuses is dropped, as the recorder drops it.
func (c *Cluster) recordEvents(ctx context.Context, now time.Time, r *eventRecorder, evs []controllerEvent) error {
	for _, ce := range evs {
		ns := metaString(ce.object, "namespace")
		if ns == "" {
			ns = "default"
		}
		name := metaString(ce.object, "name")
		involved := map[string]any{"kind": ce.kind, "namespace": metaString(ce.object, "namespace"), "name": name,
			"uid": metaString(ce.object, "uid"), "apiVersion": ce.apiVersion, "resourceVersion": metaString(ce.object, "resourceVersion")}
		for k, v := range involved {
			if v == "" {
				delete(involved, k)
			}
		}
		e := &event{name: fmt.Sprintf("%s.%x", name, c.eventNames.next(now)), namespace: ns, involved: involved,
			typ: ce.typ, reason: ce.reason, message: ce.message, first: now, last: now, count: 1, reporting: true}
		out, skip := r.correlate(e, now, &c.eventNames)
		if skip {
			continue
		}
		path := "/api/v1/namespaces/" + out.namespace + "/events"
		var resp registry.Response
		var err error
		if out.count > 1 {
			patch := map[string]any{"count": out.count, "lastTimestamp": eventTime(out.last), "message": out.message}
			resp, err = c.requestResponse(ctx, now, r.user, controllerAgent, "PATCH", path+"/"+out.name, "application/strategic-merge-patch+json", patch)
			if err != nil {
				return err
			}
		}
		if out.count <= 1 || resp.Code == 404 {
			resp, err = c.requestResponse(ctx, now, r.user, controllerAgent, "POST", path, "application/json", out.object(r.component))
			if err != nil {
				return err
			}
		}
		if resp.Code < 300 {
			r.updateState(resp.Object)
		}
	}
	return nil
}

func eventTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// object is the v1.Event the recorder sends.
func (e *event) object(component string) map[string]any {
	o := map[string]any{"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": e.name, "namespace": e.namespace},
		"involvedObject": e.involved, "reason": e.reason, "message": e.message,
		"source":         map[string]any{"component": component},
		"firstTimestamp": eventTime(e.first), "lastTimestamp": eventTime(e.last), "count": e.count, "type": e.typ, "eventTime": nil}
	o["reportingComponent"], o["reportingInstance"] = "", "" // json without omitempty
	if e.reporting {
		o["reportingComponent"] = component
	}
	return o
}
