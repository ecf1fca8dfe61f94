package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writepath/writepath/admission"
	"github.com/writepath/writepath/cel"
	"github.com/writepath/writepath/controllers/replicaset"
	"github.com/writepath/writepath/conversion"
	"github.com/writepath/writepath/gc"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// Clock is the server's clock. The zero Options use the system clock; tests pass a FakeClock.
type Clock interface {
	Now() time.Time
}

// FakeClock is a Clock that moves only when told to. Safe for concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a clock standing at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Step moves the clock forward by d.
func (c *FakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Controllers says when the controllers (the garbage collector and the namespace controller) run.
type Controllers int

const (
	// AfterWrites runs the controllers to their fixpoint after every write that can give them
	// work: a deletion, a Terminating object, an object with ownerReferences. Each run reads a
	// snapshot of every object, so such a write costs time linear in the objects stored.
	AfterWrites Controllers = iota
	// Manual runs them only when Settle is called.
	Manual
)

// Options configures New. The zero value is an empty in-memory server on the system clock whose
// controllers run after writes.
type Options struct {
	// Store holds the objects; nil is NewMemoryStore(MemoryOptions{}).
	Store Store
	// Clock is the server's clock; nil is the system clock (truncated to seconds, as the
	// apiserver's timestamps are).
	Clock Clock
	// Seed seeds the uids and the generated names (deterministic for a given seed and request
	// sequence); 0 is seed 1.
	Seed uint64
	// Controllers says when the controllers run.
	Controllers Controllers
	// Tokens maps bearer tokens to users for Handler and TokenReviews; nil lets every request
	// in as Admin (and a TokenReview authenticates every token as Admin).
	Tokens map[string]registry.User
	// APIAudiences are kube-apiserver's --api-audiences, which TokenReviews answer for; nil is
	// https://kubernetes.default.svc, the
	// --service-account-issuer of ../shared/tools/realcluster (the apiserver's default).
	APIAudiences []string
	// Kubelet says when the stand-in kubelet makes Pods Running and Ready (default at once).
	Kubelet Kubelet
	// NoWorkloadControllers turns the Deployment and ReplicaSet controllers and the stand-in
	// kubelet off: Deployments and ReplicaSets stay as clients write them (no ReplicaSets, Pods
	// or status written for them), as on a control plane without kube-controller-manager's
	// deployment and replicaset controllers (envtest's kube-apiserver and etcd, or
	// kube-controller-manager --controllers=-deployment,-replicaset). The garbage collector,
	// the namespace, service account (unless NoServiceAccountController) and storage protection
	// controllers still run.
	NoWorkloadControllers bool
	// NoResourceQuotaController turns the resource quota controller off: ResourceQuotas get no
	// status from the cluster (kube-controller-manager --controllers=-resourcequota, or a
	// control plane without kube-controller-manager, such as envtest's). The ResourceQuota
	// admission plugin still charges the quotas whose status says what they hard-limit.
	NoResourceQuotaController bool
	// NoServiceAccountController turns the service account controller off: a Namespace gets no
	// "default" ServiceAccount from the cluster (kube-controller-manager
	// --controllers=-serviceaccount, or a control plane without kube-controller-manager, such as
	// envtest's). The ServiceAccount admission plugin then refuses a Pod naming no
	// ServiceAccount until one is created, as kube-apiserver does.
	NoServiceAccountController bool
	// DisableAdmissionPlugins are kube-apiserver's --disable-admission-plugins: default plugins
	// that do not run, each changing and refusing nothing (registry.AdmissionPlugins lists the
	// names and which are modelled). New refuses a name kube-apiserver does not know, with its
	// words (registry.ValidateDisabledAdmissionPlugins); naming a default-off plugin or one
	// writepath does not model changes nothing. envtest's kube-apiserver runs with
	// ServiceAccount off: Pods are then created with no ServiceAccount and no token volume.
	DisableAdmissionPlugins []string
	// LeaderElection, when set, runs the controllers only while this server holds the
	// controller Lease (Lead), for several servers sharing one store; nil runs them always.
	LeaderElection *LeaderElection
	// WebhookClient calls the admission webhooks the stored webhook configurations name, as
	// kube-apiserver does; nil is admission.HTTPSClient{} (real HTTPS calls).
	WebhookClient admission.WebhookClient
	// EventTTL is kube-apiserver's --event-ttl: an Event is deleted once this long has passed
	// on the clock since its last write (create, update or patch). 0 is DefaultEventTTL (1h);
	// negative keeps Events for ever.
	EventTTL time.Duration
}

// Cluster is an API server's state and request path: objects in a Store, requests answered by
// registry.Handle over them, writes serialised, the controllers run after writes. Safe for
// concurrent use.
type Cluster struct {
	// crds holds the CRDs parsed from storage, by name, with their compiled CEL rules: a
	// request to a custom resource parses its CRD and compiles its rules once per stored
	// version of the CRD, not on every request.
	crds crdCache

	store Store
	clock Clock
	ctrl  Controllers
	// tokens authenticates HTTP requests (nil: everyone is Admin).
	tokens       map[string]registry.User
	apiAudiences []string // Options.APIAudiences
	kubeletMode  Kubelet
	noWorkloads  bool            // Options.NoWorkloadControllers
	noQuota      bool            // Options.NoResourceQuotaController
	noSA         bool            // Options.NoServiceAccountController
	pluginsOff   map[string]bool // Options.DisableAdmissionPlugins
	// quotas is the resource quota controller's queue (resourcequota.go); guarded by mu.
	quotas   *quotaController
	webhooks admission.WebhookClient

	mu        sync.Mutex // serialises requests (without a CachedReader), and the controllers
	rngMu     sync.Mutex // guards rng: requests on a store with a CachedReader run concurrently
	rng       *rand.Rand
	resources map[resourceKey]struct{} // every resource that has been written, for snapshots
	// expectations are the ReplicaSet controller's, by ReplicaSet uid.
	expectations map[string]*replicaset.Expectations
	// syncWritten holds, during one controller sync, the resourceVersion the API answered for
	// each object the sync wrote (by path).
	syncWritten map[string]string
	// index is the workload controllers' informer cache and queues (informer.go).
	index *workloadIndex
	// settledAt is the clock of the last settle of the workload controllers.
	settledAt time.Time
	// deploymentEvents and replicaSetEvents are the controllers' event recorders;
	// eventNames names their Events (events.go).
	deploymentEvents, replicaSetEvents *eventRecorder
	eventNames                         eventNames
	// eventTTL is the Events' leases (eventttl.go).
	eventTTL *eventTTL
	// syncEverything makes every round sync every Deployment and ReplicaSet over all of its
	// namespace's objects, as before the index and the queues: the reference of their tests.
	syncEverything bool

	// openapi caches the /openapi documents for the stored CRDs (openapi.go), discoveryCache
	// the aggregated discovery documents (discovery_aggregated.go).
	// watchLines are the encoded lines of recent watch events, shared by watchers.
	watchLines watchLines

	openapi        openAPICache
	discoveryCache discoveryCache

	leader *LeaderElection // Options.LeaderElection
	// terminatingCRDs are the CRDs a DELETE marked whose finalizer controller waits for their
	// instances to go (finalizeCRDs); guarded by mu.
	terminatingCRDs map[string]bool

	leadMu  sync.Mutex
	leading bool // guarded by leadMu
}

// New returns a cluster as opts say.
func New(opts Options) (*Cluster, error) {
	c := &Cluster{store: opts.Store, clock: opts.Clock, ctrl: opts.Controllers, tokens: opts.Tokens,
		kubeletMode: opts.Kubelet, noWorkloads: opts.NoWorkloadControllers, noQuota: opts.NoResourceQuotaController, noSA: opts.NoServiceAccountController, quotas: newQuotaController(), leader: opts.LeaderElection, resources: map[resourceKey]struct{}{}, expectations: map[string]*replicaset.Expectations{},
		index: newWorkloadIndex(), deploymentEvents: newEventRecorder("deployment-controller"), replicaSetEvents: newEventRecorder("replicaset-controller")}
	if err := registry.ValidateDisabledAdmissionPlugins(opts.DisableAdmissionPlugins); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, name := range opts.DisableAdmissionPlugins {
		if c.pluginsOff == nil {
			c.pluginsOff = map[string]bool{}
		}
		c.pluginsOff[name] = true
	}
	if c.store == nil {
		c.store = NewMemoryStore(MemoryOptions{})
	}
	c.apiAudiences = opts.APIAudiences
	if c.apiAudiences == nil {
		c.apiAudiences = []string{defaultAPIAudience}
	}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	c.webhooks = opts.WebhookClient
	if c.webhooks == nil {
		c.webhooks = admission.HTTPSClient{}
	}
	ttl := opts.EventTTL
	if ttl == 0 {
		ttl = DefaultEventTTL
	}
	c.eventTTL = newEventTTL(ttl)
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	c.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return c, nil
}

// Store returns the cluster's store.
func (c *Cluster) Store() Store { return c.store }

// Do answers one request as the apiserver would and stores its writes. Request.Now is set from
// the cluster's clock when zero. err is non-nil only when storage failed; every answer a client
// sees is in the Response.
func (c *Cluster) Do(ctx context.Context, req registry.Request) (registry.Response, error) {
	if req.Now.IsZero() {
		req.Now = c.clock.Now()
	}
	cached, concurrent := c.store.(CachedReader)
	c.mu.Lock()
	// Events past their TTL are gone before the request reads.
	if err := c.expireEvents(ctx, c.clock.Now()); err != nil {
		c.mu.Unlock()
		return registry.Response{}, err
	}
	if concurrent {
		c.mu.Unlock()
	} else {
		defer c.mu.Unlock()
	}
	resp, writes, stored, err := c.handle(ctx, req, cached)
	if concurrent {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	for _, st := range stored {
		c.observe(st.Key, st.Value, st.rev)
		c.resources[resourceKey{st.Key.Group, st.Key.Resource}] = struct{}{}
	}
	if err != nil || len(writes) == 0 {
		return resp, err
	}
	for _, wr := range writes {
		if err := c.establishCRD(ctx, wr, req.Now); err != nil {
			return resp, err
		}
	}
	if err := c.finalizeCRDs(ctx, writes, req.Now); err != nil {
		return resp, err
	}
	if err := c.serviceAccountsAfter(ctx, writes, req.Now); err != nil {
		return resp, err
	}
	if c.ctrl == AfterWrites && c.Leading() {
		switch {
		case needsControllers(writes):
			if err := c.settleLocked(ctx, req.Now, false); err != nil {
				return resp, err
			}
		case c.quotas.pending():
			// Only the resource quota controller has work (a quota written, a claim or
			// Service changed): no garbage collector snapshot.
			if _, err := c.settleQuotas(ctx, req.Now, false); err != nil {
				return resp, err
			}
		}
	}
	return resp, nil
}

// write is the one way the cluster writes its store: the controllers' index sees every write.
func (c *Cluster) write(ctx context.Context, w Write) (int64, error) {
	rev, err := c.store.Write(ctx, w)
	if err == nil {
		c.observe(w.Key, w.Value, rev)
	}
	return rev, err
}

// maxCommitAttempts bounds how often a request is answered again when another writer (another
// server on the same storage, or another request on a store with a CachedReader) changed what it
// read before its writes landed.
const maxCommitAttempts = 32

// storedWrite is a write commit made, for the controllers' index (observe) once c.mu is held.
type storedWrite struct {
	Write
	rev int64
}

// handle answers req with registry.Handle and stores its writes, each a compare-and-swap on the
// mod revision of the object as Handle read it (what the request saw), so that a write landing in
// between, from another server on the same store, is never overwritten. When one lands, the
// request is answered again over the new state, as the apiserver's GuaranteedUpdate tries its
// update again on a conflict (a client's own resourceVersion precondition then fails as a 409).
// The resourceVersions Handle was promised become the revisions the commits got, in the
// response and in what is stored (registry.Stored).
//
// With a CachedReader (cached non-nil), c.mu is not held and a write request's first answer reads
// the store's cache, as the apiserver's GuaranteedUpdate starts from its watch cache's object:
// a stale read of a key the request writes fails its compare-and-swap, and an answer with no
// writes (an error: not found, a 409 on a stale resourceVersion) is given again over direct
// reads, as GuaranteedUpdate re-reads etcd before failing on a cached object. Reads (GET, list)
// always read the store. Without one, c.mu is held.
func (c *Cluster) handle(ctx context.Context, req registry.Request, cached CachedReader) (registry.Response, []registry.Write, []storedWrite, error) {
	var stored []storedWrite
	useCache := cached != nil && req.Method != "" && req.Method != http.MethodGet
	// The cluster's own requests (ObjectOnly: the controllers', with c.mu held) read the stored
	// maps without copies and hand their writes over to the store: registry.Handle never
	// modifies what it reads, and nothing keeps the response.
	owned, _ := c.store.(sharedReader)
	if !req.ObjectOnly || cached != nil {
		owned = nil
	}
	for attempt := 0; ; attempt++ {
		w := &world{ctx: ctx, c: c, reads: c.store, owned: owned}
		if owned != nil {
			w.reads = owned.sharedReads()
		}
		if useCache {
			if r, ok := cached.Cached(); ok {
				w.reads = r
			} else {
				useCache = false
			}
		}
		resp, writes, err := registry.Handle(ctx, w, req)
		if err == nil && len(writes) == 0 && useCache {
			useCache = false
			continue
		}
		if err != nil || len(writes) == 0 {
			return resp, writes, stored, err
		}
		committed, err := c.commit(ctx, w, writes, &stored)
		if isConflict(err) && attempt+1 < maxCommitAttempts {
			useCache = false
			continue
		}
		if err != nil {
			return resp, nil, stored, err
		}
		resp, err = registry.Stored(req, resp, committed)
		return resp, writes, stored, err
	}
}

// commit stores the writes of one registry.Handle in order and returns, for each resourceVersion
// Handle was promised (World.NextResourceVersion), the revision its write was stored at. A write's
// precondition is the mod revision of its key as the request's world read it, or as this request's
// previous write of the key stored it. A *ConflictError means another writer came first. Each
// stored write is appended to stored.
func (c *Cluster) commit(ctx context.Context, w *world, writes []registry.Write, stored *[]storedWrite) (map[string]string, error) {
	committed := map[string]string{}
	for _, wr := range writes {
		key := storeKey(wr.Resource, wr.Namespace, wr.Name)
		expected, read := w.observed[key]
		if !read {
			return nil, fmt.Errorf("storing %s: the request wrote an object it did not read", key)
		}
		val := wr.Object
		if wr.Delete {
			val = nil
		}
		val, err := storedForm(wr.Resource, val)
		if err != nil {
			return nil, fmt.Errorf("storing %s: %w", key, err)
		}
		sw := Write{Key: key, Value: val, ModRevision: expected}
		var rev int64
		if w.owned != nil {
			rev, err = w.owned.writeOwned(sw)
		} else {
			rev, err = c.store.Write(ctx, sw)
		}
		if err != nil {
			return nil, fmt.Errorf("storing %s: %w", key, err)
		}
		*stored = append(*stored, storedWrite{Write: sw, rev: rev})
		w.observed[key] = rev
		if wr.Delete {
			w.observed[key] = 0
		}
		// A deletion's object carries a promise when the answer shows the deletion's revision
		// (DELETE), or the revision it was read at (an update that removed the last finalizer).
		if promised := metaString(wr.Object, "resourceVersion"); promised != "" && (!wr.Delete || promised != strconv.FormatInt(expected, 10)) {
			committed[promised] = strconv.FormatInt(rev, 10)
		}
	}
	return committed, nil
}

func isConflict(err error) bool {
	var conflict *ConflictError
	return errors.As(err, &conflict)
}

func needsControllers(writes []registry.Write) bool {
	for _, w := range writes {
		if w.Delete {
			return true
		}
		switch w.Resource.Group + "/" + w.Resource.Resource {
		case "apps/deployments", "apps/replicasets", "/pods":
			return true
		}
		meta, _ := w.Object["metadata"].(map[string]any)
		if meta["deletionTimestamp"] != nil || meta["ownerReferences"] != nil {
			return true
		}
	}
	return false
}

// Settle runs the garbage collector and the namespace controller to their fixpoint now, after
// apiextensions' CRD finalizer over the CRDs being deleted.
func (c *Cluster) Settle(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	if err := c.expireEvents(ctx, now); err != nil {
		return err
	}
	// CRDs being deleted that this cluster did not see marked (another server on the store).
	crds, err := c.store.List(ctx, ListRequest{Prefix: Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}})
	if err != nil {
		return err
	}
	var marked []registry.Write
	for _, o := range crds.Items {
		marked = append(marked, registry.Write{Resource: schema.GroupVersionResource{Group: o.Key.Group, Resource: o.Key.Resource}, Name: o.Key.Name, Object: o.Value})
	}
	if err := c.finalizeCRDs(ctx, marked, now); err != nil {
		return err
	}
	return c.settleLocked(ctx, now, true)
}

// settleLocked runs gc.Run over a snapshot of every object and stores what the controllers wrote,
// in their order. A removal the apiserver performs as a graceful update followed by the delete is
// stored as both writes, so watchers see MODIFIED then DELETED as from kube-apiserver.
//
// resync syncs every Deployment and ReplicaSet first, not only those a write concerned.
func (c *Cluster) settleLocked(ctx context.Context, now time.Time, resync bool) error {
	for i := 0; i < maxWorkloadRounds; i++ {
		wrote, err := c.settleWorkloads(ctx, now, resync && i == 0)
		if err != nil {
			return err
		}
		acted, err := c.settleGC(ctx, now)
		if err != nil {
			return err
		}
		released, err := c.settleProtection(ctx, now)
		if err != nil {
			return err
		}
		_ = wrote // the workloads settled; only what the garbage collector did can give them work again
		if _, err := c.settleQuotas(ctx, now, resync && i == 0); err != nil {
			return err
		}
		if !acted && !released {
			return nil
		}
	}
	return fmt.Errorf("the controllers did not settle")
}

// settleGC is one run of the garbage collector and the namespace controller to their fixpoint;
// acted says whether they wrote anything.
func (c *Cluster) settleGC(ctx context.Context, now time.Time) (bool, error) {
	var snapshot []gc.Object
	keys := map[string]Key{}                // uid -> key
	revs := map[string]int64{}              // uid -> mod revision in the snapshot
	services := map[string]map[string]any{} // uid -> Service in the snapshot
	for rk := range c.resources {
		objs, err := c.sharedValues(ctx, Prefix{Group: rk.group, Resource: rk.resource})
		if err != nil {
			return false, err
		}
		for _, o := range objs {
			if o.Key.Group == "" && o.Key.Resource == "services" {
				services[metaString(o.Value, "uid")] = o.Value
			}
			snapshot = append(snapshot, o.Value)
			keys[metaString(o.Value, "uid")] = o.Key
			revs[metaString(o.Value, "uid")] = o.ModRevision
		}
	}
	if len(snapshot) == 0 {
		return false, nil
	}
	sort.SliceStable(snapshot, func(i, j int) bool {
		return keys[metaString(snapshot[i], "uid")].String() < keys[metaString(snapshot[j], "uid")].String()
	})
	res, err := gc.Run(snapshot, gc.Options{Now: now})
	if err != nil {
		var input *gc.InputError
		if errors.As(err, &input) {
			return false, nil // a state the controllers refuse to act on; the real ones would log and wait
		}
		return false, err
	}
	acted := false
	// Each write is a compare-and-swap on the object as the snapshot (or the previous action on
	// it) left it: a write from another server in between makes the action void, and the
	// controllers run again over the new state (settleLocked loops), as the real ones requeue on
	// a conflict.
	for _, round := range res.Rounds {
		for _, a := range round {
			key, ok := keys[a.Target.UID]
			if !ok || a.Type == gc.ActionEvent {
				continue
			}
			if prev := a.Written(); prev != nil {
				rev, err := c.write(ctx, Write{Key: key, Value: prev, ModRevision: revs[a.Target.UID]})
				if isConflict(err) {
					return true, nil
				}
				if err != nil {
					return false, err
				}
				revs[a.Target.UID] = rev
			}
			if path := controllerUpdatePath(a, key); path != "" {
				// The controllers' updates go through the API as kube-controller-manager's, so
				// that managedFields follow them (a removed owner reference or finalizer is no
				// manager's any more) and the update is validated as the real one is.
				resp, err := c.requestResponse(ctx, now, controllerUser, controllerAgent, "PUT", path, "application/json", a.Object)
				if err != nil {
					return false, err
				}
				switch {
				case resp.Code == http.StatusConflict:
					return true, nil
				case resp.Code < 300:
					if n, err := strconv.ParseInt(metaString(resp.Object, "resourceVersion"), 10, 64); err == nil {
						revs[a.Target.UID] = n
					}
					acted = true
					continue
				}
				// Refused (the gc model and registry disagree): stored as the model wrote it.
			}
			rev, err := c.write(ctx, Write{Key: key, Value: a.Object, ModRevision: revs[a.Target.UID]})
			if err != nil {
				var nf *NotFoundError
				if a.Object == nil && errors.As(err, &nf) {
					continue
				}
				if isConflict(err) {
					return true, nil
				}
				return false, err
			}
			revs[a.Target.UID] = rev
			acted = true
			if svc := services[a.Target.UID]; svc != nil && a.Object == nil {
				// The controllers delete through the Service REST, whose AfterDelete releases
				// the Service's cluster IPs: their IPAddresses go after it.
				if err := c.releaseClusterIPs(ctx, now, svc); err != nil {
					return false, err
				}
			}
		}
	}
	return acted, nil
}

// releaseClusterIPs deletes the IPAddresses of a deleted Service's cluster IPs as the apiserver's
// allocator does, through its loopback client (a missing one is no error).
func (c *Cluster) releaseClusterIPs(ctx context.Context, now time.Time, svc map[string]any) error {
	spec, _ := svc["spec"].(map[string]any)
	if t, _ := spec["type"].(string); t == "ExternalName" {
		return nil
	}
	ips, _ := spec["clusterIPs"].([]any)
	if len(ips) == 0 {
		if ip, _ := spec["clusterIP"].(string); ip != "" {
			ips = []any{ip}
		}
	}
	for _, v := range ips {
		ip, _ := v.(string)
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			continue // "None": headless
		}
		if _, err := c.requestResponse(ctx, now, apiserverUser, apiserverAgent, "DELETE", "/apis/networking.k8s.io/v1/ipaddresses/"+addr.String(), "", nil); err != nil {
			return err
		}
	}
	return nil
}

