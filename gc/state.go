package gc

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Controller names accepted in Options.Controllers.
const (
	ControllerGC        = "garbagecollector"
	ControllerNamespace = "namespace"
)

// Options configures Step, Run and Diagnose.
type Options struct {
	// Now is the controllers' and the apiserver's clock (deletionTimestamp, condition times).
	Now time.Time
	// Kinds resolves kinds before the snapshot's CustomResourceDefinitions and Builtin.
	Kinds Kinds
	// Controllers lists the controllers that run: ControllerGC, ControllerNamespace (the
	// short names "gc" and "ns" are accepted). Nil means both.
	Controllers []string
	// MaxRounds bounds Run; zero means 10000. A run that reaches it reports Converged=false.
	MaxRounds int
}

func (o Options) runs(c string) bool {
	if o.Controllers == nil {
		return true
	}
	for _, x := range o.Controllers {
		switch strings.ToLower(x) {
		case c:
			return true
		case "gc", "garbage-collector":
			if c == ControllerGC {
				return true
			}
		case "ns", "namespaces":
			if c == ControllerNamespace {
				return true
			}
		}
	}
	return false
}

// ActionType names what a controller does to the API.
type ActionType string

// The actions controllers take.
const (
	// ActionDelete: DELETE of Target with PropagationPolicy and a uid precondition.
	ActionDelete ActionType = "Delete"
	// ActionRemoveOwnerReferences: patch removing Target's ownerReferences to OwnerUIDs
	// (orphaning, dangling or waiting owners).
	ActionRemoveOwnerReferences ActionType = "RemoveOwnerReferences"
	// ActionUnblockOwnerReferences: patch setting blockOwnerDeletion=false on every blocking
	// ownerReference of Target (the garbage collector breaking a foreground cycle).
	ActionUnblockOwnerReferences ActionType = "UnblockOwnerReferences"
	// ActionRemoveFinalizer: merge patch removing Finalizer from Target's metadata.finalizers.
	ActionRemoveFinalizer ActionType = "RemoveFinalizer"
	// ActionEvent: an Event is recorded.
	ActionEvent ActionType = "Event"
	// ActionUpdateNamespaceStatus: the namespace controller writes status (phase, conditions).
	ActionUpdateNamespaceStatus ActionType = "UpdateNamespaceStatus"
	// ActionFinalizeNamespace: the namespace controller removes "kubernetes" from
	// spec.finalizers through the finalize subresource.
	ActionFinalizeNamespace ActionType = "FinalizeNamespace"
)

