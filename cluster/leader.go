package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/writepath/writepath/internal/value"
	"github.com/writepath/writepath/registry"
	"github.com/writepath/writepath/schema"
)

// LeaderElection makes the controllers of several servers sharing one store run in one of them
// at a time, as kube-controller-manager's --leader-elect does: the servers compete for a
// coordination.k8s.io/v1 Lease through the API (kube-system/kube-controller-manager by default),
// the holder renews it every RetryPeriod, and another takes it over once it has seen the same
// record unchanged for LeaseDuration (client-go's leaderelection with a LeaseLock; the
// expiry is measured on the observer's clock, never by comparing clocks). Every time it
// measures or writes (acquireTime, renewTime, the expiry, the renew deadline) is the cluster's
// Options.Clock, so a FakeClock decides when a Lease expires; only the pace of the rounds, one
// every RetryPeriod, is a real ticker. The zero value takes kube-controller-manager's defaults.
type LeaderElection struct {
	// Identity is the Lease's holderIdentity; it must differ between the servers.
	Identity string
	// Namespace and Name name the Lease: kube-system and kube-controller-manager by default.
	Namespace, Name string
	// LeaseDuration, RenewDeadline and RetryPeriod are --leader-elect-lease-duration (15s),
	// --leader-elect-renew-deadline (10s) and --leader-elect-retry-period (2s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

func (le LeaderElection) withDefaults() LeaderElection {
	if le.Namespace == "" {
		le.Namespace = "kube-system"
	}
	if le.Name == "" {
		le.Name = "kube-controller-manager"
	}
	if le.LeaseDuration <= 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline <= 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod <= 0 {
		le.RetryPeriod = 2 * time.Second
	}
	return le
}

// Leading reports whether the cluster's controllers run: always without Options.LeaderElection,
// while it holds the Lease with it.
func (c *Cluster) Leading() bool {
	c.leadMu.Lock()
	defer c.leadMu.Unlock()
	return c.leader == nil || c.leading
}

func (c *Cluster) setLeading(v bool) {
	c.leadMu.Lock()
	defer c.leadMu.Unlock()
	c.leading = v
}

var leaseGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// Lead runs the leader election of Options.LeaderElection until ctx is done: it acquires and
// renews the Lease, and while it holds it runs the controllers after this server's writes (as
// without leader election) and, every RetryPeriod, over what the other servers wrote since the
// last run. A cluster made without Options.LeaderElection returns at once. On return the
// cluster no longer leads; the Lease is left to expire, as kube-controller-manager leaves it
// (ReleaseOnCancel is off there).
func (c *Cluster) Lead(ctx context.Context) error {
	if c.leader == nil {
		return nil
	}
	le := c.leader.withDefaults()
	defer c.setLeading(false)
	var observed string      // the Lease record as last read (holder and renewTime)
	var observedAt time.Time // when it was first seen as it is
	var lastRenew time.Time
	var settledAt int64 = -1
	tick := time.NewTicker(le.RetryPeriod)
	defer tick.Stop()
	for {
		ok, err := c.tryLease(ctx, le, &observed, &observedAt)
		now := c.clock.Now()
		switch {
		case err == nil && ok:
			lastRenew = now
			c.setLeading(true)
		case c.Leading() && now.Sub(lastRenew) > le.RenewDeadline:
			c.setLeading(false) // failed to renew within the deadline: stop leading
		}
		if c.Leading() {
			if rev, err := c.store.Revision(ctx); err == nil && rev != settledAt {
				if err := c.resyncControllers(ctx); err == nil {
					settledAt = rev
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// tryLease reads the Lease and acquires or renews it; ok says whether this server holds it now.
func (c *Cluster) tryLease(ctx context.Context, le LeaderElection, observed *string, observedAt *time.Time) (bool, error) {
	path := "/apis/coordination.k8s.io/v1/namespaces/" + le.Namespace + "/leases/" + le.Name
	user := registry.User{Name: "system:kube-controller-manager", Groups: []string{"system:authenticated"}}
	const agent = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/leader-election"
	now := c.clock.Now().UTC()
	micro := now.Format("2006-01-02T15:04:05.000000Z07:00")
	get, err := c.Do(ctx, registry.Request{Method: "GET", Path: path, User: Admin, UserAgent: agent, Now: now})
	if err != nil {
		return false, err
	}
	durationSeconds := max(int64((le.LeaseDuration+time.Second-1)/time.Second), 1)
	if get.Code == 404 {
		if err := c.ensureNamespace(ctx, le.Namespace); err != nil {
			return false, err
		}
		lease := map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": le.Name, "namespace": le.Namespace},
			"spec": map[string]any{"holderIdentity": le.Identity, "leaseDurationSeconds": durationSeconds,
				"acquireTime": micro, "renewTime": micro, "leaseTransitions": int64(0)}}
		body, _ := json.Marshal(lease)
		resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: "/apis/coordination.k8s.io/v1/namespaces/" + le.Namespace + "/leases",
			Body: body, ContentType: "application/json", User: user, UserAgent: agent, Now: now})
		if err != nil {
			return false, err
		}
		return resp.Code == 201, nil
	}
	if get.Code != 200 {
		return false, fmt.Errorf("reading the Lease %s/%s: %d", le.Namespace, le.Name, get.Code)
	}
	spec, _ := get.Object["spec"].(map[string]any)
	holder, _ := spec["holderIdentity"].(string)
	record := fmt.Sprint(holder, spec["renewTime"], spec["leaseTransitions"])
	if record != *observed {
		*observed, *observedAt = record, now
	}
	if holder != le.Identity && holder != "" && now.Sub(*observedAt) < le.LeaseDuration {
		return false, nil // held by another, not expired
	}
	upd, err := value.DeepCopyMap(get.Object)
	if err != nil {
		return false, err
	}
	uspec, _ := upd["spec"].(map[string]any)
	if uspec == nil {
		uspec = map[string]any{}
		upd["spec"] = uspec
	}
	if holder != le.Identity {
		transitions, _ := spec["leaseTransitions"].(int64)
		uspec["holderIdentity"] = le.Identity
		uspec["acquireTime"] = micro
		uspec["leaseTransitions"] = transitions + 1
	}
	uspec["renewTime"] = micro
	uspec["leaseDurationSeconds"] = durationSeconds
	body, _ := json.Marshal(upd)
	// The PUT carries the resourceVersion read: when another server renewed or took the Lease
	// in between, it is a 409 and this round is lost.
	resp, err := c.Do(ctx, registry.Request{Method: "PUT", Path: path, Body: body, ContentType: "application/json", User: user, UserAgent: agent, Now: now})
	if err != nil {
		return false, err
	}
	if resp.Code == 200 {
		*observed = fmt.Sprint(le.Identity, uspec["renewTime"], uspec["leaseTransitions"])
		*observedAt = now
		return true, nil
	}
	return false, nil
}

// resyncControllers runs the controllers over everything stored, the resources other servers
// wrote included: the leader learns of their writes from the store, not from its own requests.
func (c *Cluster) resyncControllers(ctx context.Context) error {
	kinds, err := schema.BuiltinKinds()
	if err != nil {
		return err
	}
	crds, err := c.store.List(ctx, ListRequest{Prefix: Prefix{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[resourceKey]bool{}
	var candidates []resourceKey
	for _, k := range kinds {
		rk := resourceKey{k.GVK.Group, k.Resource}
		if k.ServedByDefault && !seen[rk] {
			seen[rk] = true
			candidates = append(candidates, rk)
		}
	}
	for _, o := range crds.Items {
		if crd, err := schema.FromCRD(o.Value); err == nil {
			candidates = append(candidates, resourceKey{crd.Group, crd.Names.Plural})
		}
	}
	for _, rk := range candidates {
		if _, known := c.resources[rk]; known {
			continue
		}
		l, err := c.store.List(ctx, ListRequest{Prefix: Prefix{Group: rk.group, Resource: rk.resource}, Limit: 1})
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			c.resources[rk] = struct{}{}
		}
	}
	return c.settleLocked(ctx, c.clock.Now(), true)
}