// controllerUpdatePath is the API path the garbage collector's or the namespace controller's
// action updates its target through (the object, a namespace's status or finalize), or "" for
// an action stored as it is (a deletion; a finalize that removes the namespace, whose
// deletion gc models in the same action).
func controllerUpdatePath(a gc.Action, key Key) string {
	if a.Object == nil || a.Written() != nil {
		return ""
	}
	av, _ := a.Object["apiVersion"].(string)
	if av == "" {
		return ""
	}
	base := "/apis/" + av
	if !strings.Contains(av, "/") {
		base = "/api/" + av
	}
	if key.Namespace != "" {
		base += "/namespaces/" + key.Namespace
	}
	base += "/" + key.Resource + "/" + key.Name
	switch a.Type {
	case gc.ActionRemoveOwnerReferences, gc.ActionUnblockOwnerReferences, gc.ActionRemoveFinalizer:
		return base
	case gc.ActionUpdateNamespaceStatus:
		return base + "/status"
	case gc.ActionFinalizeNamespace:
		// A namespace that stays (another finalizer holds it): kube-controller-manager's
		// PUT /finalize, so that spec.finalizers becomes its "finalize" entry's and leaves the
		// creator's, as the real one's does.
		return base + "/finalize"
	}
	return ""
}

func metaString(obj map[string]any, k string) string {
	meta, _ := obj["metadata"].(map[string]any)
	s, _ := meta[k].(string)
	return s
}