// Event is an Event a controller records.
type Event struct {
	Type           string `json:"type"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	InvolvedObject Ref    `json:"involvedObject"`
	Source         string `json:"source"`
}

// Action is one write a controller makes, as data. Apply them in order to reproduce Run.
type Action struct {
	Type       ActionType `json:"type"`
	Controller string     `json:"controller"`
	Target     Ref        `json:"target"`
	// PropagationPolicy of an ActionDelete.
	PropagationPolicy Propagation `json:"propagationPolicy,omitempty"`
	// OwnerUIDs of an ActionRemoveOwnerReferences or ActionUnblockOwnerReferences.
	OwnerUIDs []string `json:"ownerUIDs,omitempty"`
	// Finalizer of an ActionRemoveFinalizer.
	Finalizer string `json:"finalizer,omitempty"`
	// Event of an ActionEvent.
	Event *Event `json:"event,omitempty"`
	// Status is the namespace status written by ActionUpdateNamespaceStatus.
	Status map[string]any `json:"status,omitempty"`
	// Why says, in words, why the controller acts.
	Why string `json:"why"`
	// Outcome says what the write did: "removed", "terminating", "updated", "unchanged", or
	// "error: <the apiserver's message>".
	Outcome string `json:"outcome,omitempty"`
	// Object is Target as stored after the write (nil when removed or for events), so a caller
	// can apply the action to its own store by writing it.
	Object Object `json:"-"`
	// written describes, for a removal, the state the apiserver wrote just before; see
	// Written.
	written *writtenState
}

// writtenState is the graceful update written before a removal, kept small and built on demand.
type writtenState struct {
	prev       Object
	timestamp  string
	generation int64
}

// Written returns, for a removal, the state the apiserver wrote just before removing the
// object (see DeleteResult.Written); nil otherwise.
func (a Action) Written() Object {
	if a.written == nil {
		return nil
	}
	set := map[string]any{"deletionTimestamp": a.written.timestamp, "deletionGracePeriodSeconds": int64(0)}
	if a.written.generation > 0 {
		set["generation"] = a.written.generation
	}
	return withMeta(a.written.prev, set)
}

// String prints the action on one line.
func (a Action) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s", a.Controller, a.Type, a.Target)
	switch a.Type {
	case ActionDelete:
		fmt.Fprintf(&b, " propagationPolicy=%s", a.PropagationPolicy)
	case ActionRemoveOwnerReferences, ActionUnblockOwnerReferences:
		fmt.Fprintf(&b, " owners=%s", strings.Join(a.OwnerUIDs, ","))
	case ActionRemoveFinalizer:
		fmt.Fprintf(&b, " finalizer=%s", a.Finalizer)
	case ActionEvent:
		fmt.Fprintf(&b, " %s %s: %s", a.Event.Type, a.Event.Reason, a.Event.Message)
	}
	if a.Why != "" {
		fmt.Fprintf(&b, " (%s)", a.Why)
	}
	if a.Outcome != "" {
		fmt.Fprintf(&b, " -> %s", a.Outcome)
	}
	return b.String()
}

// InputError lists why a snapshot cannot exist in a cluster: objects without name or uid,
// duplicate objects, ownerReferences the apiserver rejects.
type InputError struct {
	Problems []string
}

func (e *InputError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid snapshot: " + e.Problems[0]
	}
	return fmt.Sprintf("invalid snapshot: %d problems: %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// item is one object of the working state.
type item struct {
	pos   int
	dirty bool
	obj   Object
	m     meta
	k     *Kind
	gone  bool
	// unbound is true when obj, as read at indexing, is a Pod without spec.nodeName (its
	// graceful deletion has a zero period); false when unknown.
	unbound bool
	// ownerItems holds, for each of m.owners, the snapshot object with that uid (nil if none).
	ownerItems []*item
	// dependents lists the objects that referenced this one when they were indexed; entries
	// whose reference has since been removed are skipped on use.
	dependents []*item
	// ownerUIDs indexes the uids of m.owners, for an item with many of them (each of its
	// owners asks whether it still refers to it: a scan each was quadratic in the references).
	ownerUIDs ownerIndex
}

// ownerIndex maps the uids of a list of ownerReferences to whether one with that uid blocks
// owner deletion. It remembers the list it was built from: the list changes only by a new
// meta (replace), whose list is a new one.
type ownerIndex struct {
	of   *ownerReference
	n    int
	uids map[string]bool
}

// ownerIndexFrom is the smallest number of ownerReferences indexed; fewer are scanned.
const ownerIndexFrom = 9

// owners returns the index of it.m.owners, built or rebuilt when they changed; work counts the
// references looked at.
func (it *item) owners(work *int) map[string]bool {
	*work++
	if it.ownerUIDs.of != &it.m.owners[0] || it.ownerUIDs.n != len(it.m.owners) {
		*work += len(it.m.owners)
		uids := make(map[string]bool, len(it.m.owners))
		for _, o := range it.m.owners {
			uids[o.UID] = uids[o.UID] || o.blocking()
		}
		it.ownerUIDs = ownerIndex{of: &it.m.owners[0], n: len(it.m.owners), uids: uids}
	}
	return it.ownerUIDs.uids
}

// blocks reports whether the item has an ownerReference with the uid that blocks owner deletion.
func (it *item) blocks(uid string, work *int) bool {
	if len(it.m.owners) < ownerIndexFrom {
		*work += len(it.m.owners)
		for _, o := range it.m.owners {
			if o.UID == uid && o.blocking() {
				return true
			}
		}
		return false
	}
	return it.owners(work)[uid]
}

func (it *item) ref() Ref { return it.m.ref() }

// ignored reports whether the garbage collector leaves the item out of its graph: it does not
// monitor events (DefaultIgnoredResources).
func (it *item) ignored() bool {
	return it.k.Resource == "events" && (it.k.Group == "" || it.k.Group == "events.k8s.io")
}

func (it *item) deletingDependents() bool {
	return it.m.deleting() && it.m.hasFinalizer(FinalizerForeground)
}

// refersTo reports whether the item has an ownerReference with the uid.
func (it *item) refersTo(uid string, work *int) bool {
	if len(it.m.owners) < ownerIndexFrom {
		*work += len(it.m.owners)
		for _, o := range it.m.owners {
			if o.UID == uid {
				return true
			}
		}
		return false
	}
	_, ok := it.owners(work)[uid]
	return ok
}

// state is the working copy Step and Run advance. Objects are never mutated: a changed object is
// a fresh top-level map and metadata map sharing untouched subtrees with its previous version.
type state struct {
	opts Options
	cat  *catalog
	// items are the snapshot's objects in input order (without those rejected), indexed by
	// uid in byUID, whose items slice this is.
	items []*item
	byUID uidIndex
	// namespaces are the items that are Namespaces, in input order.
	namespaces []*item
	// inNamespace holds the namespaced items of each namespace, in input order: the namespace
	// controller looks a terminating namespace's content up there instead of scanning every
	// item for every namespace (quadratic in a snapshot of many terminating namespaces).
	inNamespace map[string][]*item
	// contentVisits counts the items the namespace controller looked at, for the scaling test.
	contentVisits int
	// refWork counts the ownerReferences looked at to find an owner's dependents, for the
	// scaling test.
	refWork int
	now     time.Time
	nowStr  string
	whys    map[string]string
	// lastWhyKey and lastWhy are the entry of whys used last.
	lastWhyKey, lastWhy string
	lastWhyValid        bool
	events              bool // graph events already emitted
	// stuck records, per item, why the garbage collector cannot decide about it.
	stuck map[*item]string
	// writtenSlab is the rest of the block newWritten allocates from.
	writtenSlab []writtenState
	// fullScan evaluates every item in every round instead of those whose neighbourhood
	// changed; tests use it to check that both agree.
	fullScan bool
}

// touch marks an item, its dependents and its owners for evaluation in the garbage
// collector's next pass: what it decides about an object depends on nothing else.
func (s *state) touch(it *item) {
	it.dirty = true
	for _, d := range it.dependents {
		d.dirty = true
	}
	for _, x := range it.ownerItems {
		if x != nil {
			x.dirty = true
		}
	}
}

// objKey identifies an object by what a GET names: group, resource, namespace, name.
type objKey struct{ group, resource, namespace, name string }

func (k objKey) hash() uint64 {
	h := uint64(14695981039346656037)
	for _, s := range [...]string{k.group, k.resource, k.namespace, k.name} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		h ^= 0xff
		h *= 1099511628211
	}
	return h
}

func keyOf(it *item) objKey {
	return objKey{it.k.Group, it.k.Resource, it.m.namespace, it.m.name}
}

func objKeyHash(it *item) uint64 { return keyOf(it).hash() }

func newState(objs []Object, opts Options) (*state, error) {
	s := &state{opts: opts, now: opts.Now, byUID: newUIDIndex(len(objs)), stuck: map[*item]string{}}
	// Each object's metadata is read once, into its item; items are allocated in one block (far
	// fewer objects for the allocator and the collector to track in large snapshots).
	slab := make([]item, len(objs))
	var readErrs map[int]error
	var crds []Object
	var refs []ownerReference
	for i, o := range objs {
		m, err := readMetaFrom(o, &refs)
		if err != nil {
			if readErrs == nil {
				readErrs = map[int]error{}
			}
			readErrs[i] = err
		}
		// readMeta reads kind and apiVersion before anything that can fail.
		if m.kind == "CustomResourceDefinition" && m.apiVersion == "apiextensions.k8s.io/v1" {
			crds = append(crds, o)
		}
		slab[i].m = m
		if m.kind == "Pod" {
			// Read while the object is in the cache; fastDelete needs it later.
			spec, _ := o["spec"].(map[string]any)
			node, _ := spec["nodeName"].(string)
			slab[i].unbound = node == ""
		}
	}
	s.cat = newCatalog(opts.Kinds, crds)
	var problems []string
	// problemObj holds the object each problem is about, to place duplicate uids (found
	// afterwards) among them.
	var problemObj []int
	report := func(i int, p ...string) {
		problems = append(problems, p...)
		for range p {
			problemObj = append(problemObj, i)
		}
	}
	index := make([]int, 0, len(objs))
	hashes := make([]uint64, 0, len(objs))
	for i, o := range objs {
		if readErrs != nil && readErrs[i] != nil {
			report(i, fmt.Sprintf("object %d: %v", i, readErrs[i]))
			continue
		}
		it := &slab[i]
		m := &it.m
		if m.apiVersion == "" || m.kind == "" || m.name == "" || m.uid == "" || len(m.owners) > 0 || len(m.ownerErrs) > 0 {
			report(i, checkObject(i, m)...)
		}
		if m.apiVersion == "" || m.kind == "" || m.name == "" || m.uid == "" {
			continue
		}
		k := s.cat.kindPtr(m)
		if k.Namespaced && m.namespace == "" {
			report(i, lazyWhere(i, m)()+": metadata.namespace: Required value: "+k.Kind+" is namespaced")
			continue
		}
		if !k.Namespaced && m.namespace != "" {
			// The apiserver clears the namespace of cluster-scoped objects.
			m.namespace = ""
		}
		it.pos, it.dirty, it.obj, it.k = i, true, o, k
		index = append(index, i)
		hashes = append(hashes, s.byUID.hash(m.uid))
	}
	// The uid index, filled in a loop of its own. An object whose uid an earlier one has is
	// left out of the graph.
	type dupUID struct {
		obj     int
		problem string
	}
	var dups []dupUID
	for j, i := range index {
		it := &slab[i]
		if prev := s.byUID.addHashed(it, hashes[j]); prev != nil {
			dups = append(dups, dupUID{i, fmt.Sprintf("%s: metadata.uid %q is also the uid of object %d", lazyWhere(i, &it.m)(), it.m.uid, prev.pos)})
		}
	}
	if len(dups) > 0 {
		// Each object's problems in input order, the duplicate uid last.
		merged := make([]string, 0, len(problems)+len(dups))
		p := 0
		for _, d := range dups {
			for ; p < len(problems) && problemObj[p] <= d.obj; p++ {
				merged = append(merged, problems[p])
			}
			merged = append(merged, d.problem)
		}
		problems = append(merged, problems[p:]...)
	}
	s.items = s.byUID.items
	// The graph: owners and dependents by uid, whatever the references' other coordinates.
	total := 0
	for _, it := range s.items {
		total += len(it.m.owners)
	}
	links := make([]*item, total)
	s.inNamespace = map[string][]*item{}
	for _, it := range s.items {
		if it.k.Group == "" && it.k.Kind == "Namespace" {
			s.namespaces = append(s.namespaces, it)
		}
		if it.k.Namespaced && it.m.namespace != "" {
			s.inNamespace[it.m.namespace] = append(s.inNamespace[it.m.namespace], it)
		}
		n := len(it.m.owners)
		it.ownerItems, links = links[:n:n], links[n:]
		for i, o := range it.m.owners {
			it.ownerItems[i] = s.byUID.get(o.UID)
		}
		if it.ignored() {
			continue
		}
		for _, o := range it.ownerItems {
			if o != nil {
				o.dependents = append(o.dependents, it)
			}
		}
	}
	problems = append(problems, s.duplicateNames()...)
	if len(problems) > 0 {
		return nil, &InputError{Problems: problems}
	}
	return s, nil
}

// duplicateNames reports objects with the same resource, namespace and name: their hashes are
// sorted (cheaper than a map for millions of objects), equal neighbours compared exactly.
func (s *state) duplicateNames() []string {
	hs := make([]uint64, len(s.items))
	for i, it := range s.items {
		hs[i] = keyOf(it).hash()
	}
	sortHashes(hs)
	var dup map[uint64]bool
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			if dup == nil {
				dup = map[uint64]bool{}
			}
			dup[hs[i]] = true
		}
	}
	var problems []string
	if dup == nil {
		return nil
	}
	seen := map[objKey]*item{}
	for _, it := range s.items {
		if !dup[keyOf(it).hash()] {
			continue
		}
		k := keyOf(it)
		if prev, ok := seen[k]; ok {
			problems = append(problems, fmt.Sprintf("%s: same resource, namespace and name as object %d", lazyWhere(it.pos, &it.m)(), prev.pos))
			continue
		}
		seen[k] = it
	}
	return problems
}

func lazyWhere(i int, m *meta) func() string {
	return func() string { return fmt.Sprintf("object %d (%s %s)", i, m.apiVersion, m.ref()) }
}

// sortHashes sorts hashes in increasing order: a least-significant-digit radix sort for large
// slices (a few sequential passes instead of a comparison sort's n log n), slices.Sort otherwise.
func sortHashes(hs []uint64) {
	if len(hs) < 1<<12 {
		slices.Sort(hs)
		return
	}
	const bits = 16
	buf := make([]uint64, len(hs))
	count := make([]int, 1<<bits)
	src, dst := hs, buf
	for shift := 0; shift < 64; shift += bits {
		clear(count)
		for _, h := range src {
			count[(h>>shift)&(1<<bits-1)]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, h := range src {
			d := (h >> shift) & (1<<bits - 1)
			dst[count[d]] = h
			count[d]++
		}
		src, dst = dst, src
	}
	// Four passes: the sorted data is back in hs.
}

// checkObject reports what the apiserver would reject about an object of a snapshot.
func checkObject(i int, m *meta) []string {
	errs := validateOwnerRefs(m)
	if len(errs) == 0 && m.apiVersion != "" && m.kind != "" && m.name != "" && m.uid != "" {
		return nil
	}
	where := lazyWhere(i, m)()
	var problems []string
	if m.apiVersion == "" || m.kind == "" {
		problems = append(problems, where+": apiVersion and kind are required")
	}
	if m.name == "" {
		problems = append(problems, where+": metadata.name: Required value")
	}
	if m.uid == "" {
		problems = append(problems, where+": metadata.uid: Required value: the garbage collector tracks objects by uid")
	}
	for _, e := range errs {
		problems = append(problems, where+": "+e)
	}
	return problems
}

// linkOwners resolves the uids of an item's ownerReferences.
func (s *state) linkOwners(it *item) {
	it.ownerItems = make([]*item, len(it.m.owners))
	for i, o := range it.m.owners {
		it.ownerItems[i] = s.byUID.get(o.UID)
	}
}

// dependents returns the live items that reference uid now (the graph's dependents).
func (s *state) dependents(owner *item) []*item {
	uid := owner.m.uid
	var out []*item
	for _, d := range owner.dependents {
		if !d.gone && d.refersTo(uid, &s.refWork) {
			out = append(out, d)
		}
	}
	return out
}

func (s *state) hasDependents(owner *item) bool {
	uid := owner.m.uid
	for _, d := range owner.dependents {
		if !d.gone && d.refersTo(uid, &s.refWork) {
			return true
		}
	}
	return false
}

// blockingDependents returns the live dependents whose reference to uid blocks owner deletion.
func (s *state) blockingDependents(owner *item) []*item {
	uid := owner.m.uid
	var out []*item
	for _, d := range owner.dependents {
		if !d.gone && d.blocks(uid, &s.refWork) {
			out = append(out, d)
		}
	}
	return out
}

// ownerState is how the garbage collector classifies one ownerReference.
type ownerState int

const (
	ownerSolid ownerState = iota
	ownerDangling
	ownerWaiting
)

// resolveOwner looks an ownerReference up the way the garbage collector's isDangling does: by
// REST mapping of apiVersion/kind, then GET by name in the dependent's namespace (or cluster
// scope), comparing uids.
func (s *state) resolveOwner(it *item, i int) (ownerState, *item, error) {
	o := it.m.owners[i]
	k, ok := s.cat.lookup(o.APIVersion, o.Kind)
	if !ok {
		return 0, nil, fmt.Errorf("unable to get REST mapping for %s/%s", o.APIVersion, o.Kind)
	}
	ns := ""
	if k.Namespaced {
		if it.m.namespace == "" {
			return 0, nil, errClusterScopedDependent
		}
		ns = it.m.namespace
	}
	// GET by name, then compare uids: names are unique per resource and namespace, so this is
	// the object with the reference's uid, if it has that resource, namespace and name.
	owner := it.ownerItems[i]
	if owner == nil || owner.gone || keyOf(owner) != (objKey{k.Group, k.Resource, ns, o.Name}) {
		return ownerDangling, owner, nil
	}
	if owner.deletingDependents() {
		return ownerWaiting, owner, nil
	}
	return ownerSolid, owner, nil
}

var errClusterScopedDependent = fmt.Errorf("cluster-scoped objects cannot refer to namespaced owners")

// round runs each enabled controller once over the state, applying every action as it is taken,
// and returns the actions.
func (s *state) round() []Action {
	dirty := 0
	for _, it := range s.items {
		if it.dirty && !it.gone {
			dirty++
		}
	}
	out := make([]Action, 0, dirty)
	if s.opts.runs(ControllerGC) {
		if !s.events {
			out = append(out, s.graphEvents()...)
			s.events = true
		}
		// Owners waiting on their dependents first: the graph builder enqueues them as soon
		// as a dependent goes or stops blocking, while dependents are retried with back-off.
		for pass := 0; pass < 2; pass++ {
			for _, it := range s.items {
				if it.gone || !(it.dirty || s.fullScan) || (pass == 0) != (it.m.deleting() && (it.m.hasFinalizer(FinalizerForeground) || it.m.hasFinalizer(FinalizerOrphan))) {
					continue
				}
				it.dirty = false
				out = s.gcItem(it, out)
			}
		}
	}
	if s.opts.runs(ControllerNamespace) {
		for _, it := range s.namespaces {
			if it.gone || !it.m.deleting() {
				continue
			}
			out = append(out, s.syncNamespace(it)...)
		}
	}
	return out
}

// current returns the item's object, nil once removed.
func current(it *item) Object {
	if it.gone {
		return nil
	}
	return it.obj
}

// graphEvents are the Events the graph builder records while inserting the snapshot's objects:
// OwnerRefInvalidNamespace for a dependent whose owner uid is an object of another namespace.
func (s *state) graphEvents() []Action {
	var out []Action
	for _, it := range s.items {
		if it.ignored() {
			continue
		}
		for i, o := range it.m.owners {
			owner := it.ownerItems[i] // the object with o.UID
			if owner == nil || owner == it || owner.gone {
				continue
			}
			if owner.m.namespace != "" && owner.m.namespace != it.m.namespace {
				msg := fmt.Sprintf("ownerRef %s does not exist in namespace %q", coordinates(o, it.m.namespace), it.m.namespace)
				ev := &Event{Type: "Warning", Reason: "OwnerRefInvalidNamespace", Message: msg, InvolvedObject: it.ref(), Source: "garbage-collector-controller"}
				out = append(out, Action{Type: ActionEvent, Controller: ControllerGC, Target: it.ref(), Event: ev,
					Why: "the owner's uid belongs to an object in another namespace"})
				break
			}
			if o.APIVersion != owner.m.apiVersion || o.Kind != owner.m.kind || o.Name != owner.m.name {
				break
			}
		}
	}
	return out
}

// gcItem is the garbage collector's attemptToOrphan and attemptToDeleteItem for one item.
func (s *state) gcItem(it *item, out []Action) []Action {
	if it.ignored() {
		return out
	}
	delete(s.stuck, it)
	if it.m.deleting() && it.m.hasFinalizer(FinalizerOrphan) {
		return s.orphan(it, out)
	}
	if it.m.deleting() && !it.deletingDependents() {
		return out
	}
	if it.deletingDependents() {
		blocking := s.blockingDependents(it)
		if len(blocking) == 0 {
			return add(out, s.removeFinalizer(it, FinalizerForeground, "no dependent blocks the foreground deletion any more"))
		}
		return out
	}
	if len(it.m.owners) == 0 {
		return out
	}
	var solidBuf, danglingBuf, waitingBuf [2]ownerReference
	solid, dangling, waiting := solidBuf[:0], danglingBuf[:0], waitingBuf[:0]
	for i, o := range it.m.owners {
		st, _, err := s.resolveOwner(it, i)
		if err != nil {
			s.stuck[it] = err.Error()
			return out
		}
		switch st {
		case ownerSolid:
			solid = append(solid, o)
		case ownerDangling:
			dangling = append(dangling, o)
		case ownerWaiting:
			waiting = append(waiting, o)
		}
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return out
		}
		var uids []string
		for _, o := range append(append([]ownerReference{}, dangling...), waiting...) {
			uids = append(uids, o.UID)
		}
		why := "owner " + refNames(solid) + " still exists; dropping references to absent or foreground-deleting owners"
		return add(out, s.removeOwnerRefs(it, uids, why))
	case len(waiting) != 0 && s.hasDependents(it):
		for _, d := range s.dependents(it) {
			if d.deletingDependents() {
				var uids []string
				for _, o := range it.m.owners {
					if o.blocking() {
						uids = append(uids, o.UID)
					}
				}
				if len(uids) > 0 {
					// The DELETE that follows carries the resourceVersion read before this
					// patch: it conflicts, and the item is processed again later.
					return add(out, s.unblock(it, uids))
				}
				break
			}
		}
		why := "owner " + refNames(waiting) + " is deleting its dependents in the foreground and this object has dependents of its own"
		return s.deleteItem(out, it, Foreground, why)
	default:
		policy := Background
		switch {
		case it.m.hasFinalizer(FinalizerOrphan):
			policy = Orphan
		case it.m.hasFinalizer(FinalizerForeground):
			policy = Foreground
		}
		why := ""
		switch {
		case len(waiting) == 1 && len(dangling) == 0:
			// Shared by the many dependents of one owner.
			why = s.because(waiting[0].UID, func() string {
				return "owner " + refNames(waiting) + " is deleting its dependents in the foreground"
			})
		case len(waiting) != 0:
			why = "owner " + refNames(waiting) + " is deleting its dependents in the foreground"
			if len(dangling) != 0 {
				why += "; owner " + refNames(dangling) + " is absent"
			}
		case len(dangling) == 1:
			why = s.because("absent/"+dangling[0].UID, func() string { return "every owner is absent (" + refNames(dangling) + ")" })
		default:
			why = "every owner is absent (" + refNames(dangling) + ")"
		}
		return s.deleteItem(out, it, policy, why)
	}
}

// because returns the explanation cached under key, computing it once.
func (s *state) because(key string, f func() string) string {
	// The dependents of one owner usually come one after another.
	if s.lastWhyValid && key == s.lastWhyKey {
		return s.lastWhy
	}
	if w, ok := s.whys[key]; ok {
		s.lastWhyKey, s.lastWhy, s.lastWhyValid = key, w, true
		return w
	}
	if s.whys == nil {
		s.whys = map[string]string{}
	}
	w := f()
	s.whys[key] = w
	s.lastWhyKey, s.lastWhy, s.lastWhyValid = key, w, true
	return w
}

// add appends an action unless it changed nothing.
func add(out []Action, a Action) []Action {
	if a.Outcome == "unchanged" {
		return out
	}
	return append(out, a)
}

func refNames(refs []ownerReference) string {
	if len(refs) == 1 {
		return refs[0].Kind + "/" + refs[0].Name
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.Kind + "/" + r.Name
	}
	return strings.Join(parts, ", ")
}

// orphan is attemptToOrphanWorker: remove the owner from every dependent, then the finalizer.
func (s *state) orphan(it *item, out []Action) []Action {
	for _, d := range s.dependents(it) {
		out = add(out, s.removeOwnerRefs(d, []string{it.m.uid}, "owner "+it.ref().String()+" is being deleted with propagationPolicy Orphan"))
	}
	return add(out, s.removeFinalizer(it, FinalizerOrphan, "every dependent is orphaned"))
}

// drop takes an item out of the state.
// The indexes keep removed items; lookups check gone.
func (s *state) drop(it *item) {
	s.touch(it)
	it.gone = true
}

// replace installs a new version of an item's object.
func (s *state) replace(it *item, obj Object) {
	s.touch(it)
	m, _ := readMeta(obj)
	if !it.k.Namespaced {
		m.namespace = ""
	}
	ownersChanged := len(m.owners) != len(it.m.owners)
	for i := 0; !ownersChanged && i < len(m.owners); i++ {
		ownersChanged = m.owners[i].UID != it.m.owners[i].UID
	}
	it.obj, it.m, it.unbound = obj, m, false
	if ownersChanged {
		s.linkOwners(it)
	}
	s.touch(it)
}

// deleteItem appends the garbage collector's DELETE of it to out, unless it changed nothing.
// The action is built in place: a run appends about one per object.
func (s *state) deleteItem(out []Action, it *item, policy Propagation, why string) []Action {
	out = append(out, Action{Type: ActionDelete, Controller: ControllerGC, Target: it.ref(), PropagationPolicy: policy, Why: why})
	a := &out[len(out)-1]
	a.Outcome, a.written = s.applyDelete(it, policy)
	if a.Outcome == "unchanged" {
		return out[:len(out)-1]
	}
	a.Object = current(it)
	return out
}

// applyDelete runs the apiserver's DELETE the garbage collector sends: the policy and a uid
// precondition.
func (s *state) applyDelete(it *item, policy Propagation) (string, *writtenState) {
	p := policy
	uid := it.m.uid
	return s.applyDeleteOpts(it, DeleteOptions{PropagationPolicy: &p, Preconditions: &Preconditions{UID: &uid}})
}

func (s *state) removeOwnerRefs(it *item, uids []string, why string) Action {
	a := Action{Type: ActionRemoveOwnerReferences, Controller: ControllerGC, Target: it.ref(), OwnerUIDs: uids, Why: why}
	drop := map[string]bool{}
	for _, u := range uids {
		drop[u] = true
	}
	var keep []ownerReference
	for _, o := range it.m.owners {
		if !drop[o.UID] {
			keep = append(keep, o)
		}
	}
	if len(keep) == len(it.m.owners) {
		a.Outcome = "unchanged"
		return a
	}
	s.replace(it, withMeta(it.obj, map[string]any{"ownerReferences": ownerList(keep)}))
	a.Outcome = "updated"
	a.Object = it.obj
	return a
}

func (s *state) unblock(it *item, uids []string) Action {
	a := Action{Type: ActionUnblockOwnerReferences, Controller: ControllerGC, Target: it.ref(), OwnerUIDs: uids,
		Why: "a dependent is itself deleting its dependents in the foreground; unblocking to prevent a cycle"}
	f := false
	refs := make([]ownerReference, len(it.m.owners))
	copy(refs, it.m.owners)
	for i := range refs {
		if refs[i].blocking() {
			refs[i].BlockOwnerDeletion = &f
		}
	}
	s.replace(it, withMeta(it.obj, map[string]any{"ownerReferences": ownerList(refs)}))
	a.Outcome = "updated"
	a.Object = it.obj
	return a
}

// removeFinalizer patches a finalizer away; the apiserver removes an object being deleted whose
// last finalizer goes (ShouldDeleteDuringUpdate).
func (s *state) removeFinalizer(it *item, f, why string) Action {
	a := Action{Type: ActionRemoveFinalizer, Controller: ControllerGC, Target: it.ref(), Finalizer: f, Why: why}
	var keep []string
	for _, x := range it.m.finalizers {
		if x != f {
			keep = append(keep, x)
		}
	}
	if len(keep) == len(it.m.finalizers) {
		a.Outcome = "unchanged"
		return a
	}
	next := withMeta(it.obj, map[string]any{"finalizers": stringList(keep)})
	if shouldDeleteDuringUpdate(it, next, keep) {
		s.drop(it)
		a.Outcome = "removed"
		return a
	}
	s.replace(it, next)
	a.Outcome = "updated"
	a.Object = it.obj
	return a
}

func shouldDeleteDuringUpdate(it *item, next Object, finalizers []string) bool {
	if len(finalizers) > 0 || !it.m.deleting() {
		return false
	}
	if it.m.deletionGrace != nil && *it.m.deletionGrace != 0 {
		return false
	}
	if it.k.Group == "" && it.k.Kind == "Namespace" && len(specFinalizers(next)) > 0 {
		return false
	}
	return true
}

// Step returns what the enabled controllers do on seeing the snapshot once: the garbage
// collector's graph events and one pass over every object, then the namespace controller's sync
// of every terminating namespace. Each action is computed after the previous ones took effect,
// as a single worker would. objs is not modified.
func Step(objs []Object, opts Options) ([]Action, error) {
	s, err := newState(objs, opts)
	if err != nil {
		return nil, err
	}
	return s.round(), nil
}

// Result is the outcome of Run.
type Result struct {
	// Rounds holds each round's actions; the last round is the first that had none.
	Rounds [][]Action
	// Objects is the final state, in input order, without the removed objects.
	Objects []Object
	// Removed lists the objects that were deleted, in the order they went.
	Removed []Ref
	// Converged is false when MaxRounds was reached with controllers still acting.
	Converged bool
}

// Run runs the enabled controllers over the snapshot until none has anything left to do. objs is
// not modified.
func Run(objs []Object, opts Options) (Result, error) {
	s, err := newState(objs, opts)
	if err != nil {
		return Result{}, err
	}
	return s.run(), nil
}

func (s *state) run() Result {
	max := s.opts.MaxRounds
	if max <= 0 {
		max = 10000
	}
	var res Result
	for r := 0; r < max; r++ {
		acts := s.round()
		progress := false
		for _, a := range acts {
			if a.Type == ActionEvent || !strings.HasPrefix(a.Outcome, "error") {
				progress = true
			}
		}
		if len(acts) > 0 {
			res.Rounds = append(res.Rounds, acts)
		}
		if !progress {
			res.Converged = true
			break
		}
	}
	n := 0
	for _, r := range res.Rounds {
		for _, a := range r {
			if a.Outcome == "removed" {
				n++
			}
		}
	}
	res.Removed = make([]Ref, 0, n)
	for _, r := range res.Rounds {
		for _, a := range r {
			if a.Outcome == "removed" {
				res.Removed = append(res.Removed, a.Target)
			}
		}
	}
	res.Objects = s.objects()
	return res
}

func (s *state) objects() []Object {
	out := make([]Object, 0, len(s.items))
	for _, it := range s.items {
		if !it.gone {
			out = append(out, it.obj)
		}
	}
	return out
}

// sortRefs orders refs for stable output.
func sortRefs(refs []Ref) {
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
}