// world is registry.World over the cluster's store, for one request.
type world struct {
	ctx context.Context
	c   *Cluster
	// reads is where the request reads: the store, or its cache (handle).
	reads Reads
	// owned is set for the cluster's own requests: reads and writes without copies (handle).
	owned    sharedReader
	reserved int64
	// observed holds the mod revision of every key the request read (0: absent), first read
	// first: the preconditions of its writes. maxRevision is the largest revision read.
	observed    map[Key]int64
	maxRevision int64
	// listRevision is the revision the request's last List was read at.
	listRevision int64
}

// saw records a read of key at mod revision rev (0: the key held nothing).
func (w *world) saw(key Key, rev int64) {
	if w.observed == nil {
		w.observed = map[Key]int64{}
	}
	if _, ok := w.observed[key]; !ok {
		w.observed[key] = rev
	}
	w.maxRevision = max(w.maxRevision, rev)
}

// storeKey is where objects of resource r are stored: under r, or under the resource whose
// storage r shares (schema.SharedStorage: events.k8s.io events are core events).
func storeKey(r schema.GroupVersionResource, namespace, name string) Key {
	if st, ok := schema.SharedStorage(r.Group, r.Resource); ok {
		r = st
	}
	return Key{Group: r.Group, Resource: r.Resource, Namespace: namespace, Name: name}
}

// storePrefix is storeKey's prefix of resource r in namespace.
func storePrefix(r schema.GroupVersionResource, namespace string) Prefix {
	k := storeKey(r, namespace, "")
	return Prefix{Group: k.Group, Resource: k.Resource, Namespace: namespace}
}

// servedForm is obj, stored for resource r, in r's version: itself, unless r shares another
// resource's storage, whose version it is stored in.
func servedForm(r schema.GroupVersionResource, obj map[string]any) (map[string]any, error) {
	if _, ok := schema.SharedStorage(r.Group, r.Resource); !ok || obj == nil {
		return obj, nil
	}
	return convertKind(obj, schema.GroupVersion{Group: r.Group, Version: r.Version})
}

// storedForm is obj, written through resource r, in the version it is stored in.
func storedForm(r schema.GroupVersionResource, obj map[string]any) (map[string]any, error) {
	st, ok := schema.SharedStorage(r.Group, r.Resource)
	if !ok || obj == nil {
		return obj, nil
	}
	return convertKind(obj, st.GroupVersion())
}

// convertKind converts obj, a built-in object of the version its apiVersion says, to its kind in
// gv.
func convertKind(obj map[string]any, gv schema.GroupVersion) (map[string]any, error) {
	av, _ := obj["apiVersion"].(string)
	from, err := schema.ParseAPIVersion(av)
	if err != nil {
		return nil, err
	}
	if from == gv {
		return obj, nil
	}
	kind, _ := obj["kind"].(string)
	return conversion.Builtin{}.Convert(obj, schema.GroupVersionKind{Group: from.Group, Version: from.Version, Kind: kind},
		schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind})
}

func (w *world) Get(ctx context.Context, r schema.GroupVersionResource, namespace, name string) (map[string]any, error) {
	key := storeKey(r, namespace, name)
	o, err := w.reads.Get(ctx, key)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		w.saw(key, 0)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w.saw(key, o.ModRevision)
	return servedForm(r, o.Value)
}

func (w *world) List(ctx context.Context, r schema.GroupVersionResource, namespace string) ([]map[string]any, error) {
	l, err := w.reads.List(ctx, ListRequest{Prefix: storePrefix(r, namespace)})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(l.Items))
	for i, o := range l.Items {
		w.saw(o.Key, o.ModRevision)
		if out[i], err = servedForm(r, o.Value); err != nil {
			return nil, err
		}
	}
	w.maxRevision = max(w.maxRevision, l.Revision)
	w.listRevision = l.Revision
	return out, nil
}

func (w *world) CRD(ctx context.Context, group, resource string) (*schema.CRD, error) {
	o, err := w.reads.Get(ctx, Key{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: resource + "." + group})
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return w.c.crds.parse(resource+"."+group, o), nil
}

// CELValidators implements registry.CELCache: the compiled rules of a CRD the cache parsed.
func (w *world) CELValidators(crd *schema.CRD) *cel.Validators { return w.c.crds.validators(crd) }

// crdCache is the cluster's parsed CRDs and their CEL validators, each kept until the CRD is
// stored again (a new parse, with fresh validators) or deleted; safe for concurrent use.
type crdCache struct {
	mu sync.Mutex
	m  map[string]*crdEntry // by name
}

type crdEntry struct {
	rev int64
	crd *schema.CRD // nil when the stored CRD does not parse
	cel *cel.Validators
	// obj is the stored CRD (read-only); conv its conversion webhook's converter, built on
	// first use (convOnce) and rebuilt with the entry when the CRD changes.
	obj      map[string]any
	convOnce sync.Once
	conv     *conversion.Converter
	convErr  error
}

// parse returns the CRD stored as o, parsed once per mod revision; nil for one that no longer
// parses (it serves nothing).
func (c *crdCache) parse(name string, o Object) *schema.CRD {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[name]; ok && e.rev == o.ModRevision && o.ModRevision != 0 {
		return e.crd
	}
	crd, err := schema.FromCRD(o.Value)
	if err != nil {
		crd = nil
	}
	if c.m == nil || len(c.m) >= maxCachedCRDs {
		c.m = map[string]*crdEntry{} // a bound for stores with very many CRDs; they are parsed again as used
	}
	c.m[name] = &crdEntry{rev: o.ModRevision, crd: crd, cel: &cel.Validators{}, obj: o.Value}
	return crd
}

// converter returns the conversion webhook's converter of a CRD parse returned: nil for a CRD of
// strategy None or another CRD value. The client is conversion.NewClient's (HTTPS to the
// clientConfig's url, trusting its caBundle); a client that cannot be built (a service
// reference, which the cluster cannot resolve; a caBundle that does not load) fails every
// conversion with its error, as the apiserver's webhook client fails its calls.
func (c *crdCache) converter(crd *schema.CRD, store Store) (*conversion.Converter, error) {
	if crd == nil {
		return nil, nil
	}
	c.mu.Lock()
	e, ok := c.m[crd.Name]
	c.mu.Unlock()
	if !ok || e.crd != crd {
		return nil, nil
	}
	e.convOnce.Do(func() {
		cc, err := conversion.FromCRD(e.obj)
		if err != nil {
			e.convErr = err
			return
		}
		if cc.Strategy != conversion.StrategyWebhook {
			return
		}
		var caller conversion.Caller
		if sv := cc.Webhook.Service; sv != nil {
			caller = &serviceCaller{store: store, svc: *sv}
		} else if cl, err := conversion.NewClient(cc, conversion.ClientOptions{}); err != nil {
			caller = failingCaller{err}
		} else {
			caller = cl
		}
		e.conv, e.convErr = conversion.New(cc, conversion.Options{Caller: caller})
	})
	return e.conv, e.convErr
}

// serviceCaller is the conversion webhook client of a service reference: kube-apiserver resolves
// the Service and posts to its cluster IP, which the in-memory cluster cannot reach. A Service
// that does not exist fails as the apiserver's resolver fails (recorded:
// conversion/conv-webhook-no-service); one that does fails saying it cannot be reached.
type serviceCaller struct {
	store Store
	svc   conversion.Service
}

func (s *serviceCaller) Call(ctx context.Context, _ []byte) (*conversion.Response, error) {
	u := (&url.URL{Scheme: "https", Host: fmt.Sprintf("%s.%s.svc:%d", s.svc.Name, s.svc.Namespace, s.svc.Port),
		Path: path.Join("/", s.svc.Path), RawQuery: "timeout=" + conversion.DefaultTimeout.String()}).String()
	_, err := s.store.Get(ctx, Key{Resource: "services", Namespace: s.svc.Namespace, Name: s.svc.Name})
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("Post %q: service %q not found", u, s.svc.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("Post %q: %w", u, err)
	}
	return nil, fmt.Errorf("Post %q: the in-memory cluster cannot reach Service %s/%s (give the conversion webhook a url)", u, s.svc.Namespace, s.svc.Name)
}

// failingCaller is the conversion webhook client that could not be built.
type failingCaller struct{ err error }

func (f failingCaller) Call(context.Context, []byte) (*conversion.Response, error) { return nil, f.err }

// CRDConverter implements registry.Conversions: the converter of a CRD the cache parsed.
func (w *world) CRDConverter(_ context.Context, crd *schema.CRD) (*conversion.Converter, error) {
	return w.c.crds.converter(crd, w.c.store)
}

// validators returns the validators of a CRD parse returned, nil for another CRD value.
func (c *crdCache) validators(crd *schema.CRD) *cel.Validators {
	if crd == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[crd.Name]; ok && e.crd == crd {
		return e.cel
	}
	return nil
}

const maxCachedCRDs = 10_000

// Admission returns the stored admissionregistration.k8s.io/v1 objects and, as params, the
// objects of every kind a policy names as its paramKind.
func (w *world) Admission(ctx context.Context) (registry.AdmissionConfig, error) {
	cfg := registry.AdmissionConfig{Client: w.c.webhooks}
	paramKinds := map[schema.GroupVersionKind]bool{}
	for _, res := range []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies",
		"mutatingadmissionpolicybindings", "validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
		l, err := w.reads.List(ctx, ListRequest{Prefix: Prefix{Group: "admissionregistration.k8s.io", Resource: res}})
		if err != nil {
			return cfg, err
		}
		for _, o := range l.Items {
			cfg.Objects = append(cfg.Objects, o.Value)
			spec, _ := o.Value["spec"].(map[string]any)
			if pk, ok := spec["paramKind"].(map[string]any); ok {
				av, _ := pk["apiVersion"].(string)
				kind, _ := pk["kind"].(string)
				if gvk, err := schema.FromAPIVersionAndKind(av, kind); err == nil {
					paramKinds[gvk] = true
				}
			}
		}
	}
	gvks := make([]schema.GroupVersionKind, 0, len(paramKinds))
	for gvk := range paramKinds {
		gvks = append(gvks, gvk)
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	for _, gvk := range gvks {
		resource := ""
		if k, err := schema.Builtin(gvk); err == nil {
			resource = k.Resource
		} else if crd := w.crdForKind(ctx, gvk); crd != nil {
			resource = crd.Names.Plural
		}
		if resource == "" {
			continue
		}
		l, err := w.reads.List(ctx, ListRequest{Prefix: Prefix{Group: gvk.Group, Resource: resource}})
		if err != nil {
			return cfg, err
		}
		for _, o := range l.Items {
			cfg.Params = append(cfg.Params, o.Value)
		}
	}
	return cfg, nil
}

func (w *world) crdForKind(ctx context.Context, gvk schema.GroupVersionKind) *schema.CRD {
	l, err := w.reads.List(ctx, ListRequest{Prefix: Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}})
	if err != nil {
		return nil
	}
	for _, o := range l.Items {
		if crd, err := schema.FromCRD(o.Value); err == nil && crd.Group == gvk.Group && crd.Names.Kind == gvk.Kind {
			return crd
		}
	}
	return nil
}

// random draws from the cluster's seeded generator.
func (c *Cluster) random(draw func(*rand.Rand) uint64) uint64 {
	c.rngMu.Lock()
	defer c.rngMu.Unlock()
	return draw(c.rng)
}

// AdmissionPluginDisabled implements registry.AdmissionPluginDisabler: Options.DisableAdmissionPlugins.
func (w *world) AdmissionPluginDisabled(name string) bool { return w.c.pluginsOff[name] }

// NewUID returns a random (version 4) UUID from the cluster's seeded generator.
func (w *world) NewUID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := w.c.random(func(r *rand.Rand) uint64 { return r.Uint64() })
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// GenerateName appends five random characters to base (cut to 58), as the apiserver's
// SimpleNameGenerator does (registry.GenerateName, with the cluster's random source).
func (w *world) GenerateName(base string) string {
	return registry.GenerateName(base, func(n int) int {
		return int(w.c.random(func(r *rand.Rand) uint64 { return uint64(r.IntN(n)) }))
	})
}

// NextResourceVersion returns a placeholder for the revision the write will get: one past the
// store's revision and everything the request read, so that it differs from every
// resourceVersion the request saw. commit replaces it with the revision the write was stored at
// (registry.Stored); on one server the two are equal, as writes are serialised.
func (w *world) NextResourceVersion() string {
	cur, _ := w.reads.Revision(w.ctx)
	w.reserved++
	return strconv.FormatInt(max(cur, w.maxRevision)+w.reserved, 10)
}

// establishCRD is apiextensions-apiserver's naming and establishing controllers for a written
// CRD: the naming controller accepts the names (status.acceptedNames, NamesAccepted), then the
// establishing controller sets Established, each an update of the CRD's status as the
// apiserver's loopback client (managedFields manager "kube-apiserver", subresource status).
func (c *Cluster) establishCRD(ctx context.Context, wr registry.Write, now time.Time) error {
	if wr.Delete || wr.Resource.Group != "apiextensions.k8s.io" || wr.Resource.Resource != "customresourcedefinitions" {
		return nil
	}
	key := Key{Group: wr.Resource.Group, Resource: wr.Resource.Resource, Name: wr.Name}
	ts := now.UTC().Format(time.RFC3339)
	for _, step := range []string{"NamesAccepted", "Established"} {
		cur, err := c.store.Get(ctx, key)
		if err != nil {
			return nil
		}
		obj := cur.Value
		if md, _ := obj["metadata"].(map[string]any); md["deletionTimestamp"] != nil {
			return nil
		}
		spec, _ := obj["spec"].(map[string]any)
		st, _ := obj["status"].(map[string]any)
		newStatus := make(map[string]any, len(st)+2)
		for k, v := range st {
			newStatus[k] = v
		}
		conds, _ := st["conditions"].([]any)
		has := false
		var out []any
		for _, x := range conds {
			m, ok := x.(map[string]any)
			if ok && m["type"] == step {
				if m["status"] == "True" {
					has = true
				} else {
					continue
				}
			}
			out = append(out, x)
		}
		changed := false
		if names, ok := spec["names"].(map[string]any); ok && step == "NamesAccepted" && fmt.Sprint(st["acceptedNames"]) != fmt.Sprint(names) {
			newStatus["acceptedNames"] = names
			changed = true
		}
		if !has {
			cond := map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
				"message": "no conflicts found", "lastTransitionTime": ts}
			if step == "Established" {
				cond = map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
					"message": "the initial names have been accepted", "lastTransitionTime": ts}
			}
			out = append(out, cond)
			changed = true
		}
		if !changed {
			continue
		}
		newStatus["conditions"] = out
		upd := make(map[string]any, len(obj))
		for k, v := range obj {
			upd[k] = v
		}
		upd["status"] = newStatus
		resp, err := c.requestResponse(ctx, now, apiserverUser, apiserverAgent, "PUT",
			"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+wr.Name+"/status", "application/json", upd)
		if err != nil {
			return err
		}
		if resp.Code >= 300 {
			return fmt.Errorf("establishing %s: %d %s", wr.Name, resp.Code, resp.Body)
		}
	}
	return nil
}

// apiserverUser and apiserverAgent are kube-apiserver's loopback client, which its own
// controllers (the CRD naming and establishing controllers) write as.
var apiserverUser = registry.LoopbackUser

const apiserverAgent = registry.LoopbackUserAgent
